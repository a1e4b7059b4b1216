#pragma once
// Plans one kernel (docs/plan.md): a pure function from a KernelProblem to a KernelPlan or a
// structured Rejection. It chooses `?` block counts and runs the planner's solvers: DST per
// chain (a split adds intermediate CBs), CB indices, L1 placement, core assignment and
// multicast. Never throws. Safe to call from many threads at once; a PlanCache shared between
// calls solves each distinct sub-problem once (bindings of a template often share their CB set
// or DST chains). Under node limits (no time limit) the result is the same on every machine.
#include "ttlplan/planner/SolveStatus.h"
#include "ttlplan/planner/cbindex/Problem.h"
#include "ttlplan/planner/kernel/Problem.h"
#include "ttlplan/planner/l1/Solve.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::planner::kernel {

/// Version of the planning rules; a change makes stored plans (tuning records) stale.
inline constexpr std::string_view kPlannerVersion = "planner-1";

/// The defaults of --solver and --max-block-count, for every command and request that has them.
inline constexpr l1::L1Solver kDefaultSolver = l1::L1Solver::Exact;
inline constexpr int kDefaultMaxBlockCount = 4;

struct PlanOptions {
  l1::L1Solver solver = kDefaultSolver;      ///< --solver
  SolveLimits limits;                        ///< --time-limit per sub-problem (and node budget)
  int maxBlockCount = kDefaultMaxBlockCount; ///< --max-block-count: deepest `?` block count tried
  l1::ExactParams exact;                     ///< the exact L1 solver's pruning rules (--no-RULE)
  /// Block counts the caller fixes for `?` CBs, by CB position (the search's planner choices);
  /// the others start at maxBlockCount and shrink until L1 fits.
  std::map<size_t, int64_t> blockCounts;
};

/// Whether `a` and `b` plan a problem alike once its block counts are fixed: every field but
/// blockCounts is equal (a plan made under one may stand for a plan under the other).
bool samePlanner(const PlanOptions& a, const PlanOptions& b);

/// One CB of the plan (a kernel's ttl.create_cb, or an intermediate CB a DST split needs).
struct CbPlan {
  std::string name;     ///< "%cba"; intermediates: the SSA name of the value carried ("%mx")
  std::string location; ///< file:line:col of the create_cb (of the ttl.store for intermediates)
  std::vector<int64_t> blockShape;
  std::string dataType;
  int64_t tileBytes = 0;
  int64_t blockCount = 0;
  bool chosenByPlanner = false; ///< the type said `?`
  bool intermediate = false;    ///< added by a DST split
  int64_t bytes = 0;            ///< blockShape product * tileBytes * blockCount
  int index = -1;               ///< CB index
  int64_t address = 0;          ///< L1 byte address (l1_unreserved_base + offset)
  int source = -1;              ///< KernelProblem::cbs position (-1 for intermediates)
  int chain = -1;               ///< intermediates: index of the chain in KernelPlan::chains
  int32_t value = -1;           ///< intermediates: the planner value id it carries

  /// Bytes of one block: blockShape product * tileBytes.
  int64_t blockBytes() const {
    int64_t tiles = 1;
    for (int64_t d : blockShape)
      tiles *= d;
    return tiles * tileBytes;
  }
};

/// One sub-problem's outcome.
struct SubProblemRun {
  std::string name; ///< "l1", "cb-index", "dst <chain>", "cores", "multicast"
  SolveStatus status = SolveStatus::Error;
  double milliseconds = 0;
  std::string solver; ///< back end
  int64_t nodes = 0;
  bool cached = false; ///< answered by the PlanCache (milliseconds is then the look-up's)
};

struct ChainPlan {
  std::string id;
  std::string location;
  std::string dataType;
  bool matmul = false;
  int64_t capacityTiles = 0;
  dst::Problem problem;
  dst::Solution solution;
};

