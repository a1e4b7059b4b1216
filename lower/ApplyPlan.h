#pragma once
// Writes a plan's decisions back into the IR as attributes (docs/language.md, "After planning"):
// `ttl.bind_cb = {cb_index, block_count, l1_address : i64}` on every ttl.create_cb, and on the
// ttl.kernel `ttl.grid_planned = [GY, GX]` and `ttl.work_ranges = [[x, y, start, count], ...]`
// (busy cores only); on each ttl.create_pipe `ttl.nets` (docs/lowering.md) and on the
// kernel `ttl.semaphore_count` when it has pipes. The types of `?` CBs keep their `?`; bind_cb
// carries the chosen count. The intermediate CBs of DST splits become kernel-scope `ttl.create_cb`s
// (after the kernel's own) with their binding and `ttl.dst_split = {chain = C, value = V}`: chain C
// (compute stores in program order) routes its value V through that CB (infer-dst materialises the
// cut).
#include "ttlplan/lower/KernelPlanner.h"

#include <optional>
#include <utility>

namespace ttlplan::lower {

/// Annotates `module` (the one the plan was made from, or a clone of it) by index: kernels by
/// name, CB i of a kernel plan is the kernel's i-th create_cb in program order (CbPlan::source),
/// a net's pipe is the kernel's PipeNet::source-th create_pipe.
void applyPlan(ir::Module& module, const ModulePlan& plan);

/// (chain, value) of a `ttl.dst_split` attribute; nullopt when it is not one.
std::optional<std::pair<int64_t, int64_t>> splitKey(const ir::Attribute& split);

} // namespace ttlplan::lower
