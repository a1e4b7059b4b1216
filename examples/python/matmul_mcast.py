# c = a @ b on a row of GRID_X nodes, each computing its own columns of c. Every node needs the
# same rows of a, so node (0, 0) reads each block of a once and multicasts it to the others
# through a PipeNet; each node reads its own blocks of b (the pattern of tt-lang's 1-D multicast
# matmul; written for ttlplan).
import ttl

TILE_SIZE = 32
GRID_X = 4
M_BLOCK = 2
K_BLOCK = 1


@ttl.operation(grid=(GRID_X, 1))
def matmul_mcast(a, b, c):
    m_blocks = a.shape[0] // TILE_SIZE // M_BLOCK
    k_steps = a.shape[1] // TILE_SIZE // K_BLOCK
    n_per_node = b.shape[1] // TILE_SIZE // GRID_X
    a_net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(slice(1, GRID_X), 0))])
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(M_BLOCK, K_BLOCK), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(K_BLOCK, n_per_node), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(M_BLOCK, n_per_node), block_count=1)

    @ttl.datamovement()
    def read_a():
        for mb in range(m_blocks):
            for k in range(k_steps):
                with a_dfb.reserve() as a_blk:
                    m0, k0 = mb * M_BLOCK, k * K_BLOCK

                    def send(pipe):
                        ttl.copy(a[m0:m0 + M_BLOCK, k0:k0 + K_BLOCK], a_blk).wait()
                        ttl.copy(a_blk, pipe).wait()

                    def receive(pipe):
                        ttl.copy(pipe, a_blk).wait()

                    a_net.if_src(send)
                    a_net.if_dst(receive)

    @ttl.compute()
    def compute():
        for _ in range(m_blocks):
            with c_dfb.reserve() as c_blk:
                for _ in range(k_steps):
                    with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                        c_blk += a_blk @ b_blk

    @ttl.datamovement()
    def read_b_write_c():
        x, _ = ttl.node(dims=2)
        n0 = x * n_per_node
        for mb in range(m_blocks):
            for k in range(k_steps):
                with b_dfb.reserve() as b_blk:
                    k0 = k * K_BLOCK
                    ttl.copy(b[k0:k0 + K_BLOCK, n0:n0 + n_per_node], b_blk).wait()
            with c_dfb.wait() as c_blk:
                m0 = mb * M_BLOCK
                ttl.copy(c_blk, c[m0:m0 + M_BLOCK, n0:n0 + n_per_node]).wait()
