#include "ttlplan/lower/ApplyPlan.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/Extract.h"

#include <fmt/format.h>
#include <map>

namespace ttlplan::lower {

namespace {

ir::Attribute ints(std::initializer_list<int64_t> values) {
  std::vector<ir::Attribute> out;
  for (int64_t v : values)
    out.push_back(ir::Attribute::integer(v));
  return ir::Attribute::array(std::move(out));
}

/// The ops named `name` in `kernel`, in program order (the order extraction numbers them in).
std::vector<ir::Operation*> opsNamed(ir::Operation* kernel, std::string_view name) {
  std::vector<ir::Operation*> out;
  kernel->walk([&](ir::Operation* op) {
    if (op->isa(name)) out.push_back(op);
  });
  return out;
}

/// `ttl.nets` on each create_pipe: the nets the pipe forms on the grid and their plans.
void applyNets(ir::Operation* kernel, const KernelPlan& k) {
  using ir::Attribute;
  if (!k.multicastSolution) return;
  std::vector<ir::Operation*> pipes = opsNamed(kernel, ir::CreatePipeOp::kName);
  std::map<ir::Operation*, std::vector<Attribute>> nets;
  const auto& problem = k.multicastProblem;
  for (size_t i = 0; i < problem.nets.size() && i < k.multicastSolution->nets.size(); ++i) {
    int source = problem.nets[i].source;
    if (source < 0 || size_t(source) >= pipes.size()) continue;
    ir::Operation* pipe = pipes[size_t(source)];
    const auto& net = problem.nets[i];
    const auto& plan = k.multicastSolution->nets[i];
    std::vector<Attribute> dests, rects;
    for (const auto& d : net.dests)
      dests.push_back(ints({d.x, d.y}));
    for (const auto& m : plan.multicasts)
      rects.push_back(ints(
          {m.noc.startX, m.noc.startY, m.noc.endX, m.noc.endY, m.numDests, m.loopback ? 1 : 0}));
    nets[pipe].push_back(
        Attribute::dictionary({{"sender", ints({net.sender.x, net.sender.y})},
                               {"dests", Attribute::array(std::move(dests))},
                               {"rects", Attribute::array(std::move(rects))},
                               {"receivers", Attribute::integer(plan.receivers)},
                               {"ready_semaphore", Attribute::integer(plan.readySemaphore)},
                               {"valid_semaphore", Attribute::integer(plan.validSemaphore)}}));
  }
  // Every thread's creation of a pipe gets its nets (lower::pipeIds).
  std::map<const ir::Operation*, std::string> ids = pipeIds(kernel);
  for (ir::Operation* op : pipes)
    if (!nets.count(op))
      for (auto& [source, list] : nets)
        if (ids.at(source) == ids.at(op)) {
          op->setAttribute("ttl.nets", Attribute::array(list));
          break;
        }
  for (auto& [op, list] : nets)
    op->setAttribute("ttl.nets", Attribute::array(std::move(list)));
  kernel->setAttribute("ttl.semaphore_count",
                       Attribute::integer(k.multicastSolution->semaphoreIds));
}

} // namespace

std::optional<std::pair<int64_t, int64_t>> splitKey(const ir::Attribute& split) {
  if (!split.is(ir::AttrKind::Dictionary)) return std::nullopt;
  std::optional<int64_t> chain, value;
  for (const ir::NamedAttribute& e : split.entries()) {
    if (!e.value.is(ir::AttrKind::Integer)) continue;
    if (e.name == "chain") chain = e.value.intValue();
    if (e.name == "value") value = e.value.intValue();
  }
  if (!chain || !value) return std::nullopt;
  return std::pair{*chain, *value};
}

namespace {

ir::Attribute bindCb(const CbPlan& cb) {
  using ir::Attribute;
  return Attribute::dictionary(
      {{"cb_index", Attribute::integer(cb.index)},
       {"block_count", Attribute::integer(cb.blockCount)},
       {"l1_address", Attribute::integer(cb.address, ir::Type::integer(64))}});
}

/// The intermediate CBs of DST splits become kernel-scope `ttl.create_cb`s after the kernel's own
/// (so compile-time args keep the user's CBs first), each with its binding and
/// `ttl.dst_split = {chain = C, value = V}` naming the planner's chain (index among the compute
/// stores, in program order: lower::extractChains' order) and value id, which infer-dst uses to
/// route the value through it. Type: the value's block (rows x cols tiles) of the chain's tile
/// type, one block. Location: the chain's ttl.store. Idempotent: a CB already created for the
/// same chain and value is rebound instead.
void createIntermediateCbs(ir::Operation* kernel, const KernelPlan& k) {
  using ir::Attribute;
  std::vector<ir::Operation*> stores;
  ir::Operation* lastCb = nullptr;
  std::map<std::pair<int64_t, int64_t>, ir::Operation*> existing;
  kernel->walk([&](ir::Operation* op) {
    if (ir::StoreOp::dyn(op) && op->ancestor("ttl.compute_thread")) stores.push_back(op);
  });
  for (auto& op : kernel->body().operations())
    if (op->isa(ir::CreateCBOp::kName)) {
      lastCb = op.get();
      Attribute split = op->attribute("ttl.dst_split");
      if (auto key = splitKey(split)) existing[*key] = op.get();
    }
  for (const CbPlan& cb : k.cbs) {
    if (!cb.intermediate || cb.chain < 0 || static_cast<size_t>(cb.chain) >= stores.size() ||
        cb.blockShape.size() != 2)
      continue;
    if (auto it = existing.find({cb.chain, cb.value}); it != existing.end()) {
      it->second->setAttribute("ttl.bind_cb", bindCb(cb));
      continue;
    }
    ir::Operation* store = stores[static_cast<size_t>(cb.chain)];
    ir::Type tile = ir::StoreOp(store).view()->type().elementType();
    ir::Type type = ir::Type::circularBuffer(
        {ir::Dim::fixed(cb.blockShape[0]), ir::Dim::fixed(cb.blockShape[1])}, tile,
        ir::Dim::fixed(cb.blockCount));
    ir::OpBuilder b =
        lastCb ? ir::OpBuilder::after(lastCb) : ir::OpBuilder::atStart(kernel->body());
    b.setLocation(store->location());
    ir::Operation* create = b.create(
        std::string(ir::CreateCBOp::kName), {}, {type},
        {{"ttl.bind_cb", bindCb(cb)},
         {"ttl.dst_split", Attribute::dictionary({{"chain", Attribute::integer(cb.chain)},
                                                  {"value", Attribute::integer(cb.value)}})}});
    create->result(0)->setNameHint(fmt::format("split{}_{}", cb.chain, cb.value));
    lastCb = create;
  }
}

} // namespace

void applyPlan(ir::Module& module, const ModulePlan& plan) {
  using ir::Attribute;
  std::map<std::string, ir::Operation*> kernels;
  for (ir::Operation* kernel : module.topLevel(ir::KernelOp::kName))
    kernels.emplace(fmt::format("@{}", ir::KernelOp(kernel).symbolName()), kernel);
  for (const KernelPlan& k : plan.kernels) {
    auto found = kernels.find(k.name);
    if (found == kernels.end()) continue;
    ir::Operation* kernel = found->second;
    std::vector<ir::Operation*> cbs = opsNamed(kernel, ir::CreateCBOp::kName);
    for (const CbPlan& cb : k.cbs)
      if (cb.source >= 0 && size_t(cb.source) < cbs.size())
        cbs[size_t(cb.source)]->setAttribute("ttl.bind_cb", bindCb(cb));
    createIntermediateCbs(kernel, k);
    applyNets(kernel, k);
    kernel->setAttribute("ttl.grid_planned", Attribute::array({Attribute::integer(k.grid.rows),
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
    kernel->setAttribute("ttl.work_ranges", Attribute::array(std::move(ranges)));
  }
}

} // namespace ttlplan::lower
