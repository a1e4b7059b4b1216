// fuzz_plan: bytes -> parse + import + verify (in memory); when the module is valid, plan it for
// the default device wormhole_b0 the way driver::planFile does (lower::planModule, then the cost
// model's search::cost::costPlan), with a 0.05 s time limit and a node limit per sub-problem and
// `?` block counts up to 2. Unbound knobs take lower's first legal binding instead of planFile's
// search over up to 20000 points (too slow per input; the search plans each point the same way).
// Any Error (a kernel that does not fit, a binding no ttl.require allows) is fine. A bug is: a
// plan that its planners' independent validators (planner::kernel::validatePlan) reject, or any
// crash / sanitizer report / abort / escaping exception / hang.
#include "FuzzCommon.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/cost/Report.h"

using namespace ttlplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInputBytes) return -1;
  static const ir::Device device = *ir::builtinDevice("wormhole_b0");
  ir::DiagnosticEngine diags;
  std::unique_ptr<ir::Module> module = fuzz::parseVerify(fuzz::asText(data, size), diags);
  if (!module) return 0;
  lower::PlanOptions options;
  options.limits.timeLimitSeconds = 0.05;
  options.limits.nodeLimit = 20000;
  options.maxBlockCount = 2;
  lower::PlanFailure failure;
  Expected<lower::ModulePlan> plan = lower::planModule(*module, device, options, &failure);
  if (!plan) return 0;
  for (const lower::KernelPlan& kernel : plan->kernels)
    if (std::string why = lower::validatePlan(kernel); !why.empty())
      fuzz::fail("planModule returned a plan its validators reject: " + why,
                 std::string(fuzz::asText(data, size)));
  Expected<search::cost::CostReport> cost =
      search::cost::costPlan(*module, std::move(*plan), device, options.maxBlockCount);
  (void)cost;
  return 0;
}
