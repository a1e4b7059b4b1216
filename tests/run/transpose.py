# tt-lang's ttl.math.transpose and matmul(..., transpose_rhs=True) (test/python/test_transpose.py,
# test_matmul_simple.py), run on the emulator against the reference. The blocks are not square,
# so a tile index or an element swapped the wrong way lands outside the result or in the wrong
# place: y = transpose(x) for a 2 x 3 tile block; z = exp(x) transposed (the transpose reads a
# computed value: it goes through an intermediate DFB); w = a @ transpose(b) with b [N, K].
import torch
import ttl


@ttl.operation(grid=(1, 1))
def transposed(x, y):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 3), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(3, 2), block_count=2)

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0:2, 0:3], blk).wait()

    @ttl.compute()
    def compute():
        with x_dfb.wait() as a, y_dfb.reserve() as b:
            b.store(ttl.math.transpose(a))

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:3, 0:2]).wait()


@ttl.operation(grid=(1, 1))
def exp_transposed(x, z):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 3), block_count=2)
    z_dfb = ttl.make_dataflow_buffer_like(z, shape=(3, 2), block_count=2)

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0:2, 0:3], blk).wait()

    @ttl.compute()
    def compute():
        with x_dfb.wait() as a, z_dfb.reserve() as b:
            b.store(ttl.math.transpose(ttl.math.exp(a)))

    @ttl.datamovement()
    def write():
        with z_dfb.wait() as blk:
            ttl.copy(blk, z[0:3, 0:2]).wait()


@ttl.operation(grid=(1, 1))
def matmul_bt(a, b, w):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(3, 2), block_count=2)
    w_dfb = ttl.make_dataflow_buffer_like(w, shape=(2, 3), block_count=2)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0:2, 0:2], blk).wait()
        with b_dfb.reserve() as blk:
            ttl.copy(b[0:3, 0:2], blk).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as l, b_dfb.wait() as r, w_dfb.reserve() as o:
            o.store(ttl.math.matmul(l, r, transpose_rhs=True))

    @ttl.datamovement()
    def write():
        with w_dfb.wait() as blk:
            ttl.copy(blk, w[0:2, 0:3]).wait()


x = torch.rand(64, 96, dtype=torch.bfloat16)
y = torch.zeros(96, 64, dtype=torch.bfloat16)
z = torch.zeros(96, 64, dtype=torch.bfloat16)
a = torch.rand(64, 64, dtype=torch.bfloat16)
b = torch.rand(96, 64, dtype=torch.bfloat16)
w = torch.zeros(64, 96, dtype=torch.bfloat16)
transposed(x, y)
exp_transposed(x, z)
matmul_bt(a, b, w)
