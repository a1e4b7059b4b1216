#pragma once
// `ttlplan cost` as a library call (docs/cost-model.md): plan every kernel of a module, extract
// its cost Program and predict it; the report is data (JSON) first, then a terminal view.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/cost/Model.h"
#include "ttlplan/search/cost/Program.h"
#include "ttlplan/search/cost/Tradeoffs.h"
#include "ttlplan/support/Expected.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace ttlplan::search::cost {

/// The schema_version of the cost report's JSON.
inline constexpr int kCostReportSchemaVersion = 1;

struct KernelCost {
  std::string kernel;   ///< "@matmul"
  std::string location; ///< of the ttl.kernel
  int gridRows = 0;     ///< the grid the kernel runs on
  int gridCols = 0;
  Program program;       ///< what the model read
  Prediction prediction; ///< what it predicts
  std::vector<Tradeoff> tradeoffs; ///< what the plan's choices cost (Tradeoffs.h)
};

struct CostReport {
  std::string file;
  std::string device;
  int64_t clockMhz = 0;
  std::string binding;       ///< "BM=2, BN=4" (empty when the file has no knobs)
  std::string bindingSource; ///< how the binding was chosen (lower::ChosenBinding::source)
  std::string modelVersion;
  std::string calibrationHash;
  std::vector<KernelCost> kernels;
  lower::ModulePlan plan; ///< the plan costed
};

/// Plans `module` (verified) under `options` and predicts every kernel (costPlan).
Expected<CostReport> costModule(ir::Module& module, const ir::Device& device,
                                const lower::PlanOptions& options);

/// Predicts every kernel of `plan`, a plan of `module` on `device`, and explains its trade-offs
/// (`maxBlockCount`: the deepest `?` depth the planner tried).
Expected<CostReport> costPlan(ir::Module& module, lower::ModulePlan plan, const ir::Device& device,
                              int maxBlockCount);

/// The trade-offs as JSON: [{"kind", "subject", "text", "cost_percent" (null when not priced),
/// "alternative"}].
nlohmann::json toJson(const std::vector<Tradeoff>& tradeoffs);

/// Per kernel, the lines `ttlplan plan` adds to its report (lower::formatReport's kernelNotes):
/// the predicted time and bound, and the trade-offs.
std::vector<std::string> planNotes(const CostReport& report);

/// Adds to each kernel of `planJson` (lower::toJson of report.plan) a "cost" object:
/// predicted_ns, bound, utilization and tradeoffs.
void addCostToPlanJson(nlohmann::json& planJson, const CostReport& report);

/// The trade-offs as terminal lines ("  trade-offs:" and one indented line each; "" for none).
std::string formatTradeoffs(const std::vector<Tradeoff>& tradeoffs);

/// The terminal view: per kernel the predicted time, utilisation, the bound and its parts, and
/// the critical core's threads (busy and stalled cycles) and CB stalls.
std::string formatCostReport(const CostReport& report);

/// The JSON: `schema_version`, `model_version`, `calibration_hash`, `device`, `binding`,
/// `kernels` (one object each), and for a one-kernel file `predicted_ns`, `utilization` and
/// `bound` at the top level too.
nlohmann::json toJson(const CostReport& report);

} // namespace ttlplan::search::cost
