#pragma once
// The plan report (docs/architecture.md, "Reports are data first"): the JSON form of a ModulePlan
// ("schema_version": 1, docs/plan.md lists every field) and a terminal table view of it.
#include "ttlplan/lower/KernelPlanner.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ttlplan::lower {

inline constexpr int kPlanReportSchemaVersion = 1;

/// Whether a report shows the solvers' wall-clock times ("milliseconds", "total_milliseconds",
/// the solves' "ms" column). Without them the same plan gives the same bytes on every run, as
/// `ttlplan compile` writes plan.json and report.txt unless --timings.
enum class Timings { Shown, Omitted };

/// The fields every planned report starts with: schema_version, status ("planned"), file,
/// device, binding (both targets' reports).
nlohmann::json reportHeader(const std::string& file, const std::string& device,
                            const ChosenBinding& binding);

/// The report as JSON data ("status": "planned").
nlohmann::json toJson(const ModulePlan& plan, Timings timings = Timings::Shown);

/// The report of a module that did not fit ("status": "infeasible"): the kernels planned before
/// the failing one and "rejection": kernel, resource, solve status, needed, available,
/// shortfall, the CBs and knobs involved, and the message ttlplan prints.
nlohmann::json toJson(const PlanFailure& failure, Timings timings = Timings::Shown);

/// The terminal view: per kernel the binding, grid and work per core, the CB table, L1 headroom,
/// DST per chain, multicast rectangles and semaphores, `kernelNotes[k]` when given (lines the
/// caller adds: the predicted time and trade-offs), and the solves with their times.
std::string formatReport(const ModulePlan& plan, Timings timings = Timings::Shown,
                         const std::vector<std::string>& kernelNotes = {});

} // namespace ttlplan::lower
