// Plans one kernel from its IR-free problem; see planner/kernel/Plan.h and docs/plan.md.
#include "ttlplan/planner/kernel/Plan.h"

#include "ttlplan/planner/kernel/Cache.h"
#include "ttlplan/support/Deadline.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <numeric>

namespace ttlplan::planner::kernel {

using l1::withThousands;

int64_t CbSpec::blockTiles() const {
  return std::accumulate(blockShape.begin(), blockShape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

std::string_view toString(Resource resource) {
  switch (resource) {
  case Resource::Dst:
    return "dst";
  case Resource::CbIndices:
    return "cb-index";
  case Resource::L1:
    return "l1";
  case Resource::Cores:
    return "cores";
  case Resource::Multicast:
    return "multicast";
  case Resource::Semaphores:
    return "semaphores";
  case Resource::Limit:
    return "limit";
  case Resource::Invalid:
    return "invalid";
  }
  return "invalid";
}

PlanCache::PlanCache() : impl_(std::make_unique<Impl>()) {}
PlanCache::~PlanCache() = default;

PlanCache::Counters PlanCache::counters() const {
  return {impl_->hits.load(), impl_->misses.load()};
}

namespace {

using Clock = std::chrono::steady_clock;

bool solved(SolveStatus s) {
  return s == SolveStatus::Optimal || s == SolveStatus::Feasible;
}

/// Runs one solve through the cache (when there is one) and records it in `runs`.
template <typename Result, typename Solve>
Result runSolve(SolveTable<Result> PlanCache::Impl::*table, PlanCache* cache,
                const std::string& name, const SolveLimits& limits,
                const std::function<std::string()>& key, std::vector<SubProblemRun>& runs,
                Solve&& solve) {
  Clock::time_point start = Clock::now();
  bool hit = false;
  Result r = cache ? (cache->impl().*table)
                         .get(key(), limits.timeLimitSeconds == 0, solve, cache->impl().hits,
                              cache->impl().misses, hit)
                   : solve();
  SubProblemRun run;
  run.name = name;
  run.status = r.status;
  run.milliseconds = hit ? std::chrono::duration<double, std::milli>(Clock::now() - start).count()
                         : r.stats.seconds * 1000.0;
  run.solver = r.stats.solver;
  run.nodes = r.stats.nodes;
  run.cached = hit;
  runs.push_back(std::move(run));
  return r;
}

Rejection reject(Resource resource, SolveStatus status, std::string message) {
  Rejection r;
  r.resource = resource;
  r.status = status;
  r.message = std::move(message);
  return r;
}

/// The resource a failed solve reports when no resource-specific reason applies.
Resource failure(SolveStatus status, Resource infeasible) {
  if (status == SolveStatus::Infeasible) return infeasible;
  if (status == SolveStatus::NoSolution) return Resource::Limit;
  return Resource::Invalid;
}

std::string cbList(const std::vector<CbPlan>& cbs, const std::vector<size_t>& which) {
  std::string out;
  for (size_t i : which) {
    const CbPlan& cb = cbs[i];
    if (!out.empty()) out += ", ";
    out += fmt::format("{} ({} block{}, {} B, {})", cb.name, cb.blockCount,
                       cb.blockCount == 1 ? "" : "s", withThousands(cb.bytes), cb.location);
  }
  return out;
}

l1::Problem l1ProblemOf(const std::vector<CbPlan>& cbs, const DeviceLimits& limits) {
  l1::Problem problem;
  problem.capacity = limits.l1FreeBytes;
  for (const CbPlan& cb : cbs) {
    l1::Buffer b;
    b.id = cb.name;
    b.lower = 0; // one program: every CB is live for the whole kernel
    b.upper = 1;
    b.size = cb.bytes;
    b.alignment = std::max<int64_t>(1, limits.cbAlignment);
    problem.buffers.push_back(std::move(b));
  }
  return problem;
}

void setCount(CbPlan& cb, int64_t count) {
  cb.blockCount = count;
  cb.bytes = cb.blockBytes() * count;
}

/// The smallest single block-count change that makes the CBs fit, or a sentence saying none does.
/// Fitting is monotone in a block count (every CB is live for the whole kernel), so each CB's
/// largest fitting count is found by bisection: about log2(count) solves, all before `deadline`.
std::string l1Fix(std::vector<CbPlan> cbs, const DeviceLimits& limits, const PlanOptions& options,
                  const Deadline& deadline) {
  std::optional<std::tuple<int64_t, size_t, int64_t>> best; // freed bytes, cb, new count
  bool outOfTime = false;
  auto fits = [&](size_t i, int64_t count) {
    CbPlan saved = cbs[i];
    setCount(cbs[i], count);
    l1::Result r = l1::solve(l1ProblemOf(cbs, limits), options.solver,
                             within(options.limits, deadline), options.exact);
    cbs[i] = saved;
    outOfTime = outOfTime || deadline.passed();
    return solved(r.status);
  };
  for (size_t i = 0; i < cbs.size() && !outOfTime; ++i) {
    if (cbs[i].intermediate || cbs[i].blockCount <= 1) continue;
    int64_t current = cbs[i].blockCount;
    int64_t perBlock = cbs[i].bytes / current;
    auto freedAt = [&](int64_t c) { return (current - c) * perBlock; };
    // Only counts that free less than the best change so far are worth a solve.
    int64_t lowest = 1;
    if (best)
      lowest = std::max<int64_t>(1, current - (std::get<0>(*best) + perBlock - 1) / perBlock + 1);
    if (lowest >= current || !fits(i, lowest)) continue;
    int64_t lo = lowest, hi = current; // lo fits, hi does not
    while (hi - lo > 1 && !outOfTime) {
      int64_t mid = lo + (hi - lo) / 2;
      (fits(i, mid) ? lo : hi) = mid;
    }
    if (!best || freedAt(lo) < std::get<0>(*best)) best = {freedAt(lo), i, lo};
  }
  if (best) {
    const CbPlan& cb = cbs[std::get<1>(*best)];
    return fmt::format("block_count of {} from {} to {} frees {} B", cb.name, cb.blockCount,
                       std::get<2>(*best), withThousands(std::get<0>(*best)));
  }
  int64_t minimum = 0;
  for (CbPlan cb : cbs) {
    if (!cb.intermediate) setCount(cb, 1);
    minimum += cb.bytes;
  }
  return fmt::format("no single block_count change fits; even 1 block of every CB needs {} B, so "
                     "smaller blocks (block shape or tile type) are needed",
                     withThousands(minimum)) +
         (outOfTime ? " (the search for a fix stopped at the time limit)" : "");
}

/// Plans one kernel; the sections follow docs/plan.md. Each step returns a Rejection or nothing.
/// The op of `chain` whose result is `value` (nullptr for a chain input).
const ChainOp* definingOp(const ChainSpec& chain, dst::ValueId value) {
  const auto& ops = chain.problem.chain.ops;
  for (size_t i = 0; i < ops.size() && i < chain.ops.size(); ++i)
    if (ops[i].output == value) return &chain.ops[i];
  return nullptr;
}

class KernelPlanner {
public:
  KernelPlanner(const KernelProblem& problem, const PlanOptions& options, PlanCache* cache)
      : problem_(problem), options_(options), cache_(cache) {}

  PlanResult run();

private:
  void addCbs();
  /// `name`, or `name#2`, `name#3`, ... when a CB of the plan has it already.
  std::string uniqueCbName(const std::string& name) const;
  std::optional<Rejection> planDst();
  std::optional<Rejection> planCbIndices();
  std::optional<Rejection> planL1();
  Rejection l1Rejection(const l1::Result& r, const Deadline& deadline) const;
  void layOutInProgramOrder();
  void noteDepths();
  std::optional<Rejection> checkGrid() const;
  std::optional<Rejection> planCores();

  const KernelProblem& problem_;
  const PlanOptions& options_;
  PlanCache* cache_;
  KernelPlan plan_;
};

void KernelPlanner::addCbs() {
  for (size_t i = 0; i < problem_.cbs.size(); ++i) {
    const CbSpec& spec = problem_.cbs[i];
    CbPlan cb;
    cb.name = spec.name;
    cb.location = spec.location;
    cb.blockShape = spec.blockShape;
    cb.dataType = spec.dataType;
    cb.tileBytes = spec.tileBytes;
    cb.chosenByPlanner = !spec.blockCount;
    cb.source = int(i);
    int64_t count = std::max(1, options_.maxBlockCount);
    if (auto it = options_.blockCounts.find(i);
        it != options_.blockCounts.end() && !spec.blockCount)
      count = std::max<int64_t>(1, it->second);
    setCount(cb, spec.blockCount ? *spec.blockCount : count);
    plan_.cbs.push_back(std::move(cb));
  }
}

std::string KernelPlanner::uniqueCbName(const std::string& name) const {
  auto taken = [&](const std::string& n) {
    return std::any_of(plan_.cbs.begin(), plan_.cbs.end(),
                       [&](const CbPlan& cb) { return cb.name == n; });
  };
  std::string out = name;
  for (int k = 2; taken(out); ++k)
    out = fmt::format("{}#{}", name, k);
  return out;
}

std::optional<Rejection> KernelPlanner::planDst() {
  for (size_t c = 0; c < problem_.chains.size(); ++c) {
    const ChainSpec& info = problem_.chains[c];
    dst::Result r = runSolve<dst::Result>(
        &PlanCache::Impl::dst, cache_, "dst " + info.id, options_.limits,
        [&] { return signature(info.problem, options_.limits); }, plan_.runs,
        [&] { return dst::solve(info.problem, options_.limits); });
    if (!solved(r.status) || !r.solution) {
      std::string where;
      if (r.exceedingOp && *r.exceedingOp < info.ops.size())
        where = fmt::format("; op {} at {} has {} values live", info.ops[*r.exceedingOp].name,
                            info.ops[*r.exceedingOp].location, r.liveAtExceedingOp);
      Rejection out =
          reject(failure(r.status, Resource::Dst), r.status,
                 fmt::format("DST: kernel {}: chain {} ({}) does not fit {} DST tiles{}: {}; "
                             "use a smaller block or split the expression",
                             plan_.name, info.id, info.location, info.problem.capacityTiles, where,
                             r.message));
      out.chain = int(c);
      out.needed = r.liveAtExceedingOp;
      out.available = info.problem.capacityTiles;
      return out;
    }
    ChainPlan chain;
    chain.id = info.id;
    chain.location = info.location;
    chain.dataType = info.dataType;
    chain.matmul = dst::isMatmulChain(info.problem.chain);
    chain.capacityTiles = info.problem.capacityTiles;
    chain.problem = info.problem;
    chain.solution = *r.solution;
    for (const dst::IntermediateCb& ic : chain.solution.intermediates) {
      CbPlan cb;
      // Named after the value it carries, where that value is computed.
      const ChainOp* def = definingOp(info, ic.value);
      cb.name = uniqueCbName(def && !def->result.empty() ? def->result
                                                         : fmt::format("%value{}", ic.value));
      cb.location = def ? def->location : info.location;
      cb.blockShape = {ic.rows, ic.cols};
      cb.dataType = info.dataType;
      cb.tileBytes = info.problem.intermediateTileBytes;
      cb.intermediate = true;
      cb.chain = static_cast<int>(plan_.chains.size());
      cb.value = ic.value;
      setCount(cb, 1);
      cb.bytes = ic.bytes;
      plan_.cbs.push_back(std::move(cb));
    }
    plan_.chains.push_back(std::move(chain));
  }
  return std::nullopt;
}

std::optional<Rejection> KernelPlanner::planCbIndices() {
  const DeviceLimits& limits = problem_.limits;
  plan_.cbProblem.limit = limits.cbLimit;
  for (const CbPlan& cb : plan_.cbs)
    plan_.cbProblem.cbs.push_back({cb.name, 0, 1, -1});
  if (plan_.cbs.empty()) return std::nullopt;
  cbindex::Result r = runSolve<cbindex::Result>(
      &PlanCache::Impl::cbIndex, cache_, "cb-index", options_.limits,
      [&] { return signature(plan_.cbProblem, options_.limits); }, plan_.runs,
      [&] { return cbindex::solve(plan_.cbProblem, {}, options_.limits); });
  if (solved(r.status) && r.solution) {
    plan_.cbSolution = *r.solution;
    for (size_t i = 0; i < plan_.cbs.size(); ++i)
      plan_.cbs[i].index = plan_.cbSolution.indices[i];
    return std::nullopt;
  }
  if (r.status != SolveStatus::Infeasible)
    return reject(failure(r.status, Resource::CbIndices), r.status,
                  fmt::format("CB indices: kernel {}: {}", plan_.name, r.message));
  std::vector<size_t> all(plan_.cbs.size());
  std::iota(all.begin(), all.end(), size_t(0));
  int64_t count = int64_t(plan_.cbs.size()), over = count - limits.cbLimit;
  Rejection out = reject(
      Resource::CbIndices, r.status,
      fmt::format("CB indices: kernel {} has {} CBs live together but {} allows {} (short by {}): "
                  "{}; merge or remove {} CB{}",
                  plan_.name, count, limits.device, limits.cbLimit, over, cbList(plan_.cbs, all),
                  over, over == 1 ? "" : "s"));
  out.needed = count;
  out.available = limits.cbLimit;
  return out;
}

std::optional<Rejection> KernelPlanner::planL1() {
  const DeviceLimits& limits = problem_.limits;
  plan_.l1Base = limits.l1Base;
  plan_.l1Capacity = limits.l1FreeBytes;
  // One deadline for the whole step: the solves, the explanation and the fix search.
  Deadline deadline = Deadline::in(options_.limits.timeLimitSeconds);
  for (;;) {
    plan_.l1Problem = l1ProblemOf(plan_.cbs, limits);
    l1::Result r = runSolve<l1::Result>(
        &PlanCache::Impl::l1, cache_, "l1", options_.limits,
        [&] { return signature(plan_.l1Problem, options_.solver, options_.limits); }, plan_.runs,
        [&] {
          return l1::solve(plan_.l1Problem, options_.solver, within(options_.limits, deadline),
                           options_.exact);
        });
    if (solved(r.status) && r.solution) {
      plan_.l1Solution = *r.solution;
      return std::nullopt;
    }
    if (r.status != SolveStatus::Infeasible)
      return reject(failure(r.status, Resource::L1), r.status,
                    fmt::format("L1: kernel {}: {} ({})", plan_.name, r.message,
                                planner::toString(r.status)));
    // Reduce the largest `?` CB that still has more than one block (and that the caller did
    // not fix).
    std::optional<size_t> pick;
    for (size_t i = 0; i < plan_.cbs.size(); ++i) {
      const CbPlan& cb = plan_.cbs[i];
      bool fixed = cb.source >= 0 && options_.blockCounts.count(size_t(cb.source));
      if (cb.chosenByPlanner && !fixed && cb.blockCount > 1 &&
          (!pick || cb.bytes > plan_.cbs[*pick].bytes))
        pick = i;
    }
    if (pick) {
      setCount(plan_.cbs[*pick], plan_.cbs[*pick].blockCount - 1);
      continue;
    }
    return l1Rejection(r, deadline);
  }
}

Rejection KernelPlanner::l1Rejection(const l1::Result& r, const Deadline& deadline) const {
  int64_t needed = r.infeasibility ? r.infeasibility->smallestCapacity : 0;
  std::vector<size_t> order(plan_.cbs.size());
  std::iota(order.begin(), order.end(), size_t(0));
  Rejection out = reject(
      Resource::L1, r.status,
      fmt::format("L1: kernel {} needs {} B of CBs but {} B are free (short by {} B): {}; {}",
                  plan_.name, withThousands(needed), withThousands(plan_.l1Capacity),
                  withThousands(needed - plan_.l1Capacity), cbList(plan_.cbs, order),
                  l1Fix(plan_.cbs, problem_.limits, options_, deadline)));
  out.needed = needed;
  out.available = plan_.l1Capacity;
  std::vector<size_t> bySize = order;
  std::stable_sort(bySize.begin(), bySize.end(),
                   [&](size_t a, size_t b) { return plan_.cbs[a].bytes > plan_.cbs[b].bytes; });
  for (size_t i : bySize)
    if (plan_.cbs[i].source >= 0) out.cbs.push_back(plan_.cbs[i].source);
  return out;
}

// Every CB is live for the whole program, so any gap-free packing is optimal. TT-Metalium's
// allocator places a program's CBs itself, one after another in creation order from the unreserved
// base, each start aligned (tenstorrent/tt-metal tt_metal/impl/program/program.cpp,
// ProgramImpl::allocate_circular_buffers): a plan is realisable only as such a packing, which the
// host then creates in address order (docs/codegen.md). So the layout is always one: program order
// when its peak is no worse than the solver's, else the solver's placement compacted in its own
// address order (each CB moved down to the aligned end of the one below, which never raises the
// peak).
void KernelPlanner::layOutInProgramOrder() {
  auto packed = [&](const std::vector<size_t>& order) {
    l1::Solution out;
    out.offsets.assign(plan_.l1Problem.buffers.size(), 0);
    int64_t next = 0;
    for (size_t i : order) {
      const l1::Buffer& b = plan_.l1Problem.buffers[i];
      next = (next + b.alignment - 1) / b.alignment * b.alignment;
      out.offsets[i] = next;
      next += b.size;
    }
    out.peak = next;
    return out;
  };
  std::vector<size_t> order(plan_.l1Problem.buffers.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  l1::Solution ordered = packed(order);
  if (ordered.peak > plan_.l1Solution.peak && plan_.l1Solution.offsets.size() == order.size()) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return plan_.l1Solution.offsets[a] < plan_.l1Solution.offsets[b];
    });
    ordered = packed(order);
  }
  if (l1::validate(plan_.l1Problem, ordered) == l1::Validity::Valid) plan_.l1Solution = ordered;
  plan_.l1Used = plan_.l1Solution.peak;
  for (size_t i = 0; i < plan_.cbs.size(); ++i)
    plan_.cbs[i].address = plan_.l1Base + plan_.l1Solution.offsets[i];
}

void KernelPlanner::noteDepths() {
  for (const CbPlan& cb : plan_.cbs) {
    if (!cb.chosenByPlanner) continue;
    if (cb.source >= 0 && options_.blockCounts.count(size_t(cb.source)))
      plan_.depthNotes.push_back(
          fmt::format("{}: block_count ? -> {} (chosen by the caller)", cb.name, cb.blockCount));
    else if (cb.blockCount == options_.maxBlockCount)
      plan_.depthNotes.push_back(
          fmt::format("{}: block_count ? -> {} (the deepest allowed, --max-block-count {})",
                      cb.name, cb.blockCount, options_.maxBlockCount));
    else
      plan_.depthNotes.push_back(fmt::format(
          "{}: block_count ? -> {} (reduced from {}, largest `?` CB first, until L1 fits)", cb.name,
          cb.blockCount, options_.maxBlockCount));
  }
}

std::optional<Rejection> KernelPlanner::checkGrid() const {
  const cores::Grid& device = problem_.limits.grid;
  if (problem_.grid.rows > device.rows || problem_.grid.cols > device.cols) {
    Rejection out = reject(Resource::Cores, SolveStatus::Infeasible,
                           fmt::format("grid [{}, {}] does not fit the device's {} x {} "
                                       "compute grid ({})",
                                       problem_.grid.rows, problem_.grid.cols, device.rows,
                                       device.cols, problem_.limits.device));
    out.needed = int64_t(problem_.grid.rows) * problem_.grid.cols;
    out.available = device.cores();
    return out;
  }
  return std::nullopt;
}

std::optional<Rejection> KernelPlanner::planCores() {
  plan_.grid = problem_.grid;
  plan_.autoGrid = problem_.autoGrid;
  plan_.workDims = problem_.workDims;
  if (!problem_.cores) {
    if (plan_.autoGrid) plan_.grid = {1, 1}; // no work items: one core runs the kernel
    return std::nullopt;
  }
  plan_.coresProblem = problem_.cores;
  cores::Result r = runSolve<cores::Result>(
      &PlanCache::Impl::cores, cache_, "cores", options_.limits,
      [&] { return signature(*plan_.coresProblem, options_.limits); }, plan_.runs,
      [&] { return cores::solve(*plan_.coresProblem, options_.limits); });
  if (!solved(r.status) || !r.solution)
    return reject(failure(r.status, Resource::Cores), r.status,
                  fmt::format("cores: kernel {} ({}): {}", plan_.name, plan_.location, r.message));
  plan_.coresSolution = r.solution;
  plan_.grid = r.solution->grid;
  plan_.coresBaseline = cores::splitWorkToCores(plan_.coresProblem->grid, plan_.coresProblem->items,
                                                plan_.coresProblem->costs);
  plan_.coresComparison = cores::explainDifference(*plan_.coresSolution, *plan_.coresBaseline);
  return std::nullopt;
}

} // namespace

// The multicast step, public so that lower/ can run it on a finished plan whose nets it extracts
// after the cores plan chose the grid.
std::optional<Rejection> planMulticast(KernelPlan& plan, multicast::Problem nets,
                                       const PlanOptions& options, PlanCache* cache) {
  plan.multicastProblem = std::move(nets);
  if (plan.multicastProblem.nets.empty()) return std::nullopt;
  multicast::Options mcOptions;
  mcOptions.limits = options.limits;
  multicast::Result r = runSolve<multicast::Result>(
      &PlanCache::Impl::multicast, cache, "multicast", options.limits,
      [&] { return signature(plan.multicastProblem, options.limits); }, plan.runs,
      [&] { return multicast::solve(plan.multicastProblem, mcOptions); });
  if (solved(r.status) && r.solution) {
    plan.multicastSolution = r.solution;
    return std::nullopt;
  }
  Resource resource = r.status == SolveStatus::Infeasible   ? Resource::Semaphores
                      : r.status == SolveStatus::NoSolution ? Resource::Limit
                                                            : Resource::Multicast;
  Rejection out =
      reject(resource, r.status, fmt::format("multicast: kernel {}: {}", plan.name, r.message));
  if (r.infeasibility) {
    out.needed = r.infeasibility->needed;
    out.available = plan.multicastProblem.semaphoreLimit;
  }
  return out;
}

namespace {

PlanResult KernelPlanner::run() {
  plan_.name = problem_.name;
  plan_.location = problem_.location;
  plan_.assumptions = problem_.assumptions;
  plan_.mathFidelity = problem_.mathFidelity;
  plan_.fp32DestAcc = problem_.fp32DestAcc;
  addCbs();
  std::optional<Rejection> rejection = checkGrid(); // cheapest first
  if (!rejection) rejection = planDst();            // before L1: a split adds intermediate CBs
  if (!rejection) rejection = planCbIndices();
  if (!rejection) rejection = planL1();
  if (!rejection) {
    layOutInProgramOrder();
    noteDepths();
    rejection = planCores();
  }
  if (!rejection && problem_.multicast)
    rejection = planMulticast(plan_, *problem_.multicast, options_, cache_);
  PlanResult result;
  if (rejection)
    result.rejection = std::move(rejection);
  else
    result.plan = std::move(plan_);
  return result;
}

} // namespace

bool samePlanner(const PlanOptions& a, const PlanOptions& b) {
  return a.solver == b.solver && a.limits == b.limits && a.maxBlockCount == b.maxBlockCount &&
         a.exact == b.exact;
}

PlanResult plan(const KernelProblem& problem, const PlanOptions& options, PlanCache* cache) {
  return KernelPlanner(problem, options, cache).run();
}

std::string validatePlan(const KernelPlan& plan) {
  std::string out;
  auto add = [&](std::string what) {
    if (!out.empty()) out += "; ";
    out += what;
  };
  if (auto v = l1::validate(plan.l1Problem, plan.l1Solution); v != l1::Validity::Valid)
    add(fmt::format("l1: {}", l1::toString(v)));
  // The addresses the code will use must be the validated placement.
  for (size_t i = 0; i < plan.cbs.size(); ++i)
    if (i >= plan.l1Solution.offsets.size() ||
        plan.cbs[i].address != plan.l1Base + plan.l1Solution.offsets[i])
      add(fmt::format(
          "l1: {} is at {} but the placement says {}", plan.cbs[i].name, plan.cbs[i].address,
          i < plan.l1Solution.offsets.size() ? plan.l1Base + plan.l1Solution.offsets[i] : -1));
  if (!plan.cbs.empty())
    if (auto v = cbindex::validate(plan.cbProblem, plan.cbSolution); v != cbindex::Validity::Valid)
      add(fmt::format("cb-index: {}", cbindex::toString(v)));
  for (const ChainPlan& chain : plan.chains)
    if (auto v = dst::validate(chain.problem, chain.solution); v != dst::Validity::Valid)
      add(fmt::format("dst {}: {}", chain.id, dst::toString(v)));
  if (plan.coresProblem && plan.coresSolution)
    if (auto v = cores::validate(*plan.coresProblem, *plan.coresSolution);
        v != cores::Validity::Valid)
      add(fmt::format("cores: {}", cores::toString(v)));
  if (plan.multicastSolution)
    if (auto v = multicast::validate(plan.multicastProblem, *plan.multicastSolution);
        v != multicast::Validity::Valid)
      add(fmt::format("multicast: {}", multicast::toString(v)));
  return out;
}

} // namespace ttlplan::planner::kernel
