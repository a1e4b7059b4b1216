#pragma once
// `ttlplan cost` as a library call (docs/cost-model.md): plan every kernel of a module, extract
// its cost Program and predict it; the report is data (JSON) first, then a terminal view.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/cost/Model.h"
#include "ttlplan/search/cost/Program.h"
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
};

/// Plans `module` (verified) under `options` and predicts every kernel.
Expected<CostReport> costModule(ir::Module& module, const ir::Device& device,
                                const lower::PlanOptions& options);

/// The terminal view: per kernel the predicted time, utilisation, the bound and its parts, and
/// the critical core's threads (busy and stalled cycles) and CB stalls.
std::string formatCostReport(const CostReport& report);

/// The JSON: `schema_version`, `model_version`, `calibration_hash`, `device`, `binding`,
/// `kernels` (one object each), and for a one-kernel file `predicted_ns`, `utilization` and
/// `bound` at the top level too.
nlohmann::json toJson(const CostReport& report);

} // namespace ttlplan::search::cost
