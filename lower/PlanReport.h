#pragma once
// The plan report (DESIGN.md, "Reports are data first"): the JSON form of a ModulePlan
// ("schema_version": 1, docs/plan.md lists every field) and a terminal table view of it.
#include "lower/KernelPlanner.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ttlplan::lower {

inline constexpr int kPlanReportSchemaVersion = 1;

/// The report as JSON data.
nlohmann::json toJson(const ModulePlan& plan);

/// The terminal view: per kernel the binding, grid and work per core, the CB table, L1 headroom,
/// DST per chain, multicast rectangles and semaphores, and the solves with their times.
std::string formatReport(const ModulePlan& plan);

} // namespace ttlplan::lower
