# Two operations in one file, as tt-lang's test files have them (test_bcast_add.py,
# test_store_patterns.py): `ttlplan run` runs the one --kernel names. The shapes come from the
# calls at the bottom. y = |x| tile by tile; z = exp(x) tile by tile.
import torch
import ttl

TILE = 32


@ttl.operation(grid=(1, 1))
def absolute(x, y):
    n = x.shape[0] // TILE
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for i in range(n):
            with x_dfb.reserve() as blk:
                ttl.copy(x[i, 0], blk).wait()

    @ttl.compute()
    def compute():
        for _ in range(n):
            with x_dfb.wait() as a, y_dfb.reserve() as b:
                b.store(ttl.math.abs(a))

    @ttl.datamovement()
    def write():
        for i in range(n):
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[i, 0]).wait()


@ttl.operation(grid=(1, 1))
def exponential(x, z):
    n = x.shape[0] // TILE
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    z_dfb = ttl.make_dataflow_buffer_like(z, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for i in range(n):
            with x_dfb.reserve() as blk:
                ttl.copy(x[i, 0], blk).wait()

    @ttl.compute()
    def compute():
        for _ in range(n):
            with x_dfb.wait() as a, z_dfb.reserve() as b:
                b.store(ttl.math.exp(a))

    @ttl.datamovement()
    def write():
        for i in range(n):
            with z_dfb.wait() as blk:
                ttl.copy(blk, z[i, 0]).wait()


x = torch.rand(64, 32, dtype=torch.bfloat16)
absolute(x, torch.zeros_like(x))
exponential(x, torch.zeros_like(x))
