#include "ttlplan/lower/ThreadRoles.h"

#include "ttlplan/ir/Ops.h"

namespace ttlplan::lower {

std::vector<ThreadRole> threadRoles(ir::Operation* kernel) {
  std::vector<ThreadRole> out;
  int movers = 0;
  for (auto& op : kernel->body().operations()) {
    std::optional<ir::ThreadOp> thread = ir::ThreadOp::dyn(op.get());
    if (!thread) continue;
    if (thread->isCompute())
      out.push_back({op.get(), "compute", "compute"});
    else if (movers++ == 0)
      out.push_back({op.get(), "reader", "noc0"});
    else
      out.push_back({op.get(), "writer", "noc1"});
  }
  return out;
}

} // namespace ttlplan::lower
