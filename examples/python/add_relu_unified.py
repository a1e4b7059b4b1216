# out = relu(a + b) + 1, written as one body: since tt-lang spec 0.19 an operation need not define
# its threads; ttlplan assigns each statement to the compute or the data-movement thread as
# tt-lang's splitter does (docs/python.md, "Unified-body operations"). No block is pushed or
# popped by hand and no copy keeps its handle: the release after a block's last use and the wait
# after a copy are added, as tt-lang's compiler adds them.
#
#   ttlplan run examples/python/add_relu_unified.py
import ttl


@ttl.operation(grid=(1, 1))
def add_relu_unified(a, b, out):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 2), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 2), block_count=2)

    rows = a.shape[0] // 32
    col_blocks = a.shape[1] // 64
    for r in range(rows):
        for cb in range(col_blocks):
            c0 = cb * 2
            a_blk = a_dfb.reserve()
            ttl.copy(a[r, c0:c0 + 2], a_blk)
            b_blk = b_dfb.reserve()
            ttl.copy(b[r, c0:c0 + 2], b_blk)

            y = out_dfb.reserve()
            y.store(ttl.math.relu(a_dfb.wait() + b_dfb.wait()) +
                    ttl.block.fill(1.0, shape=y.shape))

            ttl.copy(out_dfb.wait(), out[r, c0:c0 + 2])
