# out = a - b on a grid of 4 x 2 nodes: each node takes its share of the row blocks, found from
# ttl.node and the ceiling idiom -(-n // d) (the shape of tt-lang's elementwise tutorial, step 3;
# written for ttlplan).
import ttl

TILE_SIZE = 32
GRANULARITY = 2
GRID_X = 4
GRID_Y = 2


@ttl.operation(grid=(GRID_X, GRID_Y))
def eltwise_multinode(a, b, out):
    row_blocks = a.shape[0] // TILE_SIZE // GRANULARITY
    col_tiles = a.shape[1] // TILE_SIZE
    nodes = GRID_X * GRID_Y
    blocks_per_node = -(-row_blocks // nodes)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(GRANULARITY, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(GRANULARITY, 1), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(GRANULARITY, 1), block_count=2)

    @ttl.datamovement()
    def read():
        x, y = ttl.node(dims=2)
        first = (y * GRID_X + x) * blocks_per_node
        for i in range(blocks_per_node):
            rb = first + i
            if rb < row_blocks:
                for c in range(col_tiles):
                    with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                        r0 = rb * GRANULARITY
                        tx_a = ttl.copy(a[r0:r0 + GRANULARITY, c:c + 1], a_blk)
                        tx_b = ttl.copy(b[r0:r0 + GRANULARITY, c:c + 1], b_blk)
                        tx_a.wait()
                        tx_b.wait()

    @ttl.compute()
    def compute():
        x, y = ttl.node(dims=2)
        first = (y * GRID_X + x) * blocks_per_node
        for i in range(blocks_per_node):
            if first + i < row_blocks:
                for _ in range(col_tiles):
                    with a_dfb.wait() as p, b_dfb.wait() as q, out_dfb.reserve() as o:
                        o.store(p - q)

    @ttl.datamovement()
    def write():
        x, y = ttl.node(dims=2)
        first = (y * GRID_X + x) * blocks_per_node
        for i in range(blocks_per_node):
            rb = first + i
            if rb < row_blocks:
                for c in range(col_tiles):
                    with out_dfb.wait() as o:
                        r0 = rb * GRANULARITY
                        ttl.copy(o, out[r0:r0 + GRANULARITY, c:c + 1]).wait()
