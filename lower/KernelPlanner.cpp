// Extracts each kernel's KernelProblem and plans it; see KernelPlanner.h and docs/plan.md.
#include "ttlplan/lower/KernelPlanner.h"

#include "ttlplan/ir/Ops.h"

#include <chrono>
#include <fmt/format.h>
#include <set>

namespace ttlplan::lower {

namespace pk = planner::kernel;

namespace {

pk::DeviceLimits limitsOf(const ir::Device& device) {
  pk::DeviceLimits limits;
  limits.device = device.name;
  limits.l1Base = device.l1.unreservedBase;
  limits.l1FreeBytes = device.freeL1Bytes();
  limits.cbAlignment = std::max<int64_t>(1, device.cb.addressAlignment);
  limits.cbLimit = device.cb.maxPerProgram;
  limits.semaphoresPerCore = device.kernel.semaphoresPerCore;
  limits.grid = {device.grid.compute.rows, device.grid.compute.columns};
  return limits;
}

pk::CbSpec cbSpecOf(const CbInfo& info) {
  pk::CbSpec cb;
  cb.name = info.name;
  cb.location = info.location;
  cb.blockShape = info.blockShape;
  cb.dataType = info.dataType;
  cb.tileBytes = info.tileBytes;
  cb.blockCount = info.blockCount;
  return cb;
}

pk::ChainSpec chainSpecOf(ChainInfo info) {
  pk::ChainSpec chain;
  chain.id = std::move(info.id);
  chain.location = std::move(info.location);
  chain.dataType = std::move(info.dataType);
  chain.problem = std::move(info.problem);
  for (const ir::Operation* op : info.ops)
    chain.ops.push_back({op->name(), op->location().str(), valueName(op->result(0))});
  return chain;
}

bool hasPipes(ir::Operation* kernel) {
  bool found = false;
  kernel->walk([&](ir::Operation* op) { found = found || op->isa(ir::CreatePipeOp::kName); });
  return found;
}

/// The knobs the types of the kernel's create_cbs at `positions` depend on (shape, depth, tile
/// data type), in name order.
std::vector<std::string> cbKnobs(ir::Operation* kernel, const std::vector<int>& positions) {
  std::vector<ir::Operation*> cbs;
  kernel->walk([&](ir::Operation* op) {
    if (op->isa(ir::CreateCBOp::kName)) cbs.push_back(op);
  });
  std::set<std::string> knobs;
  for (int p : positions) {
    if (p < 0 || size_t(p) >= cbs.size()) continue;
    ir::Type type = ir::CreateCBOp(cbs[size_t(p)]).cbType();
    std::vector<ir::Dim> dims = type.shape();
    dims.push_back(type.depth());
    for (const ir::Dim& d : dims)
      d.collectKnobs(knobs);
    if (std::string dt = type.elementType().tileDataTypeKnob(); !dt.empty()) knobs.insert(dt);
  }
  return {knobs.begin(), knobs.end()};
}

} // namespace

Expected<pk::KernelProblem> extractKernelProblem(ir::Operation* kernelOp,
                                                 const ir::Binding& binding,
                                                 const ir::Device& device) {
  pk::KernelProblem problem;
  problem.name = fmt::format("@{}", ir::KernelOp(kernelOp).symbolName());
  problem.location = kernelOp->location().str();
  if (ir::Attribute assumed = kernelOp->attribute("assumed"); assumed.is(ir::AttrKind::Array))
    for (const ir::Attribute& line : assumed.elements())
      if (line.is(ir::AttrKind::String)) problem.assumptions.push_back(line.stringValue());
  problem.limits = limitsOf(device);
  Expected<MathOptions> math = extractMathOptions(kernelOp, binding);
  if (!math) return math.error();
  problem.mathFidelity = math->mathFidelity;
  problem.fp32DestAcc = math->fp32DestAcc;
  Expected<std::vector<CbInfo>> cbs = extractCbs(kernelOp, binding, device);
  if (!cbs) return cbs.error();
  for (const CbInfo& info : *cbs)
    problem.cbs.push_back(cbSpecOf(info));
  Expected<std::vector<ChainInfo>> chains = extractChains(kernelOp, binding, device);
  if (!chains) return chains.error();
  for (ChainInfo& info : *chains)
    problem.chains.push_back(chainSpecOf(std::move(info)));
  Expected<CoresInfo> cores = extractCores(kernelOp, binding, device);
  if (!cores) return cores.error();
  problem.grid = cores->grid;
  problem.autoGrid = cores->autoGrid;
  problem.workDims = cores->workDims;
  problem.cores = cores->problem;
  bool gridKnown = !problem.autoGrid;
  if (!gridKnown && !problem.cores) problem.grid = {1, 1}; // no work: one core runs the kernel
  // A grid larger than the device's is the planner's rejection; no nets to extract on it.
  bool gridFits = problem.grid.rows <= problem.limits.grid.rows &&
                  problem.grid.cols <= problem.limits.grid.cols;
  if (gridFits && (gridKnown || !problem.cores || !hasPipes(kernelOp))) {
    Expected<planner::multicast::Problem> nets =
        extractMulticast(kernelOp, binding, device, problem.grid);
    if (!nets) return nets.error();
    problem.multicast = std::move(*nets);
  }
  return problem;
}

pk::PlanResult planKernel(ir::Operation* kernel, const pk::KernelProblem& problem,
                          const ir::Binding& binding, const ir::Device& device,
                          const pk::PlanOptions& options, pk::PlanCache* cache) {
  pk::PlanResult result = pk::plan(problem, options, cache);
  if (result.plan && !problem.multicast) {
    Expected<planner::multicast::Problem> nets =
        extractMulticast(kernel, binding, device, result.plan->grid);
    std::optional<pk::Rejection> rejection;
    if (!nets) {
      rejection = pk::Rejection{};
      rejection->message = nets.error().message;
    } else {
      rejection = pk::planMulticast(*result.plan, std::move(*nets), options, cache);
    }
    if (rejection) {
      result.rejection = std::move(rejection);
      result.plan.reset();
    }
  }
  if (result.rejection && result.rejection->resource == pk::Resource::L1)
    result.rejection->knobs = cbKnobs(kernel, result.rejection->cbs);
  return result;
}

namespace {
/// Whether `plans` are one plan per kernel of `kernels`, in order (PlanOptions::kernelPlans).
Status checkGivenPlans(const std::vector<ir::Operation*>& kernels,
                       const std::vector<KernelPlan>& plans) {
  bool match = plans.size() == kernels.size();
  for (size_t k = 0; match && k < kernels.size(); ++k)
    match = plans[k].name == "@" + std::string(ir::KernelOp(kernels[k]).symbolName());
  if (match) return Status::success();
  return Error{fmt::format("internal error: {} plans were given for the {} kernels of the module",
                           plans.size(), kernels.size())};
}
} // namespace

Expected<ModulePlan> planModule(ir::Module& module, const ir::Device& device,
                                const PlanOptions& options, PlanFailure* failure) {
  auto start = std::chrono::steady_clock::now();
  ModulePlan out;
  out.file = module.fileName;
  out.device = device.name;
  Expected<ChosenBinding> binding = chooseBinding(module, options.binding, options.limits);
  if (!binding) return binding.error();
  out.binding = *binding;
  if (!options.bindingSource.empty() && options.binding) out.binding.source = options.bindingSource;
  std::vector<ir::Operation*> kernels = module.topLevel(ir::KernelOp::kName);
  if (!options.kernelPlans.empty()) {
    if (Status given = checkGivenPlans(kernels, options.kernelPlans); !given) return given.error();
    out.kernels = options.kernelPlans;
    out.totalMilliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
  for (size_t k = 0; k < kernels.size(); ++k) {
    ir::Operation* kernel = kernels[k];
    Expected<pk::KernelProblem> problem = extractKernelProblem(kernel, out.binding.binding, device);
    if (!problem) return problem.error();
    pk::PlanOptions kernelOptions = options;
    if (k < options.kernelBlockCounts.size())
      kernelOptions.blockCounts = options.kernelBlockCounts[k];
    pk::PlanResult plan = planKernel(kernel, *problem, out.binding.binding, device, kernelOptions);
    if (!plan.plan) {
      if (failure) {
        failure->kernel = problem->name;
        failure->rejection = *plan.rejection;
        failure->cbNames.clear();
        for (int p : plan.rejection->cbs)
          if (p >= 0 && size_t(p) < problem->cbs.size())
            failure->cbNames.push_back(problem->cbs[size_t(p)].name);
        failure->partial = std::move(out);
      }
      return Error{fmt::format("{}: error: {}", kernel->location().str(), plan.rejection->message)};
    }
    out.kernels.push_back(std::move(*plan.plan));
  }
  out.totalMilliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace ttlplan::lower
