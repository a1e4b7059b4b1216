#pragma once
// The planner's option table (support/Options.h): the L1 back end, the limits per sub-problem, the
// deepest `?` block count, and each pruning rule of the exact L1 solver (planner/l1/ExactSolver.h),
// so that a rule can be switched off from the command line (`--no-gap-dominance`) as minimalloc
// allows. `plan`, `lower`, `compile`, `run`, `cost`, `alloc` and the `plan` pass read it.
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/support/Options.h"

namespace ttlplan::planner {

const OptionTable& plannerOptions();

/// Sets the planner option `name` in `options` from `text` (a pipeline's `plan{name=text}`); the
/// error names the accepted values. `name` must be in plannerOptions().
Status setPlannerOption(kernel::PlanOptions& options, std::string_view name, std::string_view text);

/// The member of `params` that the pruning-rule option `name` switches; null for other names.
bool* exactRule(l1::ExactParams& params, std::string_view name);

/// The names of the pruning-rule options, in table order.
std::vector<std::string_view> exactRuleNames();

} // namespace ttlplan::planner
