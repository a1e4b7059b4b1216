// plan: lower::planModule on the module (or the plans the search that chose the binding made,
// PlanOptions::kernelPlans); the plan stays in the context for apply-plan, plan.json and the
// report.
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"
#include "ttlplan/planner/Options.h"

#include <fmt/format.h>

namespace ttlplan::lower {

namespace {

class PlanPass : public Pass {
public:
  Status setOption(std::string_view name, std::string_view value) override {
    if (!planner::plannerOptions().find(name)) return Pass::setOption(name, value);
    // Checked now (a bad value is a pipeline error), applied over the context's options in run.
    PlanOptions scratch;
    if (Status ok = planner::setPlannerOption(scratch, name, value); !ok) return ok;
    overrides_.emplace_back(name, value);
    return Status::success();
  }

  bool run(PassContext& context) override {
    PlanOptions options = context.planOptions;
    for (const auto& [name, value] : overrides_)
      (void)planner::setPlannerOption(options, name, value); // checked in setOption
    Expected<ModulePlan> plan = planModule(context.module, context.device, options);
    if (!plan) {
      reportError(context, plan.error().message);
      return false;
    }
    for (const auto& [name, address] : context.forcedCbAddresses)
      if (!forceAddress(context, *plan, name, address)) return false;
    for (const KernelPlan& k : plan->kernels) {
      std::string problem = context.validatePlan ? validatePlan(k) : std::string();
      if (!problem.empty()) {
        reportError(context, fmt::format("{}: error: the plan of {} fails its validator: {}",
                                         k.location, k.name, problem));
        return false;
      }
      if (options.kernelPlans.empty())
        statistic("kernels-planned", "kernels planned") += 1;
      else
        statistic("plans-from-search", "kernel plans taken from the search (not planned again)") +=
            1;
      statistic("cbs-placed", "CBs placed in L1") += static_cast<int64_t>(k.cbs.size());
    }
    context.plan = std::move(*plan);
    return true;
  }

private:
  /// Moves CB `name` to `address` in the plan (both the L1 solution and the CB's address), so
  /// the validator sees exactly what the code would use.
  bool forceAddress(PassContext& context, ModulePlan& plan, const std::string& name,
                    int64_t address) {
    for (KernelPlan& k : plan.kernels)
      for (size_t i = 0; i < k.cbs.size(); ++i)
        if (k.cbs[i].name == name && i < k.l1Solution.offsets.size()) {
          k.l1Solution.offsets[i] = address - k.l1Base;
          k.cbs[i].address = address;
          statistic("forced-addresses", "CB addresses forced for testing") += 1;
          return true;
        }
    context.diagnostics.error(ir::Location(),
                              fmt::format("--force-cb-address: no CB named {} in the plan", name));
    return false;
  }

  std::vector<std::pair<std::string, std::string>> overrides_; ///< plan{name=value}, in order
};

} // namespace

std::unique_ptr<Pass> createPlanPass() {
  return std::make_unique<PlanPass>();
}

} // namespace ttlplan::lower
