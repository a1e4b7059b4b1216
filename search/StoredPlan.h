#pragma once
// A kernel plan as a tuning record keeps it (docs/tuning.md, "Records"): the parts of a
// planner::kernel::KernelPlan that the cost model reads (grid, per-core work, multicast nets, CBs,
// DST chains with their sub-block solution, math settings), as JSON. With them `ttlplan db rerank`
// re-costs a record under a new cost model without planning it again. The solver runs, the L1 and
// CB-index problems and the multicast rectangles are not kept: the cost model does not read them.
//
// A stored plan comes from a file a user may have edited, so decoding checks everything the cost
// extraction indexes by (senders and destinations inside the grid, one work range per core, CB
// and chain references) and the DST solution against its problem (dst::validate): a bad plan is
// an Error, never an out-of-range read.
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/support/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::search {

/// The stored form of `plan`: one JSON object, compact, keys in a fixed order (the same plan gives
/// the same text).
std::string storedPlanJson(const planner::kernel::KernelPlan& plan);

/// A record's "plans" value: the stored plans of its kernels, in program order, as a JSON array.
std::string storedPlansJson(const std::vector<std::string>& eachKernel);

/// The plans of a record's "plans" text, with the fields storedPlanJson keeps (the others are
/// default). An Error says which plan and what is wrong.
Expected<std::vector<planner::kernel::KernelPlan>> parseStoredPlans(std::string_view text);

} // namespace ttlplan::search
