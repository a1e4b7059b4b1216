#pragma once
// Factories of the registered passes (lower/PassRegistry.cpp lists them with their options).
#include "ttlplan/lower/Pass.h"
#include "ttlplan/support/Options.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ttlplan::lower {

std::unique_ptr<Pass> createImportTtlangPass();
std::unique_ptr<Pass> createVerifyPass();
std::unique_ptr<Pass> createInferPipeSemaphoresPass();
std::unique_ptr<Pass> createInsertSyncPass();
std::unique_ptr<Pass> createAddReduceScalerPass();
/// The unit attribute that marks a kernel's reduce scaler CB (its ttl.create_cb) and the compute
/// thread's ttl.cb_wait of it (add-reduce-scaler, lower-compute).
inline constexpr std::string_view kReduceScalerAttr = "ttl.reduce_scaler";
/// add-reduce-scaler on a whole module: every kernel whose compute thread reduces gets its scaler
/// CB (once). The planner's entry points call it on the verified source, so that `plan`, `cost`,
/// `tune` and `compile` plan the same CBs. An error text ("FILE:LINE:COL: error: ...") when a
/// kernel that reduces has no data-movement thread to fill the tile.
std::optional<std::string> addReduceScalers(ir::Module& module, int* added = nullptr);
std::unique_ptr<Pass> createPlanPass();
std::unique_ptr<Pass> createApplyPlanPass();
std::unique_ptr<Pass> createInferDstPass();
std::unique_ptr<Pass> createExpandThreadsPass();
std::unique_ptr<Pass> createLowerComputePass();
std::unique_ptr<Pass> createLowerDataMovementPass();
/// lower-data-movement's option, defined here once for the registry and the pass.
inline const OptionRecord kMaxUnrolledTiles{
    "max-unrolled-tiles",
    "Blocks of at most this many tiles are copied by unrolled calls, larger ones by two scf.for "
    "loops",
    OptionType::Integer,
    0,
    1024,
    {},
    "4"};
std::unique_ptr<Pass> createLowerSyncPass();

} // namespace ttlplan::lower
