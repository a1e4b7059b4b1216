# out[:, 0] = the sum of each row of a: a reduction over the columns (dims=[-1]) of blocks of
# GRANULARITY x COLS tiles, one node per band of rows (written for ttlplan in tt-lang's style).
# out has one tile column; only its column 0 is defined, as in tt-lang.
import ttl

TILE_SIZE = 32
GRANULARITY = 1
GRID_Y = 2


@ttl.operation(grid=(1, GRID_Y))
def reduce_rows(a, out):
    row_blocks = a.shape[0] // TILE_SIZE // GRANULARITY
    col_tiles = a.shape[1] // TILE_SIZE
    per_node = -(-row_blocks // GRID_Y)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(GRANULARITY, col_tiles), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(GRANULARITY, 1), block_count=2)

    @ttl.datamovement()
    def read():
        _, y = ttl.node(dims=2)
        for i in range(per_node):
            rb = y * per_node + i
            if rb < row_blocks:
                with a_dfb.reserve() as a_blk:
                    r0 = rb * GRANULARITY
                    ttl.copy(a[r0:r0 + GRANULARITY, 0:col_tiles], a_blk).wait()

    @ttl.compute()
    def compute():
        _, y = ttl.node(dims=2)
        for i in range(per_node):
            if y * per_node + i < row_blocks:
                with a_dfb.wait() as a_blk, out_dfb.reserve() as o:
                    o.store(ttl.math.reduce_sum(a_blk, dims=[-1]))

    @ttl.datamovement()
    def write():
        _, y = ttl.node(dims=2)
        for i in range(per_node):
            rb = y * per_node + i
            if rb < row_blocks:
                with out_dfb.wait() as o:
                    r0 = rb * GRANULARITY
                    ttl.copy(o, out[r0:r0 + GRANULARITY, 0:1]).wait()
