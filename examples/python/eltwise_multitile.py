# y = relu(a * b + c) in blocks of GRANULARITY x GRANULARITY tiles on one node (the shape of
# tt-lang's elementwise tutorial, step 2; written for ttlplan). GRANULARITY is the constant an
# author would guess; ttlplan tunes it:
#
#   ttlplan tune examples/python/eltwise_multitile.py --knob GRANULARITY=1,2,4 --buffer-factor auto
import ttl

TILE_SIZE = 32
GRANULARITY = 2


@ttl.operation(grid=(1, 1))
def eltwise_multitile(a, b, c, y):
    row_blocks = a.shape[0] // TILE_SIZE // GRANULARITY
    col_blocks = a.shape[1] // TILE_SIZE // GRANULARITY
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(GRANULARITY, GRANULARITY), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(GRANULARITY, GRANULARITY), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(GRANULARITY, GRANULARITY), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(GRANULARITY, GRANULARITY), block_count=2)

    @ttl.datamovement()
    def read():
        for rb in range(row_blocks):
            r0 = rb * GRANULARITY
            for cb in range(col_blocks):
                c0 = cb * GRANULARITY
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                    tx_a = ttl.copy(a[r0:r0 + GRANULARITY, c0:c0 + GRANULARITY], a_blk)
                    tx_b = ttl.copy(b[r0:r0 + GRANULARITY, c0:c0 + GRANULARITY], b_blk)
                    tx_c = ttl.copy(c[r0:r0 + GRANULARITY, c0:c0 + GRANULARITY], c_blk)
                    tx_a.wait()
                    tx_b.wait()
                    tx_c.wait()

    @ttl.compute()
    def compute():
        for _ in range(row_blocks * col_blocks):
            with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, c_dfb.wait() as c_blk:
                with y_dfb.reserve() as y_blk:
                    y_blk.store(ttl.math.relu(a_blk * b_blk + c_blk))

    @ttl.datamovement()
    def write():
        for rb in range(row_blocks):
            r0 = rb * GRANULARITY
            for cb in range(col_blocks):
                c0 = cb * GRANULARITY
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[r0:r0 + GRANULARITY, c0:c0 + GRANULARITY]).wait()
