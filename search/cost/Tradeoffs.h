#pragma once
// What a plan's choices cost, in words (docs/plan.md, "Trade-offs"): where a CB is single-buffered
// or shallower than the planner could make it, where a DST chain is split through intermediate
// CBs, and where cores of the device stay idle, one sentence each, with the cost model's figure
// for the difference when the model can price the alternative (the same Program with that one
// thing changed, predicted again).
#include "ttlplan/ir/Device.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/cost/Model.h"
#include "ttlplan/search/cost/Program.h"

#include <optional>
#include <string>
#include <vector>

namespace ttlplan::search::cost {

struct Tradeoff {
  /// "single_buffered": a CB of depth 1 that two threads share;
  /// "shallow_cb": a `?` CB the planner made shallower than the deepest it tries;
  /// "dst_split": a compute chain cut into DST passes through intermediate CBs;
  /// "idle_cores": fewer cores than the device's compute grid.
  std::string kind;
  std::string subject; ///< what it is about: "%cbc", "%y -> %o", "grid"
  std::string text;    ///< the sentence a kernel author reads
  /// The plan's predicted time over the alternative's, minus 1, in percent (+18: the choice costs
  /// 18 %; about 0: it costs nothing); nullopt when the model cannot price the alternative.
  std::optional<double> costPercent;
  std::string alternative; ///< what was priced: "depth 2 (+8,192 B of L1, fits)"
};

/// The trade-offs of one planned kernel. `program` and `prediction` are the plan's (Report.h),
/// `maxBlockCount` the deepest `?` depth the planner tries.
std::vector<Tradeoff> explainTradeoffs(const lower::KernelPlan& plan, const Program& program,
                                       const Prediction& prediction, const ir::Device& device,
                                       int maxBlockCount);

} // namespace ttlplan::search::cost
