# One value stored into two DFBs (tt-lang's test_store_patterns.py, test_dst_multi_consumer.py):
# a TTL compute op feeds one store, so the front end computes the value anew for the second
# (tests/python/test_threads.py TwoStores checks the TTL); here both outputs against the reference.
import torch
import ttl


@ttl.operation(grid=(1, 1))
def two_stores(a, y, z):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1))
    z_dfb = ttl.make_dataflow_buffer_like(z, shape=(1, 1))

    @ttl.compute()
    def compute():
        with a_dfb.wait() as p, y_dfb.reserve() as q, z_dfb.reserve() as r:
            e = ttl.math.exp(p)
            q.store(e)
            r.store(e + e)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()
        with z_dfb.wait() as blk:
            ttl.copy(blk, z[0, 0]).wait()


a = torch.rand(32, 32, dtype=torch.bfloat16)
y = torch.zeros(32, 32, dtype=torch.bfloat16)
z = torch.zeros(32, 32, dtype=torch.bfloat16)
two_stores(a, y, z)
