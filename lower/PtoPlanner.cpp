// planPtoModule: the binding, then each kernel's pto problem planned (lower/PtoPlanner.h).
#include "ttlplan/lower/PtoPlanner.h"

#include "ttlplan/ir/Ops.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

namespace ttlplan::lower {

std::string ptoExpandInstruction(const std::vector<int64_t>& dims, std::string_view binary) {
  std::string out = dims == std::vector<int64_t>{1} ? "TROWEXPAND" : "TCOLEXPAND";
  if (!binary.empty()) out += binary.substr(1); // "TADD" -> "ADD"
  return out;
}

int ptoCores(const planner::pto::Problem& problem, const std::vector<int64_t>& workDims,
             const ir::pto::Device& device) {
  if (workDims.empty()) return 1;
  bool cube = false;
  for (const planner::pto::BufferSpec& b : problem.buffers)
    cube = cube || b.memory == planner::pto::Memory::L0c;
  int64_t items = 1;
  for (int64_t d : workDims)
    items *= d;
  return int(std::clamp<int64_t>(items, 1, cube ? device.cubeCores : device.vectorCores));
}

Expected<PtoModulePlan> planPtoModule(ir::Module& module, const ir::pto::Device& device,
                                      const PtoPlanOptions& options,
                                      planner::pto::Rejection* rejection) {
  const auto start = std::chrono::steady_clock::now();
  PtoModulePlan out;
  out.file = module.fileName;
  out.device = device.name;
  Expected<ChosenBinding> binding = chooseBinding(module, options.binding, options.planner.limits);
  if (!binding) return binding.error();
  out.binding = *binding;
  for (ir::Operation* kernel : module.topLevel(ir::KernelOp::kName)) {
    Expected<planner::pto::Problem> problem =
        extractPtoProblem(kernel, out.binding.binding, device, options.maxBlockCount);
    if (!problem) return problem.error();
    if (std::optional<std::string> why = ptoOversize(*problem)) return Error{*why};
    planner::pto::PlanResult result = planner::pto::plan(*problem, options.planner);
    if (!result.plan) {
      if (rejection) *rejection = *result.rejection;
      return Error{
          fmt::format("{}: error: {}", kernel->location().str(), result.rejection->message)};
    }
    out.kernels.push_back({std::move(*problem), std::move(*result.plan)});
  }
  out.totalMilliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace ttlplan::lower
