#pragma once
// From a planned kernel to the cost model's Program (docs/cost-model.md, "What the model reads"):
// the cores of the grid are grouped into classes by what they run (work items, pipe roles, the
// classes they receive from), and each class's threads become step lists for its representative
// core, with every loop count, transfer size and compute chain priced under the binding and plan.
#include "ttlplan/ir/Device.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/cost/Program.h"
#include "ttlplan/support/Expected.h"

#include <memory>
#include <string>

namespace ttlplan::search::cost {

struct KernelIr;

/// The cost Programs of one kernel's plans. What the extraction reads from the IR alone (the
/// values it folds, compiled; op locations; each store's chain) is prepared at construction, so
/// extracting under many bindings and plans (the tuner) walks the IR once. extract() is const and
/// thread-safe; the extractor must not outlive the kernel.
class ProgramExtractor {
public:
  explicit ProgramExtractor(ir::Operation* kernel);
  /// The cost Program of `plan`, a plan of the kernel made under `binding`; the math fidelity and
  /// fp32 accumulation are the plan's (the kernel's attributes).
  Expected<Program> extract(const lower::KernelPlan& plan, const ir::Binding& binding,
                            const ir::Device& device) const;

private:
  std::shared_ptr<const KernelIr> ir_;
  std::string refusal_; ///< why the kernel has no cost (a CB end outside the file), or empty
};

/// ProgramExtractor(kernel).extract(plan, binding, device), for one-off calls.
Expected<Program> extractProgram(ir::Operation* kernel, const lower::KernelPlan& plan,
                                 const ir::Binding& binding, const ir::Device& device);

/// Sets every class's CB depths to `plan`'s block counts. The planner's block counts change
/// nothing else the Program reads (grid, work, nets, DST chains and block shapes are planned
/// without them), so the tuner extracts one Program per knob binding and re-uses it for every
/// block count with this.
void setCbDepths(Program& program, const lower::KernelPlan& plan);

} // namespace ttlplan::search::cost
