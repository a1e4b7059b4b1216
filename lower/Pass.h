#pragma once
// A lowering pass (docs/lowering.md): one file in lower/passes/ plus one entry in
// lower/PassRegistry.cpp. A pass rewrites the module in a PassContext, reports problems as
// diagnostics at the offending op's location and returns false; it never throws.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/lower/KernelPlanner.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::lower {

/// What every pass of one pipeline run shares.
struct PassContext {
  ir::Module& module;
  const ir::Device& device;
  ir::DiagnosticEngine& diagnostics;
  PlanOptions planOptions;        ///< for the `plan` pass (its options override these)
  std::optional<ModulePlan> plan; ///< set by `plan`; later passes read the IR, not this
  /// Testing aid (`ttlplan run --force-cb-address`): CB name ("%cbb") -> L1 address, applied to
  /// the plan before it is validated, to show that a corrupted plan is caught.
  std::vector<std::pair<std::string, int64_t>> forcedCbAddresses;
  /// Whether `plan` runs the independent validators (`ttlplan run --no-validate` turns it off).
  bool validatePlan = true;
  /// The module passed ir::verify and no pass has changed it since: the `verify` pass does not
  /// verify it again. A caller that verified the module sets it; the pass manager clears it after
  /// a pass that may have changed the module (Pass::changedModule).
  bool verified = false;
};

/// A counter a pass reports under `--time-passes` ("copies lowered: 6").
struct PassStatistic {
  std::string name; ///< "copies-lowered"
  std::string doc;  ///< one line
  int64_t value = 0;
};

class Pass {
public:
  virtual ~Pass() = default;
  /// Sets option `name` from the pipeline string; an error names the bad value and the range.
  /// The default knows no options.
  virtual Status setOption(std::string_view name, std::string_view value);
  /// Runs on the whole module; false after reporting at least one error diagnostic.
  virtual bool run(PassContext& context) = 0;
  /// Whether the last run may have changed the module (then it is no longer known to verify).
  virtual bool changedModule() const { return true; }
  const std::vector<PassStatistic>& statistics() const { return statistics_; }

protected:
  /// The counter `name`, created (at 0) on first use.
  int64_t& statistic(std::string_view name, std::string_view doc);

private:
  std::vector<PassStatistic> statistics_;
};

} // namespace ttlplan::lower
