#pragma once
// Core assignment (docs/architecture.md, planner sub-problem 5): the kernel's `work` items
// (row-major over the work dims) go to the cores of the grid as one contiguous [start, start +
// count) range per core, so that the lowering passes start/count as runtime args. Objective: the
// least makespan (the largest per-core cost), then the fewest cores. docs/multicast-and-cores.md
// has the rules.
#include "ttlplan/planner/SolveStatus.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::planner::cores {

struct Grid {
  int rows = 0;
  int cols = 0;
  int cores() const { return rows * cols; }
  friend bool operator==(const Grid&, const Grid&) = default;
};

struct Problem {
  int64_t items = 0; ///< the product of the work dims; > 0
  /// The kernel's grid, or with autoGrid the device's largest grid (the planner picks a
  /// sub-grid anchored at logical (0, 0)).
  Grid grid;
  bool autoGrid = false;
  /// Per-item cost (>= 0), items.size() entries; empty means every item costs 1.
  std::vector<int64_t> costs;
  /// When > 0: use exactly this many cores (1..min(items, grid cores)).
  int fixedCores = 0;
};

/// Items [start, start + count) of one core; count 0 for an idle core.
struct Range {
  int64_t start = 0;
  int64_t count = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

struct Solution {
  Grid grid;                 ///< the grid used (the problem's, or the chosen one with autoGrid)
  std::vector<Range> ranges; ///< one per core of `grid`, row-major (core i = (i % cols, i / cols))
  int64_t makespan = 0;      ///< the largest per-core cost
  int coresUsed = 0;         ///< cores with count > 0
  friend bool operator==(const Solution&, const Solution&) = default;
};

struct Result {
  SolveStatus status = SolveStatus::Error;
  std::optional<Solution> solution; ///< set for Optimal and Feasible
  SolverStats stats;
  std::string message; ///< for Error/Infeasible
};

/// Why a solution is invalid; Valid when it is not. Checked by code independent of the solver.
enum class [[nodiscard]] Validity{
    Valid,
    InvalidProblem,    ///< items <= 0, bad grid, wrong cost count, negative cost
    GridOutsideDevice, ///< the grid is not the problem's (fixed) or does not fit in it (auto)
    WrongRangeCount,   ///< ranges.size() != grid cores
    BadRange,          ///< a negative start or count, or a range past the last item
    Overlap,           ///< an item in two ranges
    NotCovered,        ///< an item in no range
    WrongMakespan,     ///< makespan != the largest per-core cost
    WrongCoresUsed,    ///< coresUsed != the cores with count > 0, or != fixedCores
};

std::string_view toString(Validity validity);
Validity validate(const Problem& problem, const Solution& solution);

} // namespace ttlplan::planner::cores
