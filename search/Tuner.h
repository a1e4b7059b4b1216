#pragma once
// The autotuner (docs/architecture.md, "The search"; docs/tuning.md): the space of a template's
// unbound knobs and the planner's `?` block counts, searched by a seeded strategy; each point is
// checked against the ttl.requires, extracted into IR-free planning problems, planned (sub-problems
// cached by signature), and costed by the cost model. Points of one round are evaluated in
// parallel (TBB) into slots by position and reduced in order, so the result, the records and the
// JSON are the same at any thread count; wall-clock figures live in fields named `timing`.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/search/Space.h"
#include "ttlplan/search/Strategy.h"
#include "ttlplan/search/TuningDb.h"
#include "ttlplan/search/cost/Extract.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ttlplan::search {

/// Where a tuning run stands, for progress lines.
struct TuneProgress {
  uint64_t done = 0;          ///< points evaluated or reused so far
  uint64_t planned = 0;       ///< points the run will visit (the budget, or the space)
  uint64_t feasible = 0;      ///< of `done`, the points that planned and costed
  double seconds = 0;         ///< wall time so far
  std::optional<Record> best; ///< best so far
};

struct TuneOptions {
  StrategyOptions strategy;    ///< --strategy, --budget-evals, --seed, --shard
  double timeLimitSeconds = 0; ///< --time-limit: stop after the round that passes it; 0 = none
  int threads = 0;             ///< --threads; 0 = every hardware thread
  /// Points per parallel round. No result depends on it (the strategies' sequences do not, and
  /// a round is reduced in order); it sets how often progress and the time limit are checked,
  /// and it must be large enough that the threads stay busy when a round mixes points that are
  /// rejected in microseconds with points that are planned and costed (a round waits for its
  /// slowest group): 64 gave 1.17x from 1 to 2 threads on the 2-D template, 1024 gives
  /// docs/tuning.md's figures.
  size_t roundSize = 1024;
  size_t top = 5;                    ///< --top K
  planner::kernel::PlanOptions plan; ///< the planner's options (node limits keep it deterministic)
  bool plannerDimensions = true;     ///< search the `?` block counts (1..plan.maxBlockCount)
  TuningDb* db = nullptr;            ///< --db: recorded points are reused, new ones appended
  /// Keep every feasible point's time, L1 bytes and bound in TuneResult::points (`tune --html`'s
  /// scatter); off by default, since a long run visits millions.
  bool keepPoints = false;
  /// Keep each ok record's kernels' plans in full (Record::kernelPlans), so that the caller
  /// lowers the point it picks without planning it again; costs a copy per feasible point.
  bool keepKernelPlans = false;
  /// Called after every round (from the calling thread).
  std::function<void(const TuneProgress&)> progress;
};

/// One feasible point of a run, for pictures (TuneOptions::keepPoints).
struct PointSummary {
  double predictedNs = 0; ///< Record::predictedNs
  int64_t l1Bytes = 0;    ///< Record::l1Bytes
  std::string bound;      ///< Record::bound
};

/// Indices of the points no other point beats in both predicted time and L1 bytes (smaller is
/// better in each; of equal points the first), ordered by L1 bytes.
std::vector<size_t> paretoFront(const std::vector<PointSummary>& points);

/// The outcome of a tuning run.
struct TuneResult {
  Space space;                                ///< the space searched
  uint64_t evaluated = 0;                     ///< points planned and costed by this run
  uint64_t reused = 0;                        ///< points taken from the db instead
  uint64_t feasible = 0;                      ///< points (evaluated or reused) that fit and costed
  std::map<std::string, uint64_t> rejected;   ///< rejected points by reason ("require", "l1", ...)
  std::vector<Record> top;                    ///< the best K, best first
  std::vector<PointSummary> points;           ///< with keepPoints: every feasible point, in order
  std::string stop;                           ///< "space", "budget" or "time limit"
  double seconds = 0;                         ///< timing: wall time of the search
  planner::kernel::PlanCache::Counters cache; ///< sub-problem cache hits and misses
};

/// The name of the planner dimension of a `?` CB: "block_count(%cbc)".
std::string blockCountDimension(const std::string& cbName);
/// True for the name of a planner dimension (blockCountDimension()), false for a knob's.
bool isBlockCountDimension(const std::string& name);

/// A point split into knob values and planner choices.
struct PointParts {
  ir::Binding knobs;                          ///< the fixed knobs and the point's knob values
  std::map<std::string, int64_t> blockCounts; ///< "%cbc" -> count, from "block_count(%cbc)"
};
PointParts splitPoint(const ir::Binding& point, const ir::Binding& fixed);

/// The `?` CBs of `kernel`: (position among its create_cbs in program order, name).
std::vector<std::pair<size_t, std::string>> dynamicCbs(ir::Operation* kernel);

/// PlanOptions::blockCounts (by CB position) for the `dynamic` CBs that `byName` names.
std::map<size_t, int64_t>
blockCountsByPosition(const std::vector<std::pair<size_t, std::string>>& dynamic,
                      const std::map<std::string, int64_t>& byName);

/// lower::PlanOptions::kernelBlockCounts for a point's block counts (`byName`, from
/// splitPoint): per kernel of `module` in program order, its `?` CBs' counts by position.
std::vector<std::map<size_t, int64_t>>
kernelBlockCounts(const ir::Module& module, const std::map<std::string, int64_t>& byName);

