# out = exp(a) * b on every node of the device (grid="auto", which tt-lang and ttlplan both take
# as the device's compute grid), each node striding over the row blocks (the shape of tt-lang's
# elementwise tutorial, step 4; written for ttlplan).
import ttl

TILE_SIZE = 32
GRANULARITY = 1


@ttl.operation(grid="auto")
def eltwise_grid_auto(a, b, out):
    grid_x, grid_y = ttl.grid_size(dims=2)
    nodes = grid_x * grid_y
    row_blocks = a.shape[0] // TILE_SIZE // GRANULARITY
    col_tiles = a.shape[1] // TILE_SIZE
    rounds = -(-row_blocks // nodes)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(GRANULARITY, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(GRANULARITY, 1), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(GRANULARITY, 1), block_count=2)

    @ttl.datamovement()
    def read():
        x, y = ttl.node(dims=2)
        for k in range(rounds):
            rb = k * nodes + y * grid_x + x
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
        for k in range(rounds):
            if k * nodes + y * grid_x + x < row_blocks:
                for _ in range(col_tiles):
                    with a_dfb.wait() as p, b_dfb.wait() as q, out_dfb.reserve() as o:
                        o.store(ttl.math.exp(p) * q)

    @ttl.datamovement()
    def write():
        x, y = ttl.node(dims=2)
        for k in range(rounds):
            rb = k * nodes + y * grid_x + x
            if rb < row_blocks:
                for c in range(col_tiles):
                    with out_dfb.wait() as o:
                        r0 = rb * GRANULARITY
                        ttl.copy(o, out[r0:r0 + GRANULARITY, c:c + 1]).wait()
