# Written for a 2048 x 2048 tensor: its loops count 64 tile rows whatever shape it is given.
# `ttlplan plan --args a=64x64,out=64x64` must refuse it at the read (a 64 x 64 tensor has 2 tile
# rows), not plan a kernel that reads past the tensor (issue 40, item 5).
import ttl

ROW_TILES = 64


@ttl.operation(grid=(1, 1))
def fixed_rows(a, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for i in range(ROW_TILES):
            with a_dfb.reserve() as blk:
                ttl.copy(a[i, 0], blk).wait()

    @ttl.compute()
    def compute():
        for _ in range(ROW_TILES):
            with a_dfb.wait() as x, o_dfb.reserve() as y:
                y.store(ttl.math.exp(x))

    @ttl.datamovement()
    def write():
        for i in range(ROW_TILES):
            with o_dfb.wait() as blk:
                ttl.copy(blk, out[i, 0]).wait()
