# c = a @ b on one node, in blocks of M_BLOCK x N_BLOCK output tiles accumulated over K in steps
# of K_BLOCK tiles (the shape of tt-lang's matmul tutorial, steps 1-2; written for ttlplan). The
# compute thread accumulates into the reserved output block with `c_blk += a_blk @ b_blk`.
#
#   ttlplan tune examples/python/matmul_single_node.py --knob K_BLOCK=1,2,4 --buffer-factor auto
import ttl

TILE_SIZE = 32
M_BLOCK = 2
N_BLOCK = 2
K_BLOCK = 2


@ttl.operation(grid=(1, 1))
def matmul_single_node(a, b, c):
    m_blocks = a.shape[0] // TILE_SIZE // M_BLOCK
    n_blocks = b.shape[1] // TILE_SIZE // N_BLOCK
    k_steps = a.shape[1] // TILE_SIZE // K_BLOCK
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(M_BLOCK, K_BLOCK), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(K_BLOCK, N_BLOCK), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(M_BLOCK, N_BLOCK), block_count=1)

    @ttl.datamovement()
    def read():
        for mb in range(m_blocks):
            for nb in range(n_blocks):
                for k in range(k_steps):
                    m0, n0, k0 = mb * M_BLOCK, nb * N_BLOCK, k * K_BLOCK
                    with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                        tx_a = ttl.copy(a[m0:m0 + M_BLOCK, k0:k0 + K_BLOCK], a_blk)
                        tx_b = ttl.copy(b[k0:k0 + K_BLOCK, n0:n0 + N_BLOCK], b_blk)
                        tx_a.wait()
                        tx_b.wait()

    @ttl.compute()
    def compute():
        for _ in range(m_blocks * n_blocks):
            with c_dfb.reserve() as c_blk:
                for _ in range(k_steps):
                    with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                        c_blk += a_blk @ b_blk

    @ttl.datamovement()
    def write():
        for mb in range(m_blocks):
            for nb in range(n_blocks):
                m0, n0 = mb * M_BLOCK, nb * N_BLOCK
                with c_dfb.wait() as c_blk:
                    ttl.copy(c_blk, c[m0:m0 + M_BLOCK, n0:n0 + N_BLOCK]).wait()
