#pragma once
// CB index colouring: the tt-lang baseline (first fit in program order) and the exact solver.
//
// solve(): first fit in the given order; if that is provably minimal (it reaches the lower bound)
// or, under Objective::FitLimit, simply fits, it is the answer. Otherwise an exact colouring:
//  - interval conflicts, no pre-assignments: greedy by start time, which is optimal on interval
//    graphs (it uses exactly as many indices as CBs live at the busiest step);
//  - a conflict list, or pre-assignments (precolouring extension is NP-complete even on interval
//    graphs): DSatur branch and bound per connected component, honouring SolveLimits.
#include "ttlplan/planner/cbindex/Problem.h"

namespace ttlplan::planner::cbindex {

enum class Objective {
  MinColours, ///< the fewest indices (max index + 1); the default
  FitLimit,   ///< any plan within the limit; stops at the first one (cheapest)
};

struct SolveParams {
  Objective objective = Objective::MinColours;
};

/// The conflict graph as sorted adjacency lists (no self loops, no duplicates). Precondition:
/// problemError(problem) is empty.
std::vector<std::vector<size_t>> conflictGraph(const Problem& problem);

/// The tt-lang baseline: each CB in the given order gets the smallest index that no conflicting,
/// already-indexed CB holds (pre-assigned CBs keep their index and are placed first). The result
/// may exceed the limit (check colours); it is empty when the problem is malformed.
Solution firstFit(const Problem& problem);

/// Greedy by interval start: optimal for ConflictSource::Intervals without pre-assignments.
/// Empty when the problem is malformed, not interval-based, or has pre-assignments.
std::optional<Solution> intervalColouring(const Problem& problem);

/// First fit, then the exact colouring when needed (see above). Never throws.
Result solve(const Problem& problem, const SolveParams& params = {},
             const SolveLimits& limits = {});

/// The exact colouring without trying first fit as the answer (first fit still seeds the bound).
Result solveExact(const Problem& problem, const SolveParams& params = {},
                  const SolveLimits& limits = {});

} // namespace ttlplan::planner::cbindex
