// The pto target's point evaluator (PtoEvaluator.h).
#include "ttlplan/search/PtoEvaluator.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/PtoPlanner.h"
#include "ttlplan/search/cost/pto/Model.h"

#include <chrono>

namespace ttlplan::search {

namespace pp = planner::pto;

PtoPointEvaluator::PtoPointEvaluator(const ir::Module& module, const ir::pto::Device& device,
                                     ir::Binding fixed, pp::PlanOptions options, int maxBlockCount)
    : device_(device), fixed_(std::move(fixed)), options_(std::move(options)),
      maxBlockCount_(maxBlockCount), checker_(module),
      kernels_(module.topLevel(ir::KernelOp::kName)) {}

std::vector<Record> PtoPointEvaluator::evaluateGroup(std::vector<ir::Binding> points) const {
  std::vector<Record> out;
  out.reserve(points.size());
  for (const ir::Binding& point : points)
    out.push_back(evaluate(point));
  return out;
}

Record PtoPointEvaluator::evaluate(const ir::Binding& point) const {
  const auto start = std::chrono::steady_clock::now();
  Record r;
  r.point = point;
  const ir::Binding knobs = splitPoint(point, fixed_).knobs;
  auto finish = [&](Record record) {
    record.timingMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return record;
  };
  if (std::optional<lower::BindingFailure> failure = checker_.check(knobs))
    return finish(
        rejected(std::move(r), failure->reason, withKnobs(failure->message, failure->knobs)));
  r.status = "ok";
  r.predictedNs = 0.0;
  double slowest = -1;
  for (ir::Operation* kernel : kernels_) {
    lower::PtoTemporaries temporaries;
    Expected<pp::Problem> problem =
        lower::extractPtoProblem(kernel, knobs, device_, maxBlockCount_, &temporaries);
    if (!problem)
      return finish(rejected(std::move(r), std::string(pp::toString(pp::Resource::Invalid)),
                             problem.error().message));
    if (std::optional<std::string> why = lower::ptoOversize(*problem))
      return finish(rejected(std::move(r), std::string(pp::toString(pp::Resource::Memory)), *why));
    pp::PlanResult plan = pp::plan(*problem, options_);
    if (!plan.plan)
      return finish(rejected(std::move(r), std::string(pp::toString(plan.rejection->resource)),
                             plan.rejection->message));
    Expected<cost::pto::KernelCost> cost =
        cost::pto::costKernel(kernel, knobs, *problem, *plan.plan, temporaries, device_);
    if (!cost) return finish(rejected(std::move(r), "cost", cost.error().message));
    *r.predictedNs += cost->nanoseconds;
    if (cost->nanoseconds > slowest) {
      slowest = cost->nanoseconds;
      r.bound = cost->bound;
    }
    int64_t used = 0;
    for (const pp::MemoryPlan& m : plan.plan->memories)
      used += m.used;
    r.l1Bytes = std::max(r.l1Bytes, used);
    r.cores = std::max(r.cores, cost->cores);
  }
  return finish(std::move(r));
}

} // namespace ttlplan::search
