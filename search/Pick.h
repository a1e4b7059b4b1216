#pragma once
// The tuner's pick (issue 26; docs/tuning.md, "The pick"): the fastest predicted point of a run,
// unless a baseline config (ttnn's default, tt-mlir's rule) is predicted slower by no more than
// the cost model's own measured error on the order of two configs of one shape
// (ir::CostConstants::rankUncertainty). A predicted gain the model cannot resolve is not worth
// leaving a config that is known to work for: on the measured Blackhole sweep, keeping tt-mlir's
// rule unless the gain exceeds it picks the measured best in more shapes than the rule does
// (bench/tune_quality.md).
#include "ttlplan/search/TuningDb.h"

#include <optional>
#include <string>

namespace ttlplan::search {

struct Pick {
  Record record;             ///< the point to use
  bool keptBaseline = false; ///< the baseline, whose predicted loss is within the margin
  /// The baseline's predicted time over the fastest's, minus 1 (0 without a feasible baseline).
  double predictedGain = 0;
  double margin = 0; ///< the margin the gain was compared with
  std::string why;   ///< in words, for reports
};

/// The pick between `fastest` (a feasible record: the run's best) and `baseline` (a record of
/// the same kernel, or nullopt): the baseline when it is feasible and `fastest` is predicted
/// faster by a factor of at most 1 + `margin`, else `fastest`.
Pick choosePick(const Record& fastest, const std::optional<Record>& baseline, double margin);

} // namespace ttlplan::search
