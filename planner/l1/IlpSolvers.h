#pragma once
// ILP back ends for L1 placement, used to prove optimality and to cross-check the exact solver.
// Both solve the same big-M disjunctive model:
//   offset_i = alignment_i * k_i,  k_i integer >= 0;   offset_i + size_i <= peak <= M
//   for each pair i < j live at the same time, a binary z_ij:
//     offset_i + size_i <= offset_j + M (1 - z_ij)      (i below j when z_ij = 1)
//     offset_j + size_j <= offset_i + M z_ij            (j below i when z_ij = 0)
//   minimise peak; peak >= the live-bytes lower bound.
// M is the capacity, or (unbounded, or when it is smaller) the first-fit-decreasing peak, which
// some optimal plan never exceeds. Both back ends are safe to call from several threads at once:
// CBC through one CbcModel + OsiClpSolverInterface per call, GLPK with its thread-local state.
#include "ttlplan/planner/l1/Problem.h"

namespace ttlplan::planner::l1 {

/// CBC (CbcModel + OsiClpSolverInterface, logging off). Optimal only when CBC proves it;
/// Feasible with CBC's best bound as lowerBound when a limit stops it; NoSolution when it stops
/// with no integer solution; Infeasible only when proven. Never throws.
Result solveCbc(const Problem& problem, const SolveLimits& limits = {});

/// GLPK (glp_intopt with presolve, messages off, tm_lim for the time limit, a callback for the
/// node limit); the same status rules. Frees this thread's GLPK environment before returning, so
/// the caller must hold no GLPK objects of its own on this thread. Never throws.
Result solveGlpk(const Problem& problem, const SolveLimits& limits = {});

} // namespace ttlplan::planner::l1
