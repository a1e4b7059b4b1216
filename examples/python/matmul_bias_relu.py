# y = relu(a @ b + c) on one node, one output tile at a time: the accumulator starts as
# ttl.block.fill(0, ...) and goes round a dataflow buffer once per K step, then the bias is added
# and relu applied in one store (the shape of tt-lang's matmul tutorial, step 1; written for
# ttlplan).
#
#   ttlplan run examples/python/matmul_bias_relu.py
import ttl


@ttl.operation(grid=(1, 1))
def matmul_bias_relu(a, b, c, y):
    m_tiles = a.shape[0] // 32
    n_tiles = b.shape[1] // 32
    k_tiles = a.shape[1] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for m in range(m_tiles):
            for n in range(n_tiles):
                with c_dfb.reserve() as c_blk:
                    ttl.copy(c[m, n], c_blk).wait()
                for k in range(k_tiles):
                    with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                        tx_a = ttl.copy(a[m, k], a_blk)
                        tx_b = ttl.copy(b[k, n], b_blk)
                        tx_a.wait()
                        tx_b.wait()

    @ttl.compute()
    def compute():
        for _ in range(m_tiles * n_tiles):
            with acc_dfb.reserve() as acc_blk:
                acc_blk.store(ttl.block.fill(0, shape=acc_blk.shape))
            for _ in range(k_tiles):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, acc_dfb.wait() as prev:
                    with acc_dfb.reserve() as acc_blk:
                        acc_blk.store(prev + a_blk @ b_blk)
            with c_dfb.wait() as c_blk, acc_dfb.wait() as acc_blk:
                with y_dfb.reserve() as y_blk:
                    y_blk.store(ttl.math.relu(c_blk + acc_blk))

    @ttl.datamovement()
    def write():
        for m in range(m_tiles):
            for n in range(n_tiles):
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[m, n]).wait()
