#include "ttlplan/planner/cores/Solve.h"

#include "ttlplan/support/GridLimits.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace ttlplan::planner::cores {

namespace {

using Clock = std::chrono::steady_clock;

/// True when the node or time limit is reached (nodes: binary-search steps).
bool limitHit(const SolveLimits& limits, int64_t nodes, Clock::time_point start) {
  if (limits.nodeLimit > 0 && nodes >= limits.nodeLimit) return true;
  return limits.timeLimitSeconds > 0 &&
         std::chrono::duration<double>(Clock::now() - start).count() >= limits.timeLimitSeconds;
}

/// Greedy packing for a makespan bound T: each part takes items while its cost stays <= T. The
/// parts' [start, count), or an empty vector when some single item costs more than T.
///
/// Why this is exact for contiguous partitions (the claim both searches below rely on): let
/// g_1 < g_2 < ... be the ends (one past the last item) of the greedy parts and p_1 < p_2 < ...
/// those of any partition whose parts all cost <= T. By induction g_k >= p_k: for k = 1 greedy
/// stops only when the next item would exceed T, so any part from 0 ends at or before g_1; if
/// g_k >= p_k, the part (p_k, p_{k+1}] costs <= T, so (g_k, p_{k+1}] (a suffix of it, costs >= 0)
/// also does, and greedy's part from g_k reaches at least p_{k+1}. Hence greedy finishes with no
/// more parts than any partition of makespan <= T: greedy(T) parts <= K decides "is makespan T
/// possible with K cores", that predicate is monotone in T (a bigger T never needs more parts),
/// so binary search finds the least T, and greedy at that T uses the fewest cores for it.
std::vector<Range> greedyParts(const std::vector<int64_t>& costs, int64_t T) {
  std::vector<Range> parts;
  int64_t start = 0, load = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    if (costs[i] > T) return {};
    if (int64_t(i) > start && load + costs[i] > T) {
      parts.push_back({start, int64_t(i) - start});
      start = int64_t(i);
      load = 0;
    }
    load += costs[i];
  }
  parts.push_back({start, int64_t(costs.size()) - start});
  return parts;
}

int64_t rangeCost(const std::vector<int64_t>& costs, const Range& r) {
  if (costs.empty()) return r.count;
  int64_t sum = 0;
  for (int64_t i = r.start; i < r.start + r.count; ++i)
    sum += costs[size_t(i)];
  return sum;
}

/// `count` cores with balanced contiguous ranges: the first items % count take one more.
std::vector<Range> balanced(int64_t items, int64_t count) {
  std::vector<Range> parts;
  int64_t q = items / count, r = items % count, start = 0;
  for (int64_t i = 0; i < count; ++i) {
    int64_t c = q + (i < r ? 1 : 0);
    parts.push_back({start, c});
    start += c;
  }
  return parts;
}

Solution layout(Grid grid, const std::vector<Range>& parts, int64_t items,
                const std::vector<int64_t>& costs) {
  Solution s;
  s.grid = grid;
  s.ranges.assign(size_t(grid.cores()), Range{items, 0});
  for (size_t i = 0; i < parts.size() && i < s.ranges.size(); ++i) {
    s.ranges[i] = parts[i];
    if (parts[i].count > 0) {
      ++s.coresUsed;
      s.makespan = std::max(s.makespan, rangeCost(costs, parts[i]));
    }
  }
  return s;
}

} // namespace

Grid chooseGrid(int cores, Grid device) {
  Grid best{0, 0};
  for (int r = 1; r <= device.rows; ++r)
    for (int c = device.cols; c >= 1; --c) {
      if (r * c < cores) continue;
      int idle = r * c - cores, bestIdle = best.cores() - cores;
      if (best.rows == 0 || idle < bestIdle || (idle == bestIdle && c > best.cols)) best = {r, c};
    }
  return best;
}

Solution splitWorkToCores(Grid grid, int64_t units, const std::vector<int64_t>& costs) {
  int64_t cores = std::max(grid.cores(), 0);
  int64_t target = std::min(units, cores);
  std::vector<Range> parts;
  if (target > 0) parts = balanced(units, target);
  return layout(grid, parts, std::max<int64_t>(units, 0), costs);
}

