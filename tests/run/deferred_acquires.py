# Blocks acquired before the ones a thread is still using, as tt-lang's auto-pop tests write them
# (test/python/test_auto_pop_push.py): TTL holds one block of a CB at a time, so the front end
# copies an earlier waited block that is read later into a carried-value buffer before the next
# wait, moves a reserve down to its first use when its DFB is reserved again before, and keeps a
# block whose name is rebound to its copy's handle until that handle's wait. Checked against
# numpy by tests/run/layout_numpy.py (the reference runs the same TTL, so it cannot tell).
import torch
import ttl


@ttl.operation(grid=(1, 1))
def deferred_waits(a, out):
    # out[:, 0] = a0 + 2 a1, out[:, 1] = a1 - a0 ... each column from two waited blocks of a_dfb.
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        t1 = a_dfb.wait()
        t2 = a_dfb.wait()
        with o_dfb.reserve() as o:
            o.store(t1 + t2 * 2.0)
        with o_dfb.reserve() as o:
            o.store(t2 - t1)

    @ttl.datamovement()
    def read():
        for c in range(2):
            with a_dfb.reserve() as blk:
                ttl.copy(a[0:1, c:c + 1], blk).wait()

    @ttl.datamovement()
    def write():
        tx = o_dfb.wait()
        tx = ttl.copy(tx, out[0:1, 0:1])
        tx.wait()
        tx = o_dfb.wait()
        tx = ttl.copy(tx, out[0:1, 1:2])
        tx.wait()


@ttl.operation(grid=(1, 1))
def deferred_reserves(a, out):
    # out[:, c] = exp(a[:, c]) for three tiles, reserved together and stored in order.
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    o_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        r1 = o_dfb.reserve()
        r2 = o_dfb.reserve()
        r3 = o_dfb.reserve()
        with a_dfb.wait() as x:
            r1.store(ttl.math.exp(x))
        with a_dfb.wait() as x:
            r2.store(ttl.math.exp(x))
        with a_dfb.wait() as x:
            r3.store(ttl.math.exp(x))

    @ttl.datamovement()
    def read():
        for c in range(3):
            with a_dfb.reserve() as blk:
                ttl.copy(a[0:1, c:c + 1], blk).wait()

    @ttl.datamovement()
    def write():
        for c in range(3):
            with o_dfb.wait() as blk:
                ttl.copy(blk, out[0:1, c:c + 1]).wait()


a2 = torch.rand(32, 64, dtype=torch.bfloat16)
a3 = torch.rand(32, 96, dtype=torch.bfloat16)
deferred_waits(a2, torch.zeros(32, 64, dtype=torch.bfloat16))
deferred_reserves(a3, torch.zeros(32, 96, dtype=torch.bfloat16))