struct KernelPlan {
  std::string name;                     ///< "@eltwise_add"
  std::string location;                 ///< of the ttl.kernel
  std::vector<std::string> assumptions; ///< KernelProblem::assumptions
  // Math settings under the binding (kernel attributes math_fidelity / fp32_dest_acc).
  std::string mathFidelity = "HiFi4"; ///< "LoFi", "HiFi2", "HiFi3" or "HiFi4"
  bool fp32DestAcc = false;           ///< fp32 DST accumulation: DST capacity halves
  // L1 and CB indices.
  std::vector<CbPlan> cbs;
  int64_t l1Base = 0;                  ///< l1_unreserved_base
  int64_t l1Capacity = 0;              ///< bytes free for CBs (L1 size - base)
  int64_t l1Used = 0;                  ///< peak of the placement
  std::vector<std::string> depthNotes; ///< how the `?` block counts were chosen
  l1::Problem l1Problem;
  l1::Solution l1Solution;
  cbindex::Problem cbProblem;
  cbindex::Solution cbSolution;
  // DST.
  std::vector<ChainPlan> chains;
  // Cores.
  cores::Grid grid; ///< the grid used
  bool autoGrid = false;
  std::vector<int64_t> workDims;
  std::optional<cores::Problem> coresProblem;
  std::optional<cores::Solution> coresSolution;
  std::optional<cores::Solution> coresBaseline; ///< split_work_to_cores
  std::string coresComparison;                  ///< explainDifference, "" when equal
  // Multicast.
  multicast::Problem multicastProblem;
  std::optional<multicast::Solution> multicastSolution;
  // Every solve, in order.
  std::vector<SubProblemRun> runs;
};

/// The resource a binding does not fit (or the solve that gave up).
enum class Resource : uint8_t {
  Dst,        ///< a chain's live tiles exceed the DST capacity
  CbIndices,  ///< more CBs live together than the device's CB indices
  L1,         ///< the CBs do not fit the free L1
  Cores,      ///< the work cannot be assigned to the grid
  Multicast,  ///< pipe nets that cannot be covered or conflict
  Semaphores, ///< the multicast handshakes need more semaphore ids per core than exist
  Limit,      ///< a solver hit its time or node limit before finding a plan
  Invalid,    ///< the problem is malformed (an extraction or solver error)
};
std::string_view toString(Resource resource);

/// Why a kernel could not be planned, as data: the search counts rejections by resource and
/// reports the shortfall; `message` is the sentence a user reads (names the CBs, ops or nets
/// with their locations and says what change would fit).
struct Rejection {
  Resource resource = Resource::Invalid;
  SolveStatus status = SolveStatus::Error; ///< the failing solve's run status
  int64_t needed = 0;    ///< what the kernel needs (bytes, tiles, indices, semaphore ids)
  int64_t available = 0; ///< what the device offers; needed - available is the shortfall
  std::vector<int> cbs;  ///< KernelProblem::cbs positions involved (largest first for L1)
  int chain = -1;        ///< the failing chain (Dst)
  /// Knobs the failing resource depends on (filled by the caller that reads the IR: lower/).
  std::vector<std::string> knobs;
  std::string message;
};

/// A plan or the reason there is none.
struct PlanResult {
  std::optional<KernelPlan> plan;
  std::optional<Rejection> rejection; ///< set exactly when plan is not
};

/// Solutions of sub-problems keyed by a signature of the sub-problem (its data, not its names),
/// shared by plan() calls on any threads. Results solved under a time limit are not stored: they
/// depend on the machine. Counters are for reports and benchmarks.
class PlanCache {
public:
  PlanCache();
  ~PlanCache();
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  struct Counters {
    int64_t hits = 0;
    int64_t misses = 0;
  };
  Counters counters() const;

  struct Impl;
  Impl& impl() { return *impl_; }

private:
  std::unique_ptr<Impl> impl_;
};

/// Plans `problem`. With `cache`, sub-problems already solved under the same limits are reused.
PlanResult plan(const KernelProblem& problem, const PlanOptions& options = {},
                PlanCache* cache = nullptr);

/// Adds the multicast plan of `nets` (pipe nets on plan.grid) to a plan whose problem had no
/// nets yet (KernelProblem::multicast was nullopt); nullopt on success.
std::optional<Rejection> planMulticast(KernelPlan& plan, multicast::Problem nets,
                                       const PlanOptions& options = {}, PlanCache* cache = nullptr);

/// "" when every sub-plan passes its planner's independent validator; otherwise what failed.
std::string validatePlan(const KernelPlan& plan);

} // namespace ttlplan::planner::kernel
