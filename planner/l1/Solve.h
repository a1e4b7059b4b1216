#pragma once
// The L1 placement entry point: pick a back end by name, check the input, solve, re-check the
// plan with the independent validator, and explain infeasibility (docs/architecture.md, planner
// sub-problem 1). Never throws; safe to call from several threads at once.
#include "ttlplan/planner/l1/ExactSolver.h"
#include "ttlplan/planner/l1/Problem.h"
#include "ttlplan/support/Expected.h"

#include <span>
#include <string>
#include <string_view>

namespace ttlplan::planner::l1 {

enum class L1Solver {
  Exact,              ///< our branch and bound (planner/l1/ExactSolver.h)
  Cbc,                ///< big-M ILP through CbcModel (planner/l1/IlpSolvers.h)
  Glpk,               ///< the same ILP through GLPK
  FirstFitDecreasing, ///< baseline heuristic (planner/l1/Baselines.h)
  BestFitDecreasing,  ///< baseline heuristic
};

/// "exact", "cbc", "glpk", "first-fit-decreasing", "best-fit-decreasing".
std::string_view toString(L1Solver solver);
/// The inverse of toString; an unknown name is an error that lists the valid ones.
Expected<L1Solver> parseL1Solver(std::string_view name);
/// Every solver, in enum order.
std::span<const L1Solver> allL1Solvers();

/// Solves `problem` with `solver` within `limits`:
/// - a malformed problem, a solver failure, or a plan that fails validate() is Error (an invalid
///   plan is never returned);
/// - Optimal means the minimal peak is proven (with a capacity, `exact` decides feasibility:
///   Optimal there means a plan within the capacity, its peak not necessarily minimal); Feasible
///   carries a proven lowerBound;
/// - a capacity below the live bytes of the busiest time step is Infeasible for every solver;
/// - for Infeasible, `infeasibility` holds the smallest capacity that works (the problem solved
///   unbounded with the same solver) and a minimal set of buffers that cannot coexist (a deletion
///   filter: the live-bytes bound where it suffices, the solver otherwise), and `message` says it
///   in words: "needs X B; capacity C B; short by S B; these N buffers cannot coexist: ...".
/// stats.seconds is the wall time of the whole call.
Result solve(const Problem& problem, L1Solver solver, const SolveLimits& limits = {},
             const ExactParams& exact = {});

/// 1234567 -> "1,234,567", for messages and reports.
std::string withThousands(int64_t value);

} // namespace ttlplan::planner::l1
