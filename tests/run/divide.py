# tt-lang's elementwise division of blocks (examples/test_transformer_block.py's softmax,
# `ttl.math.exp(shifted) / sums`): ttl.div, div_binary_tile, emulated against the reference on
# the run's random inputs. y = a / b and z = 2 / b (a number over a block: a fill of its shape).
import torch
import ttl


@ttl.operation(grid=(1, 1))
def divide(a, b, y, z):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2), block_count=2)
    z_dfb = ttl.make_dataflow_buffer_like(z, shape=(1, 2), block_count=2)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0:1, 0:2], blk).wait()
        with b_dfb.reserve() as blk:
            ttl.copy(b[0:1, 0:2], blk).wait()

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, b_dfb.wait() as w:
            with y_dfb.reserve() as o:
                o.store(x / w)
            with z_dfb.reserve() as o:
                o.store(2 / w)

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:1, 0:2]).wait()
        with z_dfb.wait() as blk:
            ttl.copy(blk, z[0:1, 0:2]).wait()


a = torch.rand(32, 64, dtype=torch.bfloat16)
b = torch.rand(32, 64, dtype=torch.bfloat16) + 0.5
y = torch.zeros(32, 64, dtype=torch.bfloat16)
z = torch.zeros(32, 64, dtype=torch.bfloat16)
divide(a, b, y, z)
