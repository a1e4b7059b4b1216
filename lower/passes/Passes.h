#pragma once
// Factories of the registered passes (lower/PassRegistry.cpp lists them with their options).
#include "ttlplan/lower/Pass.h"
#include "ttlplan/support/Options.h"

#include <memory>

namespace ttlplan::lower {

std::unique_ptr<Pass> createImportTtlangPass();
std::unique_ptr<Pass> createVerifyPass();
std::unique_ptr<Pass> createInferPipeSemaphoresPass();
std::unique_ptr<Pass> createInsertSyncPass();
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
