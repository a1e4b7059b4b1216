// The autotuner: space, per-point evaluation and the parallel, deterministic driver (Tuner.h).
#include "ttlplan/search/Tuner.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/StoredPlan.h"
#include "ttlplan/search/cost/Extract.h"
#include "ttlplan/search/cost/Model.h"
#include "ttlplan/support/JsonText.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace ttlplan::search {

namespace pk = planner::kernel;

namespace {

using Clock = std::chrono::steady_clock;

std::string fnv1a(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

constexpr std::string_view kBlockCountPrefix = "block_count(";

} // namespace

std::string withKnobs(const std::string& message, const std::vector<std::string>& knobs) {
  return knobs.empty() ? message : fmt::format("{} (knobs {})", message, fmt::join(knobs, ", "));
}

Record rejected(Record r, std::string reason, std::string detail) {
  r.status = "rejected";
  r.predictedNs.reset();
  r.utilization = 0;
  r.bound.clear();
  r.l1Bytes = 0;
  r.cores = 0;
  r.reason = std::move(reason);
  r.detail = std::move(detail);
  return r;
}

std::string blockCountDimension(const std::string& cbName) {
  return fmt::format("{}{})", kBlockCountPrefix, cbName);
}

bool isBlockCountDimension(const std::string& name) {
  return name.rfind(kBlockCountPrefix, 0) == 0;
}

PointParts splitPoint(const ir::Binding& point, const ir::Binding& fixed) {
  PointParts parts{fixed, {}};
  for (const auto& [name, value] : point)
    if (isBlockCountDimension(name))
      parts.blockCounts[name.substr(kBlockCountPrefix.size(),
                                    name.size() - kBlockCountPrefix.size() - 1)] = value.integer();
    else
      parts.knobs[name] = value;
  return parts;
}

std::vector<std::pair<size_t, std::string>> dynamicCbs(ir::Operation* kernel) {
  std::vector<std::pair<size_t, std::string>> out;
  size_t position = 0;
  kernel->walk([&](ir::Operation* op) {
    auto create = ir::CreateCBOp::dyn(op);
    if (!create) return;
    ir::Type type = create->cbType();
    if (type.is(ir::TypeKind::CircularBuffer) && type.depth().kind == ir::Dim::Kind::Dynamic)
      out.push_back({position, lower::valueName(create->cb())});
    ++position;
  });
  return out;
}

std::map<size_t, int64_t>
blockCountsByPosition(const std::vector<std::pair<size_t, std::string>>& dynamic,
                      const std::map<std::string, int64_t>& byName) {
  std::map<size_t, int64_t> out;
  for (const auto& [position, name] : dynamic)
    if (auto it = byName.find(name); it != byName.end()) out[position] = it->second;
  return out;
}

std::vector<std::map<size_t, int64_t>>
kernelBlockCounts(const ir::Module& module, const std::map<std::string, int64_t>& byName) {
  std::vector<std::map<size_t, int64_t>> out;
  for (ir::Operation* kernel : module.topLevel(ir::KernelOp::kName))
    out.push_back(blockCountsByPosition(dynamicCbs(kernel), byName));
  return out;
}

Expected<Space> tuningSpace(const ir::Module& module, const ir::Binding& fixed,
                            bool plannerDimensions, int maxBlockCount) {
  Expected<Space> space = Space::fromParams(ir::collectParams(module), fixed);
  if (!space || !plannerDimensions) return space;
  std::vector<ir::KnobValue> counts;
  for (int c = 1; c <= std::max(1, maxBlockCount); ++c)
    counts.push_back(c);
  std::set<std::string> added; // a CB name shared by kernels is one dimension
  for (ir::Operation* kernel : module.topLevel(ir::KernelOp::kName))
    for (const auto& [position, name] : dynamicCbs(kernel))
      if (added.insert(name).second) {
        Dimension d;
        d.name = blockCountDimension(name);
        d.values = counts;
        if (Status s = space->addDimension(std::move(d)); !s) return s.error();
      }
  return space;
}

std::string kernelSourceHash(const ir::Module& module) {
  // The knobs' domains are left out (`ttl.param @BM = [1, 2]` hashes as `ttl.param @BM = []`,
  // range(..) and divisors(..) too): widening one keeps the records of the points they share.
  std::string text = ir::print(module), out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = std::min(text.find('\n', begin), text.size());
    std::string_view line(text.data() + begin, end - begin);
    size_t param = line.find("ttl.param @"), eq = line.find(" = ");
    if (param != std::string_view::npos && eq != std::string_view::npos && eq > param) {
      size_t attrs = line.find(" {", eq);
      out += line.substr(0, eq);
      out += " = []";
      if (attrs != std::string_view::npos) out += line.substr(attrs);
    } else {
      out += line;
    }
    if (end < text.size()) out += '\n';
    begin = end + 1;
  }
  return fnv1a(out);
}

