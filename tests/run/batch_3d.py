# Tensors with a batch dimension (tt-lang's test/python/simple_add_3d.py, eltwise_add_3d.py):
# ttlplan folds the leading dimensions into the rows, [B, H, W] as [B * H, W] (the same tiles in
# the same DRAM order when H is whole tiles), and a block of shape (B, R, C) as B * R x C. Here
# out[b] = 2 * x[b] + y[1 - b], entry by entry, and a (2, 2, 1) block that spans both entries and
# all their rows; tests/python/test_threads.py checks the slice arithmetic by hand.
import torch
import ttl


@ttl.operation(grid=(1, 1))
def swapped(x, y, out):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 2, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2, 2), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 2, 2), block_count=2)

    @ttl.datamovement()
    def read():
        for b in range(2):
            with x_dfb.reserve() as p, y_dfb.reserve() as q:
                ttl.copy(x[b, 0:2, 0:2], p).wait()
                ttl.copy(y[1 - b, 0:2, 0:2], q).wait()

    @ttl.compute()
    def compute():
        for b in range(2):
            with x_dfb.wait() as p, y_dfb.wait() as q, o_dfb.reserve() as o:
                o.store(p * 2.0 + q)

    @ttl.datamovement()
    def write():
        for b in range(2):
            with o_dfb.wait() as o:
                ttl.copy(o, out[b:b + 1, 0:2, 0:2]).wait()


@ttl.operation(grid=(1, 1))
def whole_rows(x, y, out):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 2, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2, 1), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(2, 2, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for c in range(2):
            with x_dfb.reserve() as p, y_dfb.reserve() as q:
                ttl.copy(x[0:2, 0:2, c:c + 1], p).wait()
                ttl.copy(y[0:2, 0:2, c:c + 1], q).wait()

    @ttl.compute()
    def compute():
        for c in range(2):
            with x_dfb.wait() as p, y_dfb.wait() as q, o_dfb.reserve() as o:
                o.store(p - q)

    @ttl.datamovement()
    def write():
        for c in range(2):
            with o_dfb.wait() as o:
                ttl.copy(o, out[0:2, 0:2, c:c + 1]).wait()


x = torch.rand(2, 64, 64, dtype=torch.bfloat16)
y = torch.rand(2, 64, 64, dtype=torch.bfloat16)
out = torch.zeros(2, 64, 64, dtype=torch.bfloat16)
swapped(x, y, out)
whole_rows(x, y, out)
