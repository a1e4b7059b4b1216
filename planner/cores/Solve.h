#pragma once
// Core assignment: the optimal contiguous split, tt-metal's split_work_to_cores as the named
// baseline, and a comparison of the two.
#include "ttlplan/planner/cores/Problem.h"

namespace ttlplan::planner::cores {

/// Least makespan, then fewest cores; with autoGrid also the grid (see chooseGrid). Never throws:
/// bad input gives Error, a fixed core count that cannot be met gives Infeasible. A node limit
/// (binary-search steps) or time limit stops the makespan search with the best split found so
/// far: Feasible.
Result solve(const Problem& problem, const SolveLimits& limits = {});

/// tt-metal's split_work_to_cores(grid, units): target = min(units, cores); q = units / target,
/// r = units % target; the first r cores (row-major) take q + 1 units, the rest q; cores past the
/// target stay idle. The makespan is measured with `costs` (empty: 1 per unit).
Solution splitWorkToCores(Grid grid, int64_t units, const std::vector<int64_t>& costs = {});

/// The grid for `cores` busy cores on a device of `device`: the rectangle rows x cols (rows <=
/// device.rows, cols <= device.cols, rows * cols >= cores) with the fewest idle cores, then the
/// widest (full device rows keep multicast groups rectangular), anchored at (0, 0).
Grid chooseGrid(int cores, Grid device);

/// "" when the two plans are the same; otherwise one short line saying how `ours` differs from
/// `baseline` (e.g. "same makespan 2 on 50 cores instead of 64").
std::string explainDifference(const Solution& ours, const Solution& baseline);

} // namespace ttlplan::planner::cores
