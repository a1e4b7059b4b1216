# out = a + b, one tile at a time, on one node: the smallest tt-lang kernel (the shape of
# tt-lang's elementwise tutorial, step 1; written for ttlplan, not copied).
#
#   ttlplan plan examples/python/eltwise_single_tile.py     # shapes from the .ttlplan.toml beside it
#   ttlplan run  examples/python/eltwise_single_tile.py
import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def eltwise_single_tile(a, b, out):
    rows = a.shape[0] // TILE_SIZE
    cols = a.shape[1] // TILE_SIZE
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for r in range(rows):
            for c in range(cols):
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                    read_a = ttl.copy(a[r, c], a_blk)
                    read_b = ttl.copy(b[r, c], b_blk)
                    read_a.wait()
                    read_b.wait()

    @ttl.compute()
    def add():
        for _ in range(rows * cols):
            with a_dfb.wait() as x, b_dfb.wait() as y, out_dfb.reserve() as o:
                o.store(x + y)

    @ttl.datamovement()
    def write():
        for r in range(rows):
            for c in range(cols):
                with out_dfb.wait() as o:
                    ttl.copy(o, out[r, c]).wait()