/// The space of `module` with `fixed` knobs bound: the unbound knobs' domains in declaration
/// order, then (with `plannerDimensions`) one dimension per `?` CB of each kernel (1..maxBlock).
Expected<Space> tuningSpace(const ir::Module& module, const ir::Binding& fixed,
                            bool plannerDimensions, int maxBlockCount);

/// What a tuning run evaluates its points with: PointEvaluator for Tenstorrent devices,
/// PtoPointEvaluator (search/PtoEvaluator.h) for Ascend AI cores. Thread-safe: a run calls it
/// from many threads at once.
class Evaluator {
public:
  virtual ~Evaluator() = default;
  /// The records of `points`, in order; points that differ in planner dimensions only may share
  /// their work.
  virtual std::vector<Record> evaluateGroup(std::vector<ir::Binding> points) const = 0;
};

/// A record of `r`'s point rejected for `reason` ("require", "l1", ...), with `detail`.
Record rejected(Record r, std::string reason, std::string detail);
/// `message`, and the knobs it concerns when there are any: "... (knobs A, B)".
std::string withKnobs(const std::string& message, const std::vector<std::string>& knobs);

/// Evaluates points (knob values and planner dimensions) of one module: checks the ttl.requires
/// and knob expressions, extracts and plans every kernel, costs the plan. Build once per module
/// and binding of the fixed knobs; evaluate() is thread-safe (it only reads the module), and
/// `cache` may be shared by threads.
class PointEvaluator : public Evaluator {
public:
  PointEvaluator(const ir::Module& module, const ir::Device& device, ir::Binding fixed,
                 planner::kernel::PlanOptions options, planner::kernel::PlanCache* cache);
  /// The record of `point` (a rejection names its reason; timing in timingMs).
  Record evaluate(const ir::Binding& point) const;
  /// The records of `points`, which share their knob values (they differ in planner dimensions
  /// only), in order: the ttl.requires are checked and each kernel is extracted once, and the
  /// cost program of the first plan that fits is re-used for the others with their CB depths
  /// (cost::setCbDepths). A point with other knob values is evaluated on its own.
  std::vector<Record> evaluateGroup(std::vector<ir::Binding> points) const override;
  /// Points come from `space` only: the domains of the knobs it searches are not checked again
  /// per point (those of the fixed knobs that read searched ones still are).
  void trustSpace(const Space& space);
  /// Whether ok records keep their kernels' plans (Record::plans; a tuning db's records do).
  void setKeepPlans(bool keep) { keepPlans_ = keep; }
  /// Whether ok records keep their kernels' plans in full (Record::kernelPlans).
  void setKeepKernelPlans(bool keep) { keepKernelPlans_ = keep; }
  /// `stored` (an ok record with plans, of this module and fixed knobs) costed again by this
  /// ttlplan's cost model from its stored plans, without planning; a plan that does not decode
  /// or fit the kernels is an Error, a cost model failure a "cost" rejection.
  Expected<Record> recost(const Record& stored) const;

private:
  /// What the points of one knob binding share for one kernel.
  struct Shared {
    std::optional<Expected<planner::kernel::KernelProblem>> problem;
    std::optional<Expected<cost::Program>> program;
  };

  /// The plans a point's evaluation keeps (setKeepPlans, setKeepKernelPlans), per kernel.
  struct KeptForPoint {
    std::vector<std::string> stored;               ///< storedPlanJson
    std::vector<planner::kernel::KernelPlan> full; ///< the plans as made
  };

  /// Adds kernel `k`'s plan and cost to `r`; false (r rejected) when it does not fit.
  bool addKernel(size_t k, const PointParts& parts, Shared& shared, Record& r,
                 KeptForPoint& kept) const;
  /// Adds the cost of `plan` (its Program extracted) to `r`; false (r rejected) when it fails.
  bool addCost(const planner::kernel::KernelPlan& plan, Expected<cost::Program>& program,
               Record& r) const;

  const ir::Device& device_;
  ir::Binding fixed_;
  planner::kernel::PlanOptions options_;
  planner::kernel::PlanCache* cache_;
  lower::BindingChecker checker_;
  std::vector<ir::Operation*> kernels_;
  std::vector<std::vector<std::pair<size_t, std::string>>> dynamic_; ///< `?` CBs per kernel
  std::vector<cost::ProgramExtractor> extractors_;                   ///< per kernel
  bool keepPlans_ = false;
  bool keepKernelPlans_ = false;
};

/// PointEvaluator(...).evaluate(point), for one-off calls.
Record evaluatePoint(const ir::Module& module, const ir::Device& device, const ir::Binding& point,
                     const ir::Binding& fixed, const planner::kernel::PlanOptions& options,
                     planner::kernel::PlanCache* cache, bool keepKernelPlans = false);

/// Hash (16 hex digits) of the module's text with every ttl.param's value list left out, so that
/// adding a value to a knob keeps the records already there.
std::string kernelSourceHash(const ir::Module& module);

/// The db header for tuning `module` on `device` with `fixed` bound.
DbHeader tuningHeader(const ir::Module& module, const ir::Device& device, const ir::Binding& fixed);

/// Tunes `module` (verified) on `device` with `fixed` knobs bound.
Expected<TuneResult> tune(const ir::Module& module, const ir::Device& device,
                          const ir::Binding& fixed, const TuneOptions& options);

/// Searches `space` with `evaluator` (another target's): the same strategies, rounds, records,
/// db and result as tune(); options.plan is not used (the evaluator plans), and the result's
/// cache counters stay 0.
Expected<TuneResult> tuneWith(const Space& space, const Evaluator& evaluator,
                              const TuneOptions& options);

} // namespace ttlplan::search
