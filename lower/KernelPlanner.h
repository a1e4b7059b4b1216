#pragma once
// Plans every kernel of a verified module (docs/plan.md): chooses the knob binding, extracts the
// sub-problems (lower/Extract.h), chooses `?` block counts, runs the planner's solvers (L1
// placement, CB indices, DST per chain, core assignment, multicast) and collects their statuses
// and times. Never throws; a kernel that cannot be planned gives an Error whose message names the
// resource, the shortfall, the ops with their locations and a concrete change that would fit.
#include "ir/Device.h"
#include "ir/Operation.h"
#include "lower/Extract.h"
#include "planner/cbindex/Problem.h"
#include "planner/cores/Problem.h"
#include "planner/dst/Problem.h"
#include "planner/l1/Solve.h"
#include "planner/multicast/Problem.h"
#include "support/Expected.h"

#include <optional>
#include <string>
#include <vector>

namespace ttlplan::lower {

struct PlanOptions {
  planner::l1::L1Solver solver = planner::l1::L1Solver::Exact; ///< --solver
  planner::SolveLimits limits;                                 ///< --time-limit per sub-problem
  int maxBlockCount = 4;              ///< --max-block-count: deepest `?` block count tried
  std::optional<ir::Binding> binding; ///< --bind; otherwise the first legal binding
};

/// One CB of the plan (a kernel's ttl.create_cb, or an intermediate CB a DST split needs).
struct CbPlan {
  std::string name;     ///< "%cba"; intermediates: "dst-split[<chain> value V after op N]"
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
  ir::Operation* op = nullptr;  ///< the create_cb (null for intermediates)
  int chain = -1;               ///< intermediates: index of the chain in KernelPlan::chains
  int32_t value = -1;           ///< intermediates: the planner value id it carries
};

/// One sub-problem's outcome.
struct SubProblemRun {
  std::string name; ///< "l1", "cb-index", "dst <chain>", "cores", "multicast"
  planner::SolveStatus status = planner::SolveStatus::Error;
  double milliseconds = 0;
  std::string solver; ///< back end
  int64_t nodes = 0;
};

struct ChainPlan {
  std::string id;
  std::string location;
  std::string dataType;
  bool matmul = false;
  int64_t capacityTiles = 0;
  planner::dst::Problem problem;
  planner::dst::Solution solution;
};

struct KernelPlan {
  std::string name;     ///< "@eltwise_add"
  std::string location; ///< of the ttl.kernel
  ir::Operation* op = nullptr;
  // Math settings under the binding (kernel attributes math_fidelity / fp32_dest_acc).
  std::string mathFidelity = "HiFi4"; ///< "LoFi", "HiFi2", "HiFi3" or "HiFi4"
  bool fp32DestAcc = false;           ///< fp32 DST accumulation: DST capacity halves
  // L1 and CB indices.
  std::vector<CbPlan> cbs;
  int64_t l1Base = 0;                  ///< l1_unreserved_base
  int64_t l1Capacity = 0;              ///< bytes free for CBs (L1 size - base)
  int64_t l1Used = 0;                  ///< peak of the placement
  std::vector<std::string> depthNotes; ///< how the `?` block counts were chosen
  planner::l1::Problem l1Problem;
  planner::l1::Solution l1Solution;
  planner::cbindex::Problem cbProblem;
  planner::cbindex::Solution cbSolution;
  // DST.
  std::vector<ChainPlan> chains;
  // Cores.
  planner::cores::Grid grid; ///< the grid used
  bool autoGrid = false;
  std::vector<int64_t> workDims;
  std::optional<planner::cores::Problem> coresProblem;
  std::optional<planner::cores::Solution> coresSolution;
  std::optional<planner::cores::Solution> coresBaseline; ///< split_work_to_cores
  std::string coresComparison;                           ///< explainDifference, "" when equal
  // Multicast.
  planner::multicast::Problem multicastProblem;
  std::optional<planner::multicast::Solution> multicastSolution;
  // Every solve, in order.
  std::vector<SubProblemRun> runs;
};

struct ModulePlan {
  std::string file;
  std::string device;
  ChosenBinding binding;
  std::vector<KernelPlan> kernels;
  double totalMilliseconds = 0; ///< wall time of planModule
};

/// Plans every kernel of `module` (which must have passed ir::verify).
Expected<ModulePlan> planModule(ir::Module& module, const ir::Device& device,
                                const PlanOptions& options = {});

/// "" when every sub-plan passes its planner's independent validator; otherwise what failed.
std::string validatePlan(const KernelPlan& plan);

} // namespace ttlplan::lower
