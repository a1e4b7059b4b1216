#include "ttlplan/search/cost/Tradeoffs.h"

#include "ttlplan/planner/l1/Solve.h"
#include "ttlplan/search/cost/Price.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace ttlplan::search::cost {

using planner::l1::withThousands;

namespace {

/// The plan's predicted time over `alternative`'s, minus 1, in percent; nullopt when the model
/// cannot predict the alternative.
std::optional<double> costOver(const Prediction& plan, const Program& alternative,
                               const ir::Device& device) {
  Expected<Prediction> p = predict(alternative, device);
  if (!p || p->deviceNs <= 0) return std::nullopt;
  return 100.0 * (plan.deviceNs / p->deviceNs - 1.0);
}

/// "+18.0 % predicted time" / "no predicted difference" (within half a percent).
std::string costWords(const std::optional<double>& percent) {
  if (!percent) return "the cost model cannot price the alternative";
  if (std::abs(*percent) < 0.5) return "no predicted difference";
  return fmt::format("{:+.1f} % predicted time", *percent);
}

/// Calls `f` on every step of `steps` (a const or mutable step list), loop bodies included.
template <typename Steps, typename F> void forEachStep(Steps& steps, F&& f) {
  for (auto& s : steps) {
    f(s);
    if (s.kind == StepKind::Loop) forEachStep(s.body, f);
  }
}

/// The threads that produce into and consume from CB `name` on any core class: "compute and
/// noc1", or "" when one thread does both (or the CB is not in the Program).
std::string sharingThreads(const Program& program, const std::string& name) {
  std::set<ThreadRole> producers, consumers;
  for (const CoreClass& c : program.classes) {
    int index = -1;
    for (size_t i = 0; i < c.cbs.size(); ++i)
      if (c.cbs[i].name == name) index = int(i);
    if (index < 0) continue;
    for (const Thread& t : c.threads)
      forEachStep(t.steps, [&](const Step& s) {
        if (s.cb != index) return;
        if (s.kind == StepKind::Reserve || s.kind == StepKind::Push) producers.insert(t.role);
        if (s.kind == StepKind::Wait || s.kind == StepKind::Pop) consumers.insert(t.role);
      });
  }
  // Producers first: "compute and noc1" for an output CB.
  std::vector<ThreadRole> all(producers.begin(), producers.end());
  for (ThreadRole r : consumers)
    if (!producers.count(r)) all.push_back(r);
  if (producers.empty() || consumers.empty() || all.size() < 2) return "";
  std::string out;
  for (ThreadRole r : all)
    out += fmt::format("{}{}", out.empty() ? "" : " and ", toString(r));
  return out;
}

/// `program` with CB `name` `depth` blocks deep on every class.
Program withDepth(Program program, const std::string& name, int64_t depth) {
  for (CoreClass& c : program.classes)
    for (Cb& cb : c.cbs)
      if (cb.name == name) cb.depth = depth;
  return program;
}

/// A CB of depth 1 shared by two threads, or a `?` CB below the deepest depth.
std::optional<Tradeoff> depthTradeoff(const lower::KernelPlan& plan, const lower::CbPlan& cb,
                                      const Program& program, const Prediction& prediction,
                                      const ir::Device& device, int maxBlockCount) {
  if (cb.intermediate || cb.blockCount < 1) return std::nullopt;
  bool single = cb.blockCount == 1;
  bool shallow = cb.chosenByPlanner && cb.blockCount < maxBlockCount;
  if (!single && !shallow) return std::nullopt;
  std::string threads = sharingThreads(program, cb.name);
  if (single && threads.empty() && !shallow) return std::nullopt;
  int64_t depth = cb.chosenByPlanner ? std::max(2, maxBlockCount) : 2;
  int64_t blockBytes = cb.blockCount > 0 ? cb.bytes / cb.blockCount : 0;
  int64_t extra = (depth - cb.blockCount) * blockBytes;
  int64_t headroom = plan.l1Capacity - plan.l1Used;
  bool fits = extra <= headroom;
  Tradeoff t;
  t.kind = single ? "single_buffered" : "shallow_cb";
  t.subject = cb.name;
  t.costPercent = costOver(prediction, withDepth(program, cb.name, depth), device);
  t.alternative = fmt::format("depth {} (+{} B of L1, {})", depth, withThousands(extra),
                              fits ? "fits" : "does not fit");
  std::string why = !cb.chosenByPlanner
                        ? fmt::format("depth fixed in the source at {}", cb.location)
                    : fits ? "the binding chose it"
                           : fmt::format("depth {} needs {} B more than the {} B of L1 left", depth,
                                         withThousands(extra - headroom), withThousands(headroom));
  std::string what =
      single ? fmt::format("{} single-buffered{}", cb.name,
                           threads.empty() ? "" : ": " + threads + " take turns")
             : fmt::format("{} is {} blocks deep, not {}", cb.name, cb.blockCount, depth);
  t.text =
      fmt::format("{} ({}); {} against {}", what, why, costWords(t.costPercent), t.alternative);
  return t;
}

/// Why the DST plan of `chain` cuts after op `a`.
std::string cutReason(const lower::ChainPlan& chain, size_t a) {
  const auto& ops = chain.problem.chain.ops;
  if (a + 1 >= ops.size()) return "";
  const planner::dst::Op& next = ops[a + 1];
  if (next.cbOperands) return fmt::format("{} reads its operands from CBs", next.name);
  if (planner::dst::outputBlock(chain.problem.chain, ops[a]) !=
      planner::dst::outputBlock(chain.problem.chain, next))
    return fmt::format("the block shape changes at {}", next.name);
  return fmt::format("the values live there exceed {} DST tiles", chain.capacityTiles);
}

std::optional<Tradeoff> splitTradeoff(const lower::KernelPlan& plan, size_t index,
                                      const Program& program, const Prediction& prediction,
                                      const ir::Device& device) {
  const lower::ChainPlan& chain = plan.chains[index];
  const auto& intermediates = chain.solution.intermediates;
  if (intermediates.empty()) return std::nullopt;
  // Each intermediate block is packed once and unpacked once per run of the chain.
  int64_t tileBytes = chain.problem.intermediateTileBytes;
  double extra = 0;
  int64_t bytes = 0;
  std::string names;
  for (const auto& ic : intermediates) {
    extra += double(ic.tiles) *
             (packTileCycles(tileBytes, device) + unpackTileCycles(tileBytes, device));
    bytes += ic.bytes;
    for (const lower::CbPlan& cb : plan.cbs)
      if (cb.intermediate && cb.chain == int(index) && cb.value == ic.value)
        names += fmt::format("{}{}", names.empty() ? "" : ", ", cb.name);
  }
  std::set<std::string> reasons;
  for (size_t s = 0; s + 1 < chain.solution.segments.size(); ++s)
    reasons.insert(cutReason(chain, chain.solution.segments[s].endOp - 1));
  reasons.erase("");
  std::string why;
  for (const std::string& r : reasons)
    why += fmt::format("{}{}", why.empty() ? "" : "; ", r);
  Program alternative = program;
  for (CoreClass& c : alternative.classes)
    for (Thread& t : c.threads)
      forEachStep(t.steps, [&](Step& s) {
        if (s.kind == StepKind::Compute && alternative.originOf(s) == chain.location)
          s.cycles = std::max(0.0, s.cycles - extra);
      });
  Tradeoff t;
  t.kind = "dst_split";
  t.subject = chain.id;
  t.costPercent = costOver(prediction, alternative, device);
  t.alternative = fmt::format("the chain without the pack and unpack of its intermediate CBs "
                              "({:.0f} cycles per block)",
                              extra);
  t.text = fmt::format("chain {} split into {} DST passes ({}): intermediate CB{} {} take {} B of "
                       "L1 and {:.0f} pack and unpack cycles per block, {}",
                       chain.id, chain.solution.segments.size(), why,
                       intermediates.size() == 1 ? "" : "s", names, withThousands(bytes), extra,
                       costWords(t.costPercent));
  return t;
}

std::optional<Tradeoff> coresTradeoff(const lower::KernelPlan& plan, const ir::Device& device) {
  int deviceCores = device.grid.compute.cores();
  int64_t used =
      plan.coresSolution ? plan.coresSolution->coresUsed : int64_t(plan.grid.rows) * plan.grid.cols;
  if (deviceCores <= 0 || used >= deviceCores) return std::nullopt;
  std::string why;
  if (!plan.coresSolution)
    why = fmt::format("the kernel's grid is {} x {} and it has no `work` attribute to spread",
                      plan.grid.rows, plan.grid.cols);
  else if (!plan.autoGrid && plan.coresProblem->items > used)
    why = fmt::format("the kernel's grid attribute fixes {} x {}; on every core the makespan "
                      "would be {} items instead of {}",
                      plan.grid.rows, plan.grid.cols,
                      (plan.coresProblem->items + deviceCores - 1) / deviceCores,
                      plan.coresSolution->makespan);
  else if (plan.coresProblem->items < deviceCores)
    why = fmt::format("the work has {} item{} ({}); more cores need more, smaller items (a "
                      "smaller block)",
                      plan.coresProblem->items, plan.coresProblem->items == 1 ? "" : "s",
                      fmt::format("[{}]", fmt::join(plan.workDims, ", ")));
  else
    why = fmt::format("more cores would not shorten the makespan of {} items",
                      plan.coresSolution->makespan);
  Tradeoff t;
  t.kind = "idle_cores";
  t.subject = "grid";
  t.alternative = fmt::format("all {} cores", deviceCores);
  t.text = fmt::format("runs on {} of the device's {} cores ({} idle): {}", used, deviceCores,
                       deviceCores - used, why);
  return t;
}

} // namespace

std::vector<Tradeoff> explainTradeoffs(const lower::KernelPlan& plan, const Program& program,
                                       const Prediction& prediction, const ir::Device& device,
                                       int maxBlockCount) {
  std::vector<Tradeoff> out;
  for (const lower::CbPlan& cb : plan.cbs)
    if (auto t = depthTradeoff(plan, cb, program, prediction, device, maxBlockCount))
      out.push_back(std::move(*t));
  for (size_t c = 0; c < plan.chains.size(); ++c)
    if (auto t = splitTradeoff(plan, c, program, prediction, device)) out.push_back(std::move(*t));
  if (auto t = coresTradeoff(plan, device)) out.push_back(std::move(*t));
  return out;
}

} // namespace ttlplan::search::cost
