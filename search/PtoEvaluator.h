#pragma once
// The tuner's evaluator for the pto target (docs/pto.md, "Tuning"): a point's knob values are
// checked against the ttl.requires, every kernel's pto problem is extracted and planned
// (planner::pto::plan chooses the `?` slot counts itself, so the space has knob dimensions only)
// and the plan is costed by the pto cost model (search/cost/pto/Model.h). Rejections carry the
// planner's reason: "memory", "events", "limit" or "invalid".
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/PtoDevice.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/planner/pto/Plan.h"
#include "ttlplan/search/Tuner.h"

#include <vector>

namespace ttlplan::search {

class PtoPointEvaluator : public Evaluator {
public:
  /// `device` needs a cost model (ir::pto::Device::cost); `maxBlockCount` is the deepest `?`.
  PtoPointEvaluator(const ir::Module& module, const ir::pto::Device& device, ir::Binding fixed,
                    planner::pto::PlanOptions options, int maxBlockCount);
  std::vector<Record> evaluateGroup(std::vector<ir::Binding> points) const override;
  /// The record of one point: its predicted time (the kernels' sum), the busiest kernel's
  /// bound, the bytes its on-chip memories use (in `l1Bytes`: UB, L1 and L0 together) and the
  /// cores.
  Record evaluate(const ir::Binding& point) const;

private:
  const ir::pto::Device& device_;
  ir::Binding fixed_;
  planner::pto::PlanOptions options_;
  int maxBlockCount_;
  lower::BindingChecker checker_;
  std::vector<ir::Operation*> kernels_;
};

} // namespace ttlplan::search