DbHeader tuningHeader(const ir::Module& module, const ir::Device& device,
                      const ir::Binding& fixed) {
  DbHeader h;
  h.planner = std::string(pk::kPlannerVersion);
  h.costModel = std::string(cost::kModelVersion);
  h.calibration = cost::calibrationHash(device);
  h.device = device.name;
  h.deviceHash = fnv1a(jsonText(ir::toJson(device)));
  std::vector<ir::Operation*> kernels = module.topLevel(ir::KernelOp::kName);
  for (ir::Operation* k : kernels)
    h.kernel += (h.kernel.empty() ? "@" : ",@") + std::string(ir::KernelOp(k).symbolName());
  h.kernelHash = kernelSourceHash(module);
  h.bound = fixed;
  return h;
}

PointEvaluator::PointEvaluator(const ir::Module& module, const ir::Device& device,
                               ir::Binding fixed, pk::PlanOptions options, pk::PlanCache* cache)
    : device_(device), fixed_(std::move(fixed)), options_(std::move(options)), cache_(cache),
      checker_(module), kernels_(module.topLevel(ir::KernelOp::kName)) {
  for (ir::Operation* k : kernels_) {
    dynamic_.push_back(dynamicCbs(k));
    extractors_.emplace_back(k);
  }
}

void PointEvaluator::trustSpace(const Space& space) {
  std::set<std::string> searched;
  for (const Dimension& d : space.dimensions())
    for (const std::string& knob : d.knobs.empty() ? std::vector<std::string>{d.name} : d.knobs)
      if (!isBlockCountDimension(knob)) searched.insert(knob);
  checker_.trustDomainsOf(searched);
}

Record PointEvaluator::evaluate(const ir::Binding& point) const {
  return evaluateGroup({point}).front();
}

namespace {
/// Whether `a` and `b` have the same knob values (their entries other than block counts).
bool sameKnobValues(const ir::Binding& a, const ir::Binding& b) {
  auto next = [](const ir::Binding& m, ir::Binding::const_iterator it) {
    while (it != m.end() && isBlockCountDimension(it->first))
      ++it;
    return it;
  };
  auto i = next(a, a.begin()), j = next(b, b.begin());
  for (; i != a.end() && j != b.end(); i = next(a, ++i), j = next(b, ++j))
    if (i->first != j->first || !(i->second == j->second)) return false;
  return i == a.end() && j == b.end();
}
} // namespace

std::vector<Record> PointEvaluator::evaluateGroup(std::vector<ir::Binding> points) const {
  std::vector<Record> out;
  if (points.empty()) return out;
  out.reserve(points.size());
  Clock::time_point start = Clock::now();
  const ir::Binding first = points.front();
  const ir::Binding knobs = splitPoint(first, fixed_).knobs;
  // The requires read the knob values only: checked once, and the rejection worded once.
  const std::optional<lower::BindingFailure> failure = checker_.check(knobs);
  const std::string failureDetail = failure ? withKnobs(failure->message, failure->knobs) : "";
  std::vector<Shared> shared(kernels_.size());
  for (ir::Binding& point : points) {
    if (!sameKnobValues(point, first)) {
      out.push_back(evaluate(point));
      continue;
    }
    Record r;
    if (failure) {
      r.point = std::move(point);
      r = rejected(std::move(r), failure->reason, failureDetail);
    } else {
      PointParts parts = splitPoint(point, fixed_);
      r.point = std::move(point);
      r.status = "ok";
      r.predictedNs = 0.0;
      KeptForPoint kept;
      for (size_t k = 0; k < kernels_.size(); ++k)
        if (!addKernel(k, parts, shared[k], r, kept)) break;
      if (r.ok() && keepPlans_) r.plans = storedPlansJson(kept.stored);
      if (r.ok() && keepKernelPlans_)
        r.kernelPlans.plans =
            std::make_shared<const std::vector<pk::KernelPlan>>(std::move(kept.full));
    }
    Clock::time_point end = Clock::now();
    r.timingMs = std::chrono::duration<double, std::milli>(end - start).count();
    start = end;
    out.push_back(std::move(r));
  }
  return out;
}