static Result solveUnguarded(const Problem& problem, const SolveLimits& limits) {
  Result result;
  Clock::time_point start = Clock::now();
  result.stats.solver = "exact";
  auto finish = [&](SolveStatus status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  };
  const int64_t items = problem.items;
  const Grid device = problem.grid;
  if (items <= 0) return finish(SolveStatus::Error, "there are no work items");
  if (device.rows <= 0 || device.cols <= 0)
    return finish(SolveStatus::Error, "the grid must have at least one row and one column");
  if (device.rows > kMaxGridSide || device.cols > kMaxGridSide)
    return finish(SolveStatus::Error, "the grid may have at most " + std::to_string(kMaxGridSide) +
                                          " rows and columns");
  if (!problem.costs.empty() && int64_t(problem.costs.size()) != items)
    return finish(SolveStatus::Error, std::to_string(problem.costs.size()) + " costs for " +
                                          std::to_string(items) + " work items");
  int64_t total = 0, maxCost = 0;
  for (int64_t c : problem.costs) {
    if (c < 0) return finish(SolveStatus::Error, "a work item has a negative cost");
    if (c > std::numeric_limits<int64_t>::max() - total)
      return finish(SolveStatus::Error, "the total cost overflows 64 bits");
    total += c;
    maxCost = std::max(maxCost, c);
  }
  if (problem.fixedCores < 0) return finish(SolveStatus::Error, "a negative fixed core count");
  int64_t K = problem.fixedCores > 0 ? problem.fixedCores : device.cores();
  if (K > device.cores())
    return finish(SolveStatus::Infeasible, "the fixed core count " + std::to_string(K) +
                                               " exceeds the " + std::to_string(device.rows) + "x" +
                                               std::to_string(device.cols) + " grid");
  if (problem.fixedCores > 0 && K > items)
    return finish(SolveStatus::Infeasible, "the fixed core count " + std::to_string(K) +
                                               " exceeds the " + std::to_string(items) +
                                               " work items (a core would be idle)");

  std::vector<Range> parts;
  bool stopped = false;
  if (problem.costs.empty()) {
    // Uniform: makespan ceil(items / K) is a lower bound (some core gets at least that) and is
    // reached; ceil(items / makespan) cores are needed for it and suffice.
    int64_t makespan = (items + K - 1) / K;
    int64_t used = problem.fixedCores > 0 ? K : (items + makespan - 1) / makespan;
    parts = balanced(items, used);
    result.stats.nodes = 1;
  } else {
    int64_t lo = maxCost, hi = total; // greedy(hi) is one part, so hi is feasible
    while (lo < hi) {
      // A limit stops the search at hi, a feasible makespan; lo stays a proven lower bound.
      if (limitHit(limits, result.stats.nodes, start)) {
        stopped = true;
        break;
      }
      int64_t mid = lo + (hi - lo) / 2;
      ++result.stats.nodes;
      if (int64_t(greedyParts(problem.costs, mid).size()) <= K)
        hi = mid;
      else
        lo = mid + 1;
    }
    parts = greedyParts(problem.costs, hi);
    // A fixed core count: split parts (never raising their cost) until there are K of them.
    for (size_t i = 0; problem.fixedCores > 0 && int64_t(parts.size()) < K && i < parts.size();) {
      if (parts[i].count < 2) {
        ++i;
        continue;
      }
      Range tail{parts[i].start + parts[i].count - 1, 1};
      --parts[i].count;
      parts.insert(parts.begin() + std::ptrdiff_t(i) + 1, tail);
    }
  }
  Grid grid = problem.autoGrid ? chooseGrid(int(parts.size()), device) : device;
  result.solution = layout(grid, parts, items, problem.costs);
  return stopped ? finish(SolveStatus::Feasible, "a limit stopped the makespan search")
                 : finish(SolveStatus::Optimal, "");
}

std::string explainDifference(const Solution& ours, const Solution& baseline) {
  if (ours == baseline) return "";
  std::string out;
  if (ours.makespan == baseline.makespan)
    out = "same makespan " + std::to_string(ours.makespan);
  else
    out = "makespan " + std::to_string(ours.makespan) + " instead of " +
          std::to_string(baseline.makespan);
  if (ours.coresUsed != baseline.coresUsed)
    out += " on " + std::to_string(ours.coresUsed) + " cores instead of " +
           std::to_string(baseline.coresUsed);
  else
    out += " on the same " + std::to_string(ours.coresUsed) + " cores";
  if (!(ours.grid == baseline.grid))
    out += ", grid " + std::to_string(ours.grid.rows) + "x" + std::to_string(ours.grid.cols) +
           " instead of " + std::to_string(baseline.grid.rows) + "x" +
           std::to_string(baseline.grid.cols);
  if (ours.makespan == baseline.makespan && ours.coresUsed == baseline.coresUsed &&
      ours.grid == baseline.grid)
    out += ", other ranges";
  return out;
}

Result solve(const Problem& problem, const SolveLimits& limits) {
  return guardedSolve<Result>("cores", [&] { return solveUnguarded(problem, limits); });
}

} // namespace ttlplan::planner::cores
