#pragma once
// From a planned kernel to the cost model's Program (docs/cost-model.md, "What the model reads"):
// the cores of the grid are grouped into classes by what they run (work items, pipe roles, the
// classes they receive from), and each class's threads become step lists for its representative
// core, with every loop count, transfer size and compute chain priced under the binding and plan.
#include "ir/Device.h"
#include "lower/KernelPlanner.h"
#include "search/cost/Program.h"
#include "support/Expected.h"

#include <string>

namespace ttlplan::search::cost {

/// The cost Program of `plan`, the plan of `kernel` made under `binding`; the math fidelity and
/// fp32 accumulation are the plan's (the kernel's attributes).
Expected<Program> extractProgram(ir::Operation* kernel, const lower::KernelPlan& plan,
                                 const ir::Binding& binding, const ir::Device& device);

} // namespace ttlplan::search::cost
