# The spec's semaphores (TTLangSpecification.md, "Semaphore"), which tt-lang's compiler and
# simulator do not implement yet: on a 2 x 2 grid node 0 multicasts GO to the whole grid (itself
# included, so it waits for GO too), every node reads and exponentiates its tile after GO, the
# other nodes count themselves done on node 0 (inc of a unicast remote semaphore), and node 0
# then sets node (1, 1)'s ACK, which that node waits for before its write. A semaphore the
# lowering sets wrong leaves a node waiting: the emulator reports the deadlock and `run` fails.
import torch
import ttl

TILE = 32
GX, GY = 2, 2


@ttl.operation(grid=(GX, GY))
def barriers(x, y):
    node = ttl.node(dims=1)
    go = ttl.Semaphore()
    done = ttl.Semaphore(0)
    ack = ttl.Semaphore(initial_value=0)
    everyone = go.get_remote_multicast()
    node_0_done = done.get_remote((0, 0))
    last_ack = ack.get_remote((GX - 1, GY - 1))
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        nx, ny = ttl.node(dims=2)
        if node == 0:
            everyone.set(1)
        go.wait_eq(1)
        with x_dfb.reserve() as blk:
            ttl.copy(x[ny, nx], blk).wait()

    @ttl.compute()
    def compute():
        with x_dfb.wait() as a, y_dfb.reserve() as b:
            b.store(ttl.math.exp(a))

    @ttl.datamovement()
    def write():
        nx, ny = ttl.node(dims=2)
        if node != 0:
            node_0_done.inc(1)
        else:
            done.wait_eq(GX * GY - 1)
            last_ack.set(7)
        if node == GX * GY - 1:
            ack.wait_ge(7)
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[ny, nx]).wait()


x = torch.rand((GY * TILE, GX * TILE), dtype=torch.bfloat16)
y = torch.zeros((GY * TILE, GX * TILE), dtype=torch.bfloat16)
barriers(x, y)
