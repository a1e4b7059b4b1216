// The independent core-assignment checker: shares no code with the solver (Solve.cpp).
#include "ttlplan/planner/cores/Problem.h"

#include <algorithm>

namespace ttlplan::planner::cores {

std::string_view toString(Validity validity) {
  switch (validity) {
  case Validity::Valid:
    return "valid";
  case Validity::InvalidProblem:
    return "invalid problem";
  case Validity::GridOutsideDevice:
    return "grid outside the device";
  case Validity::WrongRangeCount:
    return "wrong range count";
  case Validity::BadRange:
    return "bad range";
  case Validity::Overlap:
    return "ranges overlap";
  case Validity::NotCovered:
    return "items not covered";
  case Validity::WrongMakespan:
    return "wrong makespan";
  case Validity::WrongCoresUsed:
    return "wrong cores used";
  }
  return "?";
}

Validity validate(const Problem& problem, const Solution& solution) {
  const int64_t items = problem.items;
  if (items <= 0 || problem.grid.rows <= 0 || problem.grid.cols <= 0 || problem.fixedCores < 0 ||
      (!problem.costs.empty() && int64_t(problem.costs.size()) != items))
    return Validity::InvalidProblem;
  for (int64_t c : problem.costs)
    if (c < 0) return Validity::InvalidProblem;
  const Grid& g = solution.grid;
  if (problem.autoGrid
          ? (g.rows < 1 || g.cols < 1 || g.rows > problem.grid.rows || g.cols > problem.grid.cols)
          : !(g == problem.grid))
    return Validity::GridOutsideDevice;
  if (int64_t(solution.ranges.size()) != int64_t(g.rows) * g.cols) return Validity::WrongRangeCount;

  std::vector<Range> busy;
  for (const Range& r : solution.ranges) {
    if (r.start < 0 || r.count < 0 || (r.count > 0 && r.start > items - r.count))
      return Validity::BadRange;
    if (r.count > 0) busy.push_back(r);
  }
  std::sort(busy.begin(), busy.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  int64_t next = 0; // the first item not yet seen
  for (const Range& r : busy) {
    if (r.start < next) return Validity::Overlap;
    if (r.start > next) return Validity::NotCovered;
    next = r.start + r.count;
  }
  if (next != items) return Validity::NotCovered;

  int64_t makespan = 0;
  for (const Range& r : busy) {
    int64_t cost = r.count;
    if (!problem.costs.empty()) {
      cost = 0;
      for (int64_t i = 0; i < r.count; ++i)
        cost += problem.costs[size_t(r.start + i)];
    }
    makespan = std::max(makespan, cost);
  }
  if (makespan != solution.makespan) return Validity::WrongMakespan;
  if (solution.coresUsed != int(busy.size()) ||
      (problem.fixedCores > 0 && solution.coresUsed != problem.fixedCores))
    return Validity::WrongCoresUsed;
  return Validity::Valid;
}

} // namespace ttlplan::planner::cores
