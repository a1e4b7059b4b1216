#pragma once
// The exact L1 placement solver: our own branch and bound (in the class of google/minimalloc).
// Every pruning rule is a named flag so that tests can switch each one off and measure it.
#include "planner/l1/Problem.h"

namespace ttlplan::planner::l1 {

struct ExactParams {
  // The rules below are filled in by the solver's implementation (planner/l1/ExactSolver.cpp);
  // each must keep the optimum and reduce explored nodes on some instance (tests/planner/).
};

/// Minimises the peak (capacity 0), or decides feasibility within the capacity. Honours both
/// limits; on a limit returns the best solution found so far with its proven lower bound.
Result solveExact(const Problem& problem, const ExactParams& params = {},
                  const SolveLimits& limits = {});

} // namespace ttlplan::planner::l1
