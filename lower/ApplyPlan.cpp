#include "lower/ApplyPlan.h"

#include "ir/Ops.h"

#include <map>

namespace ttlplan::lower {

namespace {

ir::Attribute ints(std::initializer_list<int64_t> values) {
  std::vector<ir::Attribute> out;
  for (int64_t v : values)
    out.push_back(ir::Attribute::integer(v));
  return ir::Attribute::array(std::move(out));
}

/// `ttl.nets` on each create_pipe: the nets the pipe forms on the grid and their plans.
void applyNets(const KernelPlan& k) {
  using ir::Attribute;
  if (!k.op || !k.multicastSolution) return;
  std::map<std::string, ir::Operation*> pipeAt; // location -> create_pipe
  k.op->walk([&](ir::Operation* op) {
    if (op->isa(ir::CreatePipeOp::kName)) pipeAt[op->location().str()] = op;
  });
  std::map<ir::Operation*, std::vector<Attribute>> nets;
  const auto& problem = k.multicastProblem;
  for (size_t i = 0; i < problem.nets.size() && i < k.multicastSolution->nets.size(); ++i) {
    auto it = pipeAt.find(problem.nets[i].location);
    if (it == pipeAt.end()) continue;
    const auto& net = problem.nets[i];
    const auto& plan = k.multicastSolution->nets[i];
    std::vector<Attribute> dests, rects;
    for (const auto& d : net.dests)
      dests.push_back(ints({d.x, d.y}));
    for (const auto& m : plan.multicasts)
      rects.push_back(ints({m.noc.startX, m.noc.startY, m.noc.endX, m.noc.endY, m.numDests,
                            m.loopback ? 1 : 0}));
    nets[it->second].push_back(Attribute::dictionary(
        {{"sender", ints({net.sender.x, net.sender.y})},
         {"dests", Attribute::array(std::move(dests))},
         {"rects", Attribute::array(std::move(rects))},
         {"receivers", Attribute::integer(plan.receivers)},
         {"ready_semaphore", Attribute::integer(plan.readySemaphore)},
         {"valid_semaphore", Attribute::integer(plan.validSemaphore)}}));
  }
  for (auto& [op, list] : nets)
    op->setAttribute("ttl.nets", Attribute::array(std::move(list)));
  k.op->setAttribute("ttl.semaphore_count",
                     Attribute::integer(k.multicastSolution->semaphoreIds));
}

} // namespace

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
    applyNets(k);
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
