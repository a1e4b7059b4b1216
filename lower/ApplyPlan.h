#pragma once
// Writes a plan's decisions back into the IR as attributes (TTL_SYNTAX.md, "After planning"):
// `ttl.bind_cb = {cb_index, block_count, l1_address : i64}` on every ttl.create_cb, and on the
// ttl.kernel `ttl.grid_planned = [GY, GX]` and `ttl.work_ranges = [[x, y, start, count], ...]`
// (busy cores only); on each ttl.create_pipe `ttl.nets` (docs/lowering.md) and on the
// kernel `ttl.semaphore_count` when it has pipes. The types of `?` CBs keep their `?`; bind_cb carries the chosen count.
#include "lower/KernelPlanner.h"

namespace ttlplan::lower {

/// Annotates the ops the plan points at (the module the plan was made from).
void applyPlan(const ModulePlan& plan);

} // namespace ttlplan::lower
