# out = relu(... relu(relu(x * x + y_0) + y_1) ... + y_(N-1)), a tensor recurrence: `acc` is
# rebound in a loop and read in the next iteration, and each y_i's block is released (the `with`
# ends) before `acc` is stored. TTL's loops carry no values and TTL computes a value where it is
# stored, so ttlplan unrolls the loop and keeps `acc` in a carried-value buffer between
# iterations, as tt-lang keeps it in a compiler-allocated DFB (docs/python.md, "Values carried
# across iterations"). y stacks the N addends along its rows.
#
#   ttlplan run examples/python/running_relu_sum.py
import ttl


@ttl.operation(grid=(1, 1))
def running_relu_sum(x, y, out):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2), block_count=2)
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 2), block_count=2)
    n = y.shape[0] // x.shape[0]

    @ttl.compute()
    def compute():
        with x_dfb.wait() as xb:
            acc = xb * xb
            for i in range(n):
                with y_dfb.wait() as yb:
                    acc += yb
                acc = ttl.math.relu(acc)
            with out_dfb.reserve() as o:
                o.store(acc)

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0:1, 0:2], blk).wait()
        for i in range(n):
            with y_dfb.reserve() as blk:
                ttl.copy(y[i:i + 1, 0:2], blk).wait()

    @ttl.datamovement()
    def write():
        with out_dfb.wait() as blk:
            ttl.copy(blk, out[0:1, 0:2]).wait()