bool PointEvaluator::addKernel(size_t k, const PointParts& parts, Shared& shared, Record& r,
                               KeptForPoint& kept) const {
  ir::Operation* kernel = kernels_[k];
  const ir::Binding& binding = parts.knobs;
  if (!shared.problem) shared.problem = lower::extractKernelProblem(kernel, binding, device_);
  const Expected<pk::KernelProblem>& problem = *shared.problem;
  if (!problem) {
    // The same reason as an extraction the planner does itself (pipes after the cores plan).
    r = rejected(std::move(r), std::string(pk::toString(pk::Resource::Invalid)),
                 problem.error().message);
    return false;
  }
  pk::PlanOptions options = options_;
  options.blockCounts = blockCountsByPosition(dynamic_[k], parts.blockCounts);
  pk::PlanResult plan = lower::planKernel(kernel, *problem, binding, device_, options, cache_);
  if (!plan.plan) {
    const pk::Rejection& why = *plan.rejection;
    r = rejected(std::move(r), std::string(pk::toString(why.resource)),
                 withKnobs(why.message, why.knobs));
    return false;
  }
  if (!shared.program) shared.program = extractors_[k].extract(*plan.plan, binding, device_);
  if (keepPlans_) kept.stored.push_back(storedPlanJson(*plan.plan));
  bool costed = addCost(*plan.plan, *shared.program, r);
  if (costed && keepKernelPlans_) kept.full.push_back(std::move(*plan.plan));
  return costed;
}

bool PointEvaluator::addCost(const pk::KernelPlan& plan, Expected<cost::Program>& program,
                             Record& r) const {
  if (program) cost::setCbDepths(*program, plan);
  Expected<cost::Prediction> prediction =
      program ? cost::predict(*program, device_) : Expected<cost::Prediction>(program.error());
  if (!prediction) {
    r = rejected(std::move(r), "cost", prediction.error().message);
    return false;
  }
  *r.predictedNs += prediction->deviceNs;
  r.utilization = prediction->utilization; // the last kernel's (templates have one)
  r.bound = std::string(cost::toString(prediction->bound));
  r.l1Bytes = std::max(r.l1Bytes, plan.l1Used);
  int cores = plan.coresSolution ? plan.coresSolution->coresUsed : plan.grid.cores();
  r.cores = std::max(r.cores, cores);
  return true;
}

Expected<Record> PointEvaluator::recost(const Record& stored) const {
  if (!stored.ok() || stored.plans.empty())
    return Error{fmt::format("{}: the record keeps no plan", ir::str(stored.point))};
  Expected<std::vector<pk::KernelPlan>> plans = parseStoredPlans(stored.plans);
  if (!plans) return Error{fmt::format("{}: {}", ir::str(stored.point), plans.error().message)};
  if (plans->size() != kernels_.size())
    return Error{fmt::format("{}: {} stored plans for {} kernels", ir::str(stored.point),
                             plans->size(), kernels_.size())};
  Clock::time_point start = Clock::now();
  const ir::Binding knobs = splitPoint(stored.point, fixed_).knobs;
  Record r;
  r.point = stored.point;
  r.status = "ok";
  r.predictedNs = 0.0;
  r.plans = stored.plans;
  for (size_t k = 0; k < kernels_.size(); ++k) {
    Expected<cost::Program> program = extractors_[k].extract((*plans)[k], knobs, device_);
    if (!addCost((*plans)[k], program, r)) break;
  }
  r.timingMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return r;
}

Record evaluatePoint(const ir::Module& module, const ir::Device& device, const ir::Binding& point,
                     const ir::Binding& fixed, const pk::PlanOptions& options, pk::PlanCache* cache,
                     bool keepKernelPlans) {
  PointEvaluator evaluator(module, device, fixed, options, cache);
  evaluator.setKeepKernelPlans(keepKernelPlans);
  return evaluator.evaluate(point);
}

std::vector<size_t> paretoFront(const std::vector<PointSummary>& points) {
  std::vector<size_t> order(points.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (points[a].l1Bytes != points[b].l1Bytes) return points[a].l1Bytes < points[b].l1Bytes;
    return points[a].predictedNs < points[b].predictedNs;
  });
  // By L1 bytes ascending: a point is on the front when it is faster than every point before it.
  std::vector<size_t> front;
  for (size_t i : order)
    if (front.empty() || points[i].predictedNs < points[front.back()].predictedNs)
      front.push_back(i);
  return front;
}

namespace {

/// Rejections by reason, counted where the records are made (each thread its own map), since the
/// counts do not depend on the order; merged into the result at the end of the run.
using RejectionCounts = tbb::enumerable_thread_specific<std::map<std::string, uint64_t>>;

/// Adds a finished round to the result, the db and the strategy, in proposal order.
class Reducer {
public:
  Reducer(TuneResult& result, const TuneOptions& options) : result_(result), options_(options) {}

