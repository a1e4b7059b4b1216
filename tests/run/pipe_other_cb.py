# A pipe whose receiver fills another DFB than the one the send is from (tt-lang's
# test/python/atom/test_atom_pipe_unicast.py, the SUMMA atoms, test_broadcast_2d.py's recv_cb):
# node (0, 0) reads four tiles of x into send_dfb and sends each to node (1, 0), which receives
# into recv_dfb and writes exp of it to y. The two DFBs sit at different L1 addresses, so the
# receiver publishes the address it receives at and the sender multicasts there
# (docs/lowering.md); sending to the sender's own address instead leaves recv_dfb unfilled and
# `run` fails (checked by hand).
import torch
import ttl

TILE = 32


@ttl.operation(grid=(2, 1))
def forward(x, y):
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(1, 0))])
    send_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=4)
    recv_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        def send(pipe):
            for i in range(4):
                with send_dfb.reserve() as blk:
                    ttl.copy(x[i, 0], blk).wait()
                    ttl.copy(blk, pipe).wait()

        def recv(pipe):
            for i in range(4):
                with recv_dfb.reserve() as blk:
                    ttl.copy(pipe, blk).wait()

        net.if_src(send)
        net.if_dst(recv)

    @ttl.compute()
    def compute():
        nx, ny = ttl.node(dims=2)
        if nx == 1:
            for i in range(4):
                with recv_dfb.wait() as a, out_dfb.reserve() as b:
                    b.store(ttl.math.exp(a))

    @ttl.datamovement()
    def write():
        nx, ny = ttl.node(dims=2)
        if nx == 1:
            for i in range(4):
                with out_dfb.wait() as blk:
                    ttl.copy(blk, y[i, 0]).wait()


x = torch.rand((4 * TILE, TILE), dtype=torch.bfloat16)
y = torch.zeros((4 * TILE, TILE), dtype=torch.bfloat16)
forward(x, y)
