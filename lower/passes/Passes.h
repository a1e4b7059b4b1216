#pragma once
// Factories of the registered passes (lower/PassRegistry.cpp lists them with their options).
#include "ttlplan/lower/Pass.h"

#include <memory>

namespace ttlplan::lower {

std::unique_ptr<Pass> createVerifyPass();
std::unique_ptr<Pass> createInferPipeSemaphoresPass();
std::unique_ptr<Pass> createInsertSyncPass();
std::unique_ptr<Pass> createPlanPass();
std::unique_ptr<Pass> createApplyPlanPass();
std::unique_ptr<Pass> createInferDstPass();
std::unique_ptr<Pass> createExpandThreadsPass();
std::unique_ptr<Pass> createLowerComputePass();
std::unique_ptr<Pass> createLowerDataMovementPass();
std::unique_ptr<Pass> createLowerSyncPass();

} // namespace ttlplan::lower