  Status add(Record&& r, bool fromDb) {
    (fromDb ? result_.reused : result_.evaluated) += 1;
    if (r.ok())
      ++result_.feasible;
    else
      ++result_.rejected[r.reason];
    if (!fromDb && options_.db)
      if (Status s = options_.db->append(r); !s) return s;
    if (!r.ok()) return Status::success(); // never ranked
    if (options_.keepPoints && r.predictedNs)
      result_.points.push_back({*r.predictedNs, r.l1Bytes, r.bound});
    all_.push_back(std::move(r));
    // Keep only what top K can still use (bounded memory on long runs).
    if (all_.size() > 4 * std::max<size_t>(options_.top, 16)) all_ = top(all_, options_.top);
    return Status::success();
  }

  std::vector<Record> best() const { return top(all_, std::max<size_t>(options_.top, 1)); }

private:
  TuneResult& result_;
  const TuneOptions& options_;
  std::vector<Record> all_;
};

/// A round's ids grouped by their knob values: group g is positions[starts[g], starts[g + 1]).
struct Groups {
  std::vector<size_t> positions; ///< positions in the round, group after group
  std::vector<size_t> starts;    ///< where each group begins, and positions.size() at the end

  size_t size() const { return starts.size() - 1; }
};

/// The positions of a round's ids grouped by their knob values, groups in order of first
/// appearance and positions in order within a group: a group shares its extraction. The planner
/// dimensions come last in the space (tuningSpace), so ids share their knob values exactly when
/// they agree after dividing by `plannerPoints`, the number of points of the planner dimensions.
Groups groupByKnobs(const std::vector<uint64_t>& ids, uint64_t plannerPoints) {
  // Sorting (knobs, position) pairs puts each group together in position order; the groups are
  // then ordered by their first position. No allocation per group or per id.
  std::vector<std::pair<uint64_t, size_t>> keyed(ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    keyed[i] = {ids[i] / plannerPoints, i};
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::pair<size_t, size_t>> runs; // (first position, index in keyed) per group
  for (size_t k = 0; k < keyed.size(); ++k)
    if (k == 0 || keyed[k].first != keyed[k - 1].first) runs.emplace_back(keyed[k].second, k);
  std::sort(runs.begin(), runs.end());
  Groups groups;
  groups.positions.reserve(ids.size());
  groups.starts.reserve(runs.size() + 1);
  for (auto [first, k] : runs) {
    groups.starts.push_back(groups.positions.size());
    for (size_t j = k; j < keyed.size() && keyed[j].first == keyed[k].first; ++j)
      groups.positions.push_back(keyed[j].second);
  }
  groups.starts.push_back(groups.positions.size());
  return groups;
}

/// One round: the proposed ids and, by position, what their evaluation left for the reduction.
struct Round {
  std::vector<uint64_t> ids;
  std::vector<Record> slots;                 ///< the records still to reduce
  std::vector<char> fromDb;                  ///< 1: the record came from the db
  std::vector<char> counted;                 ///< 1: rejected, counted and dropped (no db)
  std::vector<std::optional<double>> scores; ///< the predicted time of each feasible point

  explicit Round(std::vector<uint64_t> proposed)
      : ids(std::move(proposed)), slots(ids.size()), fromDb(ids.size(), 0), counted(ids.size(), 0),
        scores(ids.size()) {}

  /// Puts position i's record in place (run by the threads, one position each). `keepRejected`:
  /// a db will store the rejected records too.
  void place(size_t i, Record&& r, bool known, bool keepRejected, RejectionCounts& rejections) {
    fromDb[i] = known ? 1 : 0;
    if (r.ok()) {
      scores[i] = r.predictedNs;
    } else if (!keepRejected) {
      // Without a db a rejected record only counts: it is counted and freed here, by the
      // threads, so the calling thread's reduction touches the feasible records alone.
      ++rejections.local()[r.reason];
      counted[i] = 1;
      return;
    }
    slots[i] = std::move(r);
  }
};

/// Evaluates group g of the round (points the db holds are taken from it).
void evaluateGroup(Round& round, const Groups& groups, size_t g, const Space& space,
                   const Evaluator& evaluator, const TuningDb* db, RejectionCounts& rejections) {
  std::vector<size_t> positions;
  std::vector<ir::Binding> points;
  for (size_t k = groups.starts[g]; k < groups.starts[g + 1]; ++k) {
    size_t i = groups.positions[k];
    ir::Binding point = space.point(round.ids[i]);
    if (const Record* known = db ? db->lookup(point) : nullptr) {
      round.place(i, Record(*known), true, true, rejections);
      continue;
    }
    positions.push_back(i);
    points.push_back(std::move(point));
  }
  std::vector<Record> records = evaluator.evaluateGroup(std::move(points));
  assert(records.size() == positions.size()); // one record per point
  for (size_t j = 0; j < records.size(); ++j)
    round.place(positions[j], std::move(records[j]), false, db != nullptr, rejections);
}

/// The number of points of `space`'s trailing planner dimensions (block_count(...)).
uint64_t plannerPoints(const Space& space) {
  uint64_t n = 1;
  const std::vector<Dimension>& dims = space.dimensions();
  for (auto d = dims.rbegin(); d != dims.rend() && isBlockCountDimension(d->name); ++d)
    n *= d->size();
  return n;
}

} // namespace

Expected<TuneResult> tune(const ir::Module& module, const ir::Device& device,
                          const ir::Binding& fixed, const TuneOptions& options) {
  Expected<Space> space =
      tuningSpace(module, fixed, options.plannerDimensions, options.plan.maxBlockCount);
  if (!space) return space.error();
  pk::PlanCache cache;
  PointEvaluator evaluator(module, device, fixed, options.plan, &cache);
  evaluator.setKeepPlans(options.db != nullptr); // for `db rerank`
  evaluator.setKeepKernelPlans(options.keepKernelPlans);
  evaluator.trustSpace(*space);
  Expected<TuneResult> result = tuneWith(*space, evaluator, options);
  if (result) result->cache = cache.counters();
  return result;
}

Expected<TuneResult> tuneWith(const Space& searched, const Evaluator& evaluator,
                              const TuneOptions& options) {
  Clock::time_point start = Clock::now();
  const Space* space = &searched;
  TuneResult result;
  result.space = *space;
  Expected<std::unique_ptr<Strategy>> strategy = makeStrategy(*space, options.strategy);
  if (!strategy) return strategy.error();
  const uint64_t blockCountPoints = plannerPoints(*space);
  int threads =
      options.threads > 0 ? options.threads : int(tbb::this_task_arena::max_concurrency());
  tbb::task_arena arena(threads);
  Reducer reducer(result, options);
  RejectionCounts rejections;
  uint64_t planned = options.strategy.budgetEvals > 0
                         ? std::min(options.strategy.budgetEvals, space->size())
                         : space->size();
  planned = (planned + options.strategy.shard.count - 1 - options.strategy.shard.index) /
            options.strategy.shard.count;
  result.stop = "space";
  for (;;) {
    std::vector<uint64_t> ids = (*strategy)->propose(std::max<size_t>(1, options.roundSize));
    if (ids.empty()) break;
    Round round(std::move(ids));
    Groups groups = groupByKnobs(round.ids, blockCountPoints);
    arena.execute([&] {
      tbb::parallel_for(size_t(0), groups.size(), [&](size_t g) {
        evaluateGroup(round, groups, g, *space, evaluator, options.db, rejections);
      });
    });
    for (size_t i = 0; i < round.ids.size(); ++i) {
      if (round.counted[i]) { // evaluated here, never from a db
        ++result.evaluated;
        continue;
      }
      if (Status s = reducer.add(std::move(round.slots[i]), round.fromDb[i] != 0); !s)
        return s.error();
    }
    (*strategy)->observe(round.ids, round.scores);
    // With a db the rejected records stay in their slots until here; they are freed by the
    // threads too: freeing a round's bindings and messages on this thread alone took about 6 %
    // of a run of mostly require-rejected points. Without one the slots hold nothing by now
    // (feasible records were moved out, rejected ones freed where they were made).
    if (options.db)
      arena.execute([&] {
        tbb::parallel_for(size_t(0), round.slots.size(),
                          [&](size_t i) { round.slots[i] = Record(); });
      });
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (options.progress) {
      TuneProgress p;
      p.done = result.evaluated + result.reused;
      p.planned = planned;
      p.feasible = result.feasible;
      p.seconds = result.seconds;
      std::vector<Record> best = reducer.best();
      if (!best.empty()) p.best = best.front();
      options.progress(p);
    }
    if (options.timeLimitSeconds > 0 && result.seconds >= options.timeLimitSeconds) {
      result.stop = "time limit";
      break;
    }
  }
  if (result.stop == "space" && options.strategy.budgetEvals > 0 &&
      options.strategy.budgetEvals < space->size())
    result.stop = "budget";
  for (const std::map<std::string, uint64_t>& counts : rejections)
    for (const auto& [reason, n] : counts)
      result.rejected[reason] += n;
  result.top = reducer.best();
  if (result.top.size() > options.top) result.top.resize(options.top);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

} // namespace ttlplan::search
