# Pipes whose source lies in its own destination range, as tt-lang writes them: the source
# receives its own block (docs/lowering.md, "A source that receives its own block"). Checked
# against numpy by tests/run/layout_numpy.py: the reference interpreter reads the same TTL, so
# a source that never received, or received another block, would agree with itself.
import torch
import ttl


@ttl.operation(grid=(4, 1))
def send_then_receive(a, out):
    # Node 0 reads a's tile and multicasts it to nodes 0..3 (itself included) through a staging
    # DFB, then receives it like every other node (tt-lang's mcast helper): out[:, n] = 2 a.
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(slice(0, 4), 0))])
    stage = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1)
    got = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with got.wait() as g, o_dfb.reserve() as o:
            o.store(g + g)

    @ttl.datamovement()
    def move():
        def send(pipe):
            with stage.reserve() as s:
                ttl.copy(a[0:1, 0:1], s).wait()
            with stage.wait() as s:
                ttl.copy(s, pipe).wait()

        net.if_src(send)

        def receive(pipe):
            with got.reserve() as d:
                ttl.copy(pipe, d).wait()

        net.if_dst(receive)

    @ttl.datamovement()
    def write():
        x, _ = ttl.node(dims=2)
        with o_dfb.wait() as o:
            ttl.copy(o, out[0:1, x:x + 1]).wait()


@ttl.operation(grid=(2, 2))
def receive_around_send(a, out):
    # Node (0, 0) starts its receive, sends in between and waits for the receive after
    # (tt-lang's test_broadcast_2d.py), in the reader; every node writes exp of the block.
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(slice(0, 2), slice(0, 2)))])
    send_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    recv_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with recv_dfb.wait() as r, o_dfb.reserve() as o:
            o.store(ttl.math.exp(r))

    @ttl.datamovement()
    def read():
        x, y = ttl.node(dims=2)
        if x == 0 and y == 0:
            with send_dfb.reserve() as s, recv_dfb.reserve() as d:
                ttl.copy(a[0:1, 0:1], s).wait()

                def receive(pipe):
                    rx = ttl.copy(pipe, d)

                    def send(pipe):
                        ttl.copy(s, pipe).wait()

                    net.if_src(send)
                    rx.wait()

                net.if_dst(receive)
        else:
            with recv_dfb.reserve() as d:

                def receive(pipe):
                    ttl.copy(pipe, d).wait()

                net.if_dst(receive)

    @ttl.datamovement()
    def write():
        x, y = ttl.node(dims=2)
        with o_dfb.wait() as o:
            ttl.copy(o, out[y:y + 1, x:x + 1]).wait()


@ttl.operation(grid=(3, 1))
def across_threads(out):
    # Node 0's compute fills a block of 3.0 twice; its reader sends each round to nodes 0..2 and
    # the writers receive it (a pipe sent in one data-movement thread, received in the other):
    # out = 3 everywhere, two row blocks.
    net = ttl.PipeNet([ttl.Pipe(src=(0, 0), dst=(slice(0, 3), 0))])
    src = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)
    dst = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        x, _ = ttl.node(dims=2)
        for r in range(2):
            if x == 0:
                with src.reserve() as s:
                    s.store(ttl.block.fill(3.0, shape=s.shape))

    @ttl.datamovement()
    def read():
        x, _ = ttl.node(dims=2)
        for r in range(2):
            if x == 0:
                blk = src.wait()

                def send(pipe):
                    ttl.copy(blk, pipe).wait()

                net.if_src(send)

    @ttl.datamovement()
    def write():
        x, _ = ttl.node(dims=2)
        for r in range(2):

            def receive(pipe):
                d = dst.reserve()
                ttl.copy(pipe, d).wait()

            net.if_dst(receive)
            with dst.wait() as d:
                ttl.copy(d, out[r:r + 1, x:x + 1]).wait()


send_then_receive(torch.rand(32, 32), torch.zeros(32, 128))
receive_around_send(torch.rand(32, 32), torch.zeros(64, 64))
across_threads(torch.zeros(64, 96))
