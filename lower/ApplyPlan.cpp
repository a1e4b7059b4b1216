#include "lower/ApplyPlan.h"

namespace ttlplan::lower {

void applyPlan(const ModulePlan& plan) {
  using ir::Attribute;
  ir::Type i64 = ir::Type::integer(64);
  for (const KernelPlan& k : plan.kernels) {
    for (const CbPlan& cb : k.cbs) {
      if (!cb.op) continue;
      cb.op->setAttribute(
          "ttl.bind_cb",
          Attribute::dictionary({{"cb_index", Attribute::integer(cb.index)},
                                 {"block_count", Attribute::integer(cb.blockCount)},
                                 {"l1_address", Attribute::integer(cb.address, i64)}}));
    }
    if (!k.op) continue;
    k.op->setAttribute("ttl.grid_planned", Attribute::array({Attribute::integer(k.grid.rows),
                                                             Attribute::integer(k.grid.cols)}));
    if (!k.coresSolution) continue;
    std::vector<Attribute> ranges;
    const auto& s = *k.coresSolution;
    for (size_t i = 0; i < s.ranges.size(); ++i) {
      if (s.ranges[i].count == 0) continue;
      ranges.push_back(Attribute::array({Attribute::integer(int64_t(i) % s.grid.cols),
                                         Attribute::integer(int64_t(i) / s.grid.cols),
                                         Attribute::integer(s.ranges[i].start),
                                         Attribute::integer(s.ranges[i].count)}));
    }
    k.op->setAttribute("ttl.work_ranges", Attribute::array(std::move(ranges)));
  }
}

} // namespace ttlplan::lower
