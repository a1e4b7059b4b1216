#include "ttlplan/planner/cbindex/Solve.h"

#include "ttlplan/planner/colouring/Colouring.h"

#include <algorithm>
#include <chrono>

namespace ttlplan::planner::cbindex {
namespace {

using Clock = std::chrono::steady_clock;
using colouring::Graph;

bool hasPreassignments(const Problem& problem) {
  return std::any_of(problem.cbs.begin(), problem.cbs.end(),
                     [](const Cb& cb) { return cb.preassigned >= 0; });
}

/// The CBs' lifetimes; empty for ConflictSource::List, whose lifetimes mean nothing.
std::vector<colouring::Interval> intervalsOf(const Problem& problem) {
  std::vector<colouring::Interval> intervals;
  if (problem.source == ConflictSource::List) return intervals;
  intervals.reserve(problem.cbs.size());
  for (const Cb& cb : problem.cbs)
    intervals.push_back({cb.lower, cb.upper});
  return intervals;
}

/// The conflict graph; `intervals` are intervalsOf(problem).
colouring::Graph graphOf(const Problem& problem,
                         const std::vector<colouring::Interval>& intervals) {
  if (problem.source == ConflictSource::List)
    return colouring::fromEdges(problem.cbs.size(), problem.conflicts);
  return colouring::fromIntervals(intervals);
}

std::vector<int> preassignedOf(const Problem& problem) {
  std::vector<int> preassigned;
  preassigned.reserve(problem.cbs.size());
  for (const Cb& cb : problem.cbs)
    preassigned.push_back(cb.preassigned);
  return preassigned;
}

std::string joinIds(const Problem& problem, const std::vector<size_t>& cbs) {
  std::string out;
  for (size_t i = 0; i < cbs.size(); ++i) {
    if (i) out += ", ";
    out += problem.cbs[cbs[i]].id.empty() ? std::string("#") + std::to_string(cbs[i])
                                          : problem.cbs[cbs[i]].id;
  }
  return out;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Result infeasible(const Problem& problem, InfeasibleReason reason, std::vector<size_t> cbs,
                  int needed, std::optional<int64_t> time, int lowerBound) {
  Result result;
  result.status = SolveStatus::Infeasible;
  result.lowerBound = lowerBound;
  std::sort(cbs.begin(), cbs.end());
  result.message = std::string(toString(reason)) + ": " + joinIds(problem, cbs) + " need " +
                   std::to_string(needed) + " indices, limit " + std::to_string(problem.limit);
  if (time) result.message += std::string(" (at step ") + std::to_string(*time) + ")";
  result.infeasibility = Infeasibility{reason, std::move(cbs), time, needed};
  return result;
}

Result run(const Problem& problem, const SolveParams& params, const SolveLimits& limits,
           bool acceptFirstFit) {
  const auto start = Clock::now();
  auto finish = [&](Result result, std::string solver, int64_t nodes) {
    result.stats.solver = std::move(solver);
    result.stats.nodes = nodes;
    result.stats.seconds = secondsSince(start);
    return result;
  };
  if (std::string error = problemError(problem); !error.empty()) {
    Result result;
    result.status = SolveStatus::Error;
    result.message = error;
    return finish(std::move(result), "none", 0);
  }
  const size_t n = problem.cbs.size();
  const int limit = problem.limit;
  const std::vector<int> preassigned = preassignedOf(problem);
  int preassignedSpan = 0;
  for (size_t i = 0; i < n; ++i) {
    preassignedSpan = std::max(preassignedSpan, preassigned[i] + 1);
    if (preassigned[i] >= limit)
      return finish(infeasible(problem, InfeasibleReason::PreassignedOutOfRange, {i},
                               preassigned[i] + 1, std::nullopt, preassigned[i] + 1),
                    "none", 0);
  }
  // Built once: the graph and the intervals serve every step below.
  const std::vector<colouring::Interval> intervals = intervalsOf(problem);
  const Graph graph = graphOf(problem, intervals);
  for (size_t v = 0; v < n; ++v)
    for (size_t u : graph[v])
      if (u > v && preassigned[v] >= 0 && preassigned[v] == preassigned[u])
        return finish(infeasible(problem, InfeasibleReason::PreassignedClash, {v, u}, limit + 1,
                                 std::nullopt, preassignedSpan),
                      "none", 0);

  // Lower bound: a clique (exact for intervals) and the pre-assigned span.
  std::vector<size_t> clique;
  std::optional<int64_t> busiestTime;
  if (problem.source == ConflictSource::Intervals) {
    colouring::Busiest busiest = colouring::busiestPoint(intervals);
    clique = std::move(busiest.members);
    if (!clique.empty()) busiestTime = busiest.point;
  } else {
    clique = colouring::greedyClique(graph);
  }
  const int cliqueSize = static_cast<int>(clique.size());
  int lowerBound = std::max(cliqueSize, preassignedSpan);
  if (cliqueSize > limit)
    return finish(infeasible(problem, InfeasibleReason::TooManyLiveTogether, std::move(clique),
                             cliqueSize, busiestTime, lowerBound),
                  "none", 0);

  auto accept = [&](std::vector<int> indices, SolveStatus status, std::string solver, int64_t nodes,
                    int bound) {
    Result result;
    result.status = status;
    result.lowerBound = bound;
    Solution solution{std::move(indices), 0};
    solution.colours = colouring::span(solution.indices);
    result.message = std::to_string(solution.colours) + " indices of " + std::to_string(limit) +
                     " (lower bound " + std::to_string(bound) + ")";
    result.solution = std::move(solution);
    return finish(std::move(result), std::move(solver), nodes);
  };

  Solution ff{colouring::firstFit(graph, preassigned), 0};
  ff.colours = colouring::span(ff.indices);
  if (acceptFirstFit && (ff.colours <= lowerBound ||
                         (params.objective == Objective::FitLimit && ff.colours <= limit)))
    return accept(std::move(ff.indices), SolveStatus::Optimal, "first-fit", 0, lowerBound);

  if (problem.source == ConflictSource::Intervals && preassignedSpan == 0) {
    // Interval graph: greedy by start time uses exactly the maximum clique size.
    return accept(colouring::colourIntervals(intervals), SolveStatus::Optimal, "interval", 0,
                  lowerBound);
  }

  // General graphs (or pre-assignments): DSatur branch and bound per connected component.
  std::vector<int> best = colouring::dsatur(graph, preassigned);
  if (ff.colours < colouring::span(best)) best = ff.indices;
  const int goal =
      params.objective == Objective::FitLimit ? std::max(limit, lowerBound) : lowerBound;
  colouring::Budget budget{limits, start, 0};
  bool proven = true;
  for (const std::vector<size_t>& component : colouring::components(graph)) {
    colouring::ComponentResult search =
        colouring::colourComponent(graph, component, preassigned, goal, best, budget);
    if (!search.finished) {
      proven = false;
      continue;
    }
    // A finished search proves this component's optimum, or reached the goal (<= the optimum).
    if (search.span > goal) lowerBound = std::max(lowerBound, search.span);
    if (search.span > limit)
      return finish(infeasible(problem, InfeasibleReason::NoColouringWithinLimit, component,
                               search.span, std::nullopt, lowerBound),
                    "dsatur", budget.nodes);
  }
  const int64_t nodes = budget.nodes;
  const int colours = colouring::span(best);
  if (proven)
    lowerBound = std::max(lowerBound, params.objective == Objective::MinColours ? colours : 0);
  if (colours <= limit) {
    bool optimal = proven || colours <= lowerBound || params.objective == Objective::FitLimit;
    return accept(std::move(best), optimal ? SolveStatus::Optimal : SolveStatus::Feasible, "dsatur",
                  nodes, lowerBound);
  }
  Result result;
  result.status = SolveStatus::NoSolution;
  result.lowerBound = lowerBound;
  result.message = "limit hit: best colouring found needs " + std::to_string(colours) +
                   " indices, limit " + std::to_string(limit);
  return finish(std::move(result), "dsatur", nodes);
}

} // namespace

std::vector<std::vector<size_t>> conflictGraph(const Problem& problem) {
  return graphOf(problem, intervalsOf(problem));
}

Solution firstFit(const Problem& problem) {
  if (!problemError(problem).empty()) return {};
  Solution solution{colouring::firstFit(conflictGraph(problem), preassignedOf(problem)), 0};
  solution.colours = colouring::span(solution.indices);
  return solution;
}

std::optional<Solution> intervalColouring(const Problem& problem) {
  if (!problemError(problem).empty() || problem.source != ConflictSource::Intervals ||
      hasPreassignments(problem))
    return std::nullopt;
  Solution solution{colouring::colourIntervals(intervalsOf(problem)), 0};
  solution.colours = colouring::span(solution.indices);
  return solution;
}

Result solve(const Problem& problem, const SolveParams& params, const SolveLimits& limits) {
  return guardedSolve<Result>("cb-index", [&] { return run(problem, params, limits, true); });
}

Result solveExact(const Problem& problem, const SolveParams& params, const SolveLimits& limits) {
  return guardedSolve<Result>("cb-index", [&] { return run(problem, params, limits, false); });
}

} // namespace ttlplan::planner::cbindex
