// apply-plan: writes the plan of the `plan` pass into the IR (lower/ApplyPlan.h) and substitutes
// the chosen knob binding, so that later passes read everything from the IR.
#include "ttlplan/ir/Padding.h"
#include "ttlplan/lower/ApplyPlan.h"
#include "ttlplan/lower/Instantiate.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"

namespace ttlplan::lower {

namespace {

class ApplyPlanPass : public Pass {
public:
  bool run(PassContext& context) override {
    if (!context.plan) {
      context.diagnostics.error(ir::Location(),
                                "apply-plan needs a plan: put `plan` before it in the pipeline");
      return false;
    }
    applyPlan(context.module, *context.plan);
    for (ir::Operation* kernel : kernelsOf(context.module)) {
      Status status = instantiateBinding(kernel, context.plan->binding.binding);
      if (!status) {
        reportError(context, status.error().message);
        return false;
      }
      if (!annotatePadding(context, *kernel)) return false;
      statistic("kernels", "kernels annotated") += 1;
    }
    // The knobs are all substituted; their declarations go too.
    for (ir::Operation* param : context.module.topLevel("ttl.param"))
      context.module.body().remove(param);
    return true;
  }

private:
  /// The pad value of each argument (ir/Padding.h) on a kernel that has a tensor that is not whole
  /// tiles, for the host program; kernels of whole tiles stay as they were.
  bool annotatePadding(PassContext& context, ir::Operation& kernel) {
    Expected<std::vector<ir::TensorPadding>> padding = ir::derivePadding(kernel, {});
    if (!padding) {
      reportError(context, padding.error().message);
      return false;
    }
    std::vector<ir::Attribute> values;
    bool any = false;
    for (const ir::TensorPadding& t : *padding) {
      values.push_back(ir::Attribute::string(std::string(ir::padValueName(t.pad))));
      any |= t.padded();
    }
    if (any) {
      kernel.setAttribute(ir::kPadAttribute, ir::Attribute::array(std::move(values)));
      statistic("padded", "kernels with tensors padded to whole tiles") += 1;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createApplyPlanPass() {
  return std::make_unique<ApplyPlanPass>();
}

} // namespace ttlplan::lower
