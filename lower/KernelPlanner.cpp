// Runs extraction and the planner's solvers per kernel; see KernelPlanner.h and docs/plan.md.
#include "lower/KernelPlanner.h"

#include "ir/Ops.h"
#include "planner/cbindex/Solve.h"
#include "planner/cores/Solve.h"
#include "planner/dst/Solve.h"
#include "planner/multicast/Solve.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <map>

namespace ttlplan::lower {

namespace l1 = planner::l1;
namespace cbindex = planner::cbindex;
namespace dst = planner::dst;
namespace cores = planner::cores;
namespace mc = planner::multicast;
using planner::SolveStatus;
using planner::l1::withThousands;

namespace {

bool solved(SolveStatus s) {
  return s == SolveStatus::Optimal || s == SolveStatus::Feasible;
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

l1::Problem l1ProblemOf(const std::vector<CbPlan>& cbs, const ir::Device& device) {
  l1::Problem problem;
  problem.capacity = device.freeL1Bytes();
  for (const CbPlan& cb : cbs) {
    l1::Buffer b;
    b.id = cb.name;
    b.lower = 0; // one program: every CB is live for the whole kernel
    b.upper = 1;
    b.size = cb.bytes;
    b.alignment = std::max<int64_t>(1, device.cb.addressAlignment);
    problem.buffers.push_back(std::move(b));
  }
  return problem;
}

void setCount(CbPlan& cb, int64_t count) {
  cb.blockCount = count;
  int64_t tiles = 1;
  for (int64_t d : cb.blockShape)
    tiles *= d;
  cb.bytes = tiles * cb.tileBytes * count;
}

/// The smallest single block-count change that makes the CBs fit, or a sentence saying none does.
std::string l1Fix(std::vector<CbPlan> cbs, const ir::Device& device, const PlanOptions& options) {
  std::optional<std::tuple<int64_t, size_t, int64_t>> best; // freed bytes, cb, new count
  for (size_t i = 0; i < cbs.size(); ++i) {
    if (cbs[i].intermediate || cbs[i].blockCount <= 1) continue;
    int64_t current = cbs[i].blockCount;
    int64_t perBlock = cbs[i].bytes / current;
    for (int64_t c = current - 1; c >= 1; --c) {
      int64_t freed = (current - c) * perBlock;
      if (best && freed >= std::get<0>(*best)) break;
      CbPlan saved = cbs[i];
      setCount(cbs[i], c);
      l1::Result r = l1::solve(l1ProblemOf(cbs, device), options.solver, options.limits);
      cbs[i] = saved;
      if (solved(r.status)) {
        best = {freed, i, c};
        break;
      }
    }
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
                     withThousands(minimum));
}

void record(KernelPlan& plan, std::string name, const planner::SolverStats& stats,
            SolveStatus status, double extraSeconds = 0) {
  SubProblemRun run;
  run.name = std::move(name);
  run.status = status;
  run.milliseconds = (stats.seconds + extraSeconds) * 1000.0;
  run.solver = stats.solver;
  run.nodes = stats.nodes;
  plan.runs.push_back(std::move(run));
}

Expected<KernelPlan> planKernel(ir::Operation* kernelOp, const ir::Binding& binding,
                                const ir::Device& device, const PlanOptions& options) {
  KernelPlan plan;
  plan.op = kernelOp;
  plan.name = fmt::format("@{}", ir::KernelOp(kernelOp).symbolName());
  plan.location = kernelOp->location().str();
  Expected<MathOptions> math = extractMathOptions(kernelOp, binding);
  if (!math) return math.error();
  plan.mathFidelity = math->mathFidelity;
  plan.fp32DestAcc = math->fp32DestAcc;

  // --- CBs of the kernel.
  Expected<std::vector<CbInfo>> cbs = extractCbs(kernelOp, binding, device);
  if (!cbs) return cbs.error();
  for (const CbInfo& info : *cbs) {
    CbPlan cb;
    cb.name = info.name;
    cb.location = info.location;
    cb.blockShape = info.blockShape;
    cb.dataType = info.dataType;
    cb.tileBytes = info.tileBytes;
    cb.chosenByPlanner = !info.blockCount;
    cb.op = info.op;
    setCount(cb, info.blockCount ? *info.blockCount : std::max(1, options.maxBlockCount));
    plan.cbs.push_back(std::move(cb));
  }

  // --- DST per chain (before L1: a split adds intermediate CBs).
  Expected<std::vector<ChainInfo>> chains = extractChains(kernelOp, binding, device);
  if (!chains) return chains.error();
  for (ChainInfo& info : *chains) {
    dst::Result r = dst::solve(info.problem, options.limits);
    record(plan, "dst " + info.id, r.stats, r.status);
    if (!solved(r.status) || !r.solution) {
      std::string where;
      if (r.exceedingOp && *r.exceedingOp < info.ops.size())
        where = fmt::format("; op {} at {} has {} values live", info.ops[*r.exceedingOp]->name(),
                            info.ops[*r.exceedingOp]->location().str(), r.liveAtExceedingOp);
      return Error{fmt::format("DST: kernel {}: chain {} ({}) does not fit {} DST tiles{}: {}; "
                               "use a smaller block or split the expression",
                               plan.name, info.id, info.location, dst::capacityTiles(info.problem),
                               where, r.message)};
    }
    ChainPlan chain;
    chain.id = info.id;
    chain.location = info.location;
    chain.dataType = info.dataType;
    chain.matmul = dst::isMatmulChain(info.problem.chain);
    chain.capacityTiles = dst::capacityTiles(info.problem);
    chain.problem = info.problem;
    chain.solution = *r.solution;
    for (const dst::IntermediateCb& ic : chain.solution.intermediates) {
      CbPlan cb;
      cb.name = fmt::format("dst-split[{} value {} after op {}]", info.id, ic.value, ic.afterOp);
      cb.location = info.location;
      cb.blockShape = {ic.rows, ic.cols};
      cb.dataType = info.dataType;
      cb.tileBytes = info.problem.intermediateTileBytes;
      cb.intermediate = true;
      cb.chain = static_cast<int>(plan.chains.size());
      cb.value = ic.value;
      setCount(cb, 1);
      cb.bytes = ic.bytes;
      plan.cbs.push_back(std::move(cb));
    }
    plan.chains.push_back(std::move(chain));
  }

  // --- CB indices: every CB of one program is live together.
  plan.cbProblem.limit = device.cb.maxPerProgram;
  for (const CbPlan& cb : plan.cbs)
    plan.cbProblem.cbs.push_back({cb.name, 0, 1, -1});
  if (!plan.cbs.empty()) {
    cbindex::Result r = cbindex::solve(plan.cbProblem, {}, options.limits);
    record(plan, "cb-index", r.stats, r.status);
    if (!solved(r.status) || !r.solution) {
      std::vector<size_t> all(plan.cbs.size());
      for (size_t i = 0; i < all.size(); ++i)
        all[i] = i;
      if (r.status == SolveStatus::Infeasible)
        return Error{fmt::format(
            "CB indices: kernel {} has {} CBs live together but {} allows {} (short by {}): {}; "
            "merge or remove {} CB{}",
            plan.name, plan.cbs.size(), device.name, device.cb.maxPerProgram,
            plan.cbs.size() - device.cb.maxPerProgram, cbList(plan.cbs, all),
            plan.cbs.size() - device.cb.maxPerProgram,
            plan.cbs.size() - device.cb.maxPerProgram == 1 ? "" : "s")};
      return Error{fmt::format("CB indices: kernel {}: {}", plan.name, r.message)};
    }
    plan.cbSolution = *r.solution;
    for (size_t i = 0; i < plan.cbs.size(); ++i)
      plan.cbs[i].index = plan.cbSolution.indices[i];
  }

  // --- L1 placement, reducing `?` block counts (largest CB first) until it fits.
  plan.l1Base = device.l1.unreservedBase;
  plan.l1Capacity = device.freeL1Bytes();
  double l1Seconds = 0;
  for (;;) {
    plan.l1Problem = l1ProblemOf(plan.cbs, device);
    l1::Result r = l1::solve(plan.l1Problem, options.solver, options.limits);
    l1Seconds += r.stats.seconds;
    if (solved(r.status) && r.solution) {
      record(plan, "l1", r.stats, r.status, l1Seconds - r.stats.seconds);
      plan.l1Solution = *r.solution;
      break;
    }
    if (r.status != SolveStatus::Infeasible) {
      record(plan, "l1", r.stats, r.status, l1Seconds - r.stats.seconds);
      return Error{
          fmt::format("L1: kernel {}: {} ({})", plan.name, r.message, planner::toString(r.status))};
    }
    // Reduce the largest `?` CB that still has more than one block.
    std::optional<size_t> pick;
    for (size_t i = 0; i < plan.cbs.size(); ++i)
      if (plan.cbs[i].chosenByPlanner && plan.cbs[i].blockCount > 1 &&
          (!pick || plan.cbs[i].bytes > plan.cbs[*pick].bytes))
        pick = i;
    if (pick) {
      setCount(plan.cbs[*pick], plan.cbs[*pick].blockCount - 1);
      continue;
    }
    record(plan, "l1", r.stats, r.status, l1Seconds - r.stats.seconds);
    int64_t needed = r.infeasibility ? r.infeasibility->smallestCapacity : 0;
    std::vector<size_t> order(plan.cbs.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    return Error{fmt::format("L1: kernel {} needs {} B of CBs but {} B are free (short by {} B): "
                             "{}; {}",
                             plan.name, withThousands(needed), withThousands(plan.l1Capacity),
                             withThousands(needed - plan.l1Capacity), cbList(plan.cbs, order),
                             l1Fix(plan.cbs, device, options))};
  }
  // Every CB is live for the whole program, so any gap-free packing is optimal; when the solver's
  // peak is that of a gap-free packing, lay the CBs out in program order (easier to read).
  {
    l1::Solution ordered;
    int64_t next = 0;
    for (const l1::Buffer& b : plan.l1Problem.buffers) {
      next = (next + b.alignment - 1) / b.alignment * b.alignment;
      ordered.offsets.push_back(next);
      next += b.size;
    }
    ordered.peak = next;
    if (ordered.peak <= plan.l1Solution.peak &&
        l1::validate(plan.l1Problem, ordered) == l1::Validity::Valid)
      plan.l1Solution = ordered;
  }
  plan.l1Used = plan.l1Solution.peak;
  for (size_t i = 0; i < plan.cbs.size(); ++i)
    plan.cbs[i].address = plan.l1Base + plan.l1Solution.offsets[i];
  for (const CbPlan& cb : plan.cbs) {
    if (!cb.chosenByPlanner) continue;
    if (cb.blockCount == options.maxBlockCount)
      plan.depthNotes.push_back(
          fmt::format("{}: block_count ? -> {} (the deepest allowed, --max-block-count {})",
                      cb.name, cb.blockCount, options.maxBlockCount));
    else
      plan.depthNotes.push_back(fmt::format(
          "{}: block_count ? -> {} (reduced from {}, largest `?` CB first, until L1 fits)", cb.name,
          cb.blockCount, options.maxBlockCount));
  }

  // --- Cores.
  Expected<CoresInfo> coresInfo = extractCores(kernelOp, binding, device);
  if (!coresInfo) return coresInfo.error();
  plan.grid = coresInfo->grid;
  plan.autoGrid = coresInfo->autoGrid;
  plan.workDims = coresInfo->workDims;
  if (coresInfo->problem) {
    plan.coresProblem = coresInfo->problem;
    cores::Result r = cores::solve(*plan.coresProblem);
    record(plan, "cores", r.stats, r.status);
    if (!solved(r.status) || !r.solution)
      return Error{fmt::format("cores: kernel {} ({}): {}", plan.name, plan.location, r.message)};
    plan.coresSolution = r.solution;
    plan.grid = r.solution->grid;
    plan.coresBaseline = cores::splitWorkToCores(plan.coresProblem->grid, plan.coresProblem->items,
                                                 plan.coresProblem->costs);
    plan.coresComparison = cores::explainDifference(*plan.coresSolution, *plan.coresBaseline);
  } else if (plan.autoGrid) {
    plan.grid = {1, 1}; // no work items: one core runs the kernel
  }

  // --- Multicast.
  std::map<ir::Operation*, int64_t> addresses;
  for (const CbPlan& cb : plan.cbs)
    if (cb.op) addresses[cb.op] = cb.address;
  Expected<mc::Problem> problem =
      extractMulticast(kernelOp, binding, device, plan.grid, [&](ir::Operation* op) {
        auto it = addresses.find(op);
        return it == addresses.end() ? int64_t(-1) : it->second;
      });
  if (!problem) return problem.error();
  plan.multicastProblem = std::move(*problem);
  if (!plan.multicastProblem.nets.empty()) {
    mc::Result r = mc::solve(plan.multicastProblem);
    record(plan, "multicast", r.stats, r.status);
    if (!solved(r.status) || !r.solution)
      return Error{fmt::format("multicast: kernel {}: {}", plan.name, r.message)};
    plan.multicastSolution = r.solution;
  }
  return plan;
}

} // namespace

Expected<ModulePlan> planModule(ir::Module& module, const ir::Device& device,
                                const PlanOptions& options) {
  auto start = std::chrono::steady_clock::now();
  ModulePlan out;
  out.file = module.fileName;
  out.device = device.name;
  Expected<ChosenBinding> binding = chooseBinding(module, options.binding);
  if (!binding) return binding.error();
  out.binding = *binding;
  for (ir::Operation* kernel : module.topLevel(ir::KernelOp::kName)) {
    Expected<KernelPlan> plan = planKernel(kernel, out.binding.binding, device, options);
    if (!plan) return plan.error();
    out.kernels.push_back(std::move(*plan));
  }
  out.totalMilliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
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
    if (auto v = mc::validate(plan.multicastProblem, *plan.multicastSolution);
        v != mc::Validity::Valid)
      add(fmt::format("multicast: {}", mc::toString(v)));
  return out;
}

} // namespace ttlplan::lower
