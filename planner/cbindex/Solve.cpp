#include "ttlplan/planner/cbindex/Solve.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>
#include <queue>

namespace ttlplan::planner::cbindex {
namespace {

using Clock = std::chrono::steady_clock;
using Graph = std::vector<std::vector<size_t>>;

int spanOf(const std::vector<int>& indices) {
  int colours = 0;
  for (int index : indices)
    colours = std::max(colours, index + 1);
  return colours;
}

bool hasPreassignments(const Problem& problem) {
  return std::any_of(problem.cbs.begin(), problem.cbs.end(),
                     [](const Cb& cb) { return cb.preassigned >= 0; });
}

/// The busiest time step of an interval problem and the CBs live there (a maximum clique).
struct Busiest {
  int64_t time = 0;
  std::vector<size_t> cbs;
};

Busiest busiestStep(const Problem& problem) {
  // Events (time, +1 start / -1 end); ends sort before starts at the same time: [lower, upper).
  std::vector<std::pair<int64_t, int>> events;
  events.reserve(problem.cbs.size() * 2);
  for (const Cb& cb : problem.cbs) {
    events.emplace_back(cb.lower, 1);
    events.emplace_back(cb.upper, -1);
  }
  std::sort(events.begin(), events.end());
  Busiest best;
  int live = 0, bestLive = 0;
  for (const auto& [time, delta] : events) {
    live += delta;
    if (live > bestLive) {
      bestLive = live;
      best.time = time;
    }
  }
  for (size_t i = 0; i < problem.cbs.size(); ++i)
    if (problem.cbs[i].lower <= best.time && best.time < problem.cbs[i].upper)
      best.cbs.push_back(i);
  return best;
}

/// A large clique by greedy growth from every vertex (highest degree first). A lower bound only.
std::vector<size_t> greedyClique(const Graph& graph) {
  const size_t n = graph.size();
  std::vector<char> adjacent(n * n, 0);
  for (size_t v = 0; v < n; ++v)
    for (size_t u : graph[v])
      adjacent[v * n + u] = 1;
  std::vector<size_t> best;
  for (size_t start = 0; start < n; ++start) {
    if (graph[start].size() + 1 <= best.size()) continue;
    std::vector<size_t> candidates = graph[start];
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](size_t a, size_t b) { return graph[a].size() > graph[b].size(); });
    std::vector<size_t> clique{start};
    for (size_t c : candidates) {
      bool all = true;
      for (size_t member : clique)
        if (!adjacent[c * n + member]) {
          all = false;
          break;
        }
      if (all) clique.push_back(c);
    }
    if (clique.size() > best.size()) best = std::move(clique);
  }
  std::sort(best.begin(), best.end());
  return best;
}

std::vector<std::vector<size_t>> components(const Graph& graph) {
  std::vector<std::vector<size_t>> result;
  std::vector<char> seen(graph.size(), 0);
  for (size_t root = 0; root < graph.size(); ++root) {
    if (seen[root]) continue;
    std::vector<size_t> component{root};
    seen[root] = 1;
    for (size_t k = 0; k < component.size(); ++k)
      for (size_t u : graph[component[k]])
        if (!seen[u]) {
          seen[u] = 1;
          component.push_back(u);
        }
    std::sort(component.begin(), component.end());
    result.push_back(std::move(component));
  }
  return result;
}

/// DSatur branch and bound on one connected component. Colours are CB indices; the objective is
/// max index + 1 over the component.
class ComponentSearch {
public:
  ComponentSearch(const Graph& graph, const std::vector<size_t>& vertices,
                  const std::vector<int>& preassigned, int colourBound, int goal, int64_t& nodes,
                  const SolveLimits& limits, Clock::time_point start)
      : vertices_(vertices), m_(vertices.size()), k_(colourBound), goal_(goal), nodes_(nodes),
        limits_(limits), start_(start) {
    std::vector<size_t> local(graph.size(), SIZE_MAX);
    for (size_t i = 0; i < m_; ++i)
      local[vertices[i]] = i;
    adj_.resize(m_);
    for (size_t i = 0; i < m_; ++i)
      for (size_t u : graph[vertices[i]])
        adj_[i].push_back(local[u]);
    colour_.assign(m_, -1);
    neighbourColours_.assign(m_ * static_cast<size_t>(k_), 0);
    saturation_.assign(m_, 0);
    useCount_.assign(static_cast<size_t>(k_), 0);
    for (size_t i = 0; i < m_; ++i)
      if (preassigned[vertices[i]] >= 0) {
        assign(i, preassigned[vertices[i]]);
        ++fixed_;
        curMax_ = std::max(curMax_, preassigned[vertices[i]]);
      }
  }

  /// Seeds the incumbent with a known colouring (global indices, colours < colourBound).
  void seed(const std::vector<int>& globalIndices) {
    best_.resize(m_);
    for (size_t i = 0; i < m_; ++i)
      best_[i] = globalIndices[vertices_[i]];
    upper_ = spanOf(best_);
  }

  /// Runs the search; returns false when a limit stopped it before the proof.
  bool run() {
    if (upper_ <= goal_) return true;
    dfs(fixed_, curMax_);
    return !aborted_;
  }

  int upper() const { return upper_; }
  void writeBest(std::vector<int>& globalIndices) const {
    for (size_t i = 0; i < m_; ++i)
      globalIndices[vertices_[i]] = best_[i];
  }

private:
  void assign(size_t v, int c) {
    colour_[v] = c;
    ++useCount_[static_cast<size_t>(c)];
    for (size_t u : adj_[v])
      if (neighbourColours_[u * k_ + c]++ == 0) ++saturation_[u];
  }
  void unassign(size_t v) {
    int c = colour_[v];
    colour_[v] = -1;
    --useCount_[static_cast<size_t>(c)];
    for (size_t u : adj_[v])
      if (--neighbourColours_[u * k_ + c] == 0) --saturation_[u];
  }

  bool limitHit() {
    if (limits_.nodeLimit > 0 && nodes_ >= limits_.nodeLimit) return true;
    if (limits_.timeLimitSeconds > 0 && (nodes_ & 255) == 0) {
      double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
      if (elapsed >= limits_.timeLimitSeconds) return true;
    }
    return false;
  }

  /// Returns true when the search should stop (goal reached or a limit hit).
  bool dfs(size_t coloured, int curMax) {
    if (limitHit()) {
      aborted_ = true;
      return true;
    }
    ++nodes_;
    if (coloured == m_) {
      best_ = colour_;
      upper_ = curMax + 1;
      return upper_ <= goal_;
    }
    // DSatur: the uncoloured vertex with the most distinct neighbour colours, then the most
    // uncoloured neighbours, then the lowest id (deterministic).
    size_t pick = SIZE_MAX;
    int pickSat = -1, pickDeg = -1;
    for (size_t v = 0; v < m_; ++v) {
      if (colour_[v] >= 0) continue;
      int deg = 0;
      for (size_t u : adj_[v])
        deg += colour_[u] < 0;
      if (saturation_[v] > pickSat || (saturation_[v] == pickSat && deg > pickDeg)) {
        pick = v;
        pickSat = saturation_[v];
        pickDeg = deg;
      }
    }
    bool triedFresh = false;
    for (int c = 0; c + 1 < upper_; ++c) {
      if (neighbourColours_[pick * k_ + static_cast<size_t>(c)] > 0) continue;
      if (useCount_[static_cast<size_t>(c)] == 0) {
        // Unused colours are interchangeable; the lowest one never raises the span more.
        if (triedFresh) continue;
        triedFresh = true;
      }
      assign(pick, c);
      bool stop = dfs(coloured + 1, std::max(curMax, c));
      unassign(pick);
      if (stop) return true;
    }
    return false;
  }

  const std::vector<size_t>& vertices_;
  size_t m_;
  size_t k_;
  int goal_;
  int64_t& nodes_;
  const SolveLimits& limits_;
  Clock::time_point start_;
  Graph adj_;
  std::vector<int> colour_;
  std::vector<int> neighbourColours_; ///< [v * k + c]: neighbours of v with colour c
  std::vector<int> saturation_;       ///< distinct colours among v's neighbours
  std::vector<int> useCount_;
  size_t fixed_ = 0;
  int curMax_ = -1;
  std::vector<int> best_;
  int upper_ = 0;
  bool aborted_ = false;
};

/// DSatur greedy (no backtracking) over the whole graph, pre-assignments first.
std::vector<int> dsaturGreedy(const Graph& graph, const std::vector<int>& preassigned) {
  const size_t n = graph.size();
  std::vector<int> colour(preassigned);
  std::vector<std::vector<int>> seen(n);
  auto mark = [&](size_t v) {
    for (size_t u : graph[v])
      seen[u].push_back(colour[v]);
  };
  for (size_t v = 0; v < n; ++v)
    if (colour[v] >= 0) mark(v);
  for (size_t step = 0; step < n; ++step) {
    size_t pick = SIZE_MAX;
    size_t pickSat = 0, pickDeg = 0;
    for (size_t v = 0; v < n; ++v) {
      if (colour[v] >= 0) continue;
      std::sort(seen[v].begin(), seen[v].end());
      seen[v].erase(std::unique(seen[v].begin(), seen[v].end()), seen[v].end());
      size_t sat = seen[v].size(), deg = graph[v].size();
      if (pick == SIZE_MAX || sat > pickSat || (sat == pickSat && deg > pickDeg)) {
        pick = v;
        pickSat = sat;
        pickDeg = deg;
      }
    }
    if (pick == SIZE_MAX) break;
    int c = 0;
    for (int used : seen[pick]) // sorted and unique
      if (used == c)
        ++c;
      else if (used > c)
        break;
    colour[pick] = c;
    mark(pick);
  }
  return colour;
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
  std::vector<int> preassigned(n);
  int preassignedSpan = 0;
  for (size_t i = 0; i < n; ++i) {
    preassigned[i] = problem.cbs[i].preassigned;
    preassignedSpan = std::max(preassignedSpan, preassigned[i] + 1);
    if (preassigned[i] >= limit)
      return finish(infeasible(problem, InfeasibleReason::PreassignedOutOfRange, {i},
                               preassigned[i] + 1, std::nullopt, preassigned[i] + 1),
                    "none", 0);
  }
  const Graph graph = conflictGraph(problem);
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
    Busiest busiest = busiestStep(problem);
    clique = std::move(busiest.cbs);
    if (!clique.empty()) busiestTime = busiest.time;
  } else {
    clique = greedyClique(graph);
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
    solution.colours = spanOf(solution.indices);
    result.message = std::to_string(solution.colours) + " indices of " + std::to_string(limit) +
                     " (lower bound " + std::to_string(bound) + ")";
    result.solution = std::move(solution);
    return finish(std::move(result), std::move(solver), nodes);
  };

  Solution ff = firstFit(problem);
  if (acceptFirstFit && (ff.colours <= lowerBound ||
                         (params.objective == Objective::FitLimit && ff.colours <= limit)))
    return accept(std::move(ff.indices), SolveStatus::Optimal, "first-fit", 0, lowerBound);

  if (problem.source == ConflictSource::Intervals && preassignedSpan == 0) {
    // Interval graph: greedy by start time uses exactly the maximum clique size.
    std::optional<Solution> interval = intervalColouring(problem);
    return accept(std::move(interval->indices), SolveStatus::Optimal, "interval", 0, lowerBound);
  }

  // General graphs (or pre-assignments): DSatur branch and bound per connected component.
  std::vector<int> best = dsaturGreedy(graph, preassigned);
  if (ff.colours < spanOf(best)) best = ff.indices;
  const int goal =
      params.objective == Objective::FitLimit ? std::max(limit, lowerBound) : lowerBound;
  const int colourBound = std::max(spanOf(best), 1);
  int64_t nodes = 0;
  bool proven = true;
  for (const std::vector<size_t>& component : components(graph)) {
    ComponentSearch search(graph, component, preassigned, colourBound, goal, nodes, limits, start);
    search.seed(best);
    bool finished = search.run();
    search.writeBest(best);
    if (!finished) {
      proven = false;
      continue;
    }
    // A finished search proves this component's optimum, or reached the goal (<= the optimum).
    if (search.upper() > goal) lowerBound = std::max(lowerBound, search.upper());
    if (search.upper() > limit)
      return finish(infeasible(problem, InfeasibleReason::NoColouringWithinLimit, component,
                               search.upper(), std::nullopt, lowerBound),
                    "dsatur", nodes);
  }
  const int colours = spanOf(best);
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
  const size_t n = problem.cbs.size();
  Graph graph(n);
  if (problem.source == ConflictSource::List) {
    for (auto [a, b] : problem.conflicts)
      if (a < n && b < n && a != b) {
        graph[a].push_back(b);
        graph[b].push_back(a);
      }
  } else {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return problem.cbs[a].lower < problem.cbs[b].lower; });
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n && problem.cbs[order[j]].lower < problem.cbs[order[i]].upper;
           ++j) {
        graph[order[i]].push_back(order[j]);
        graph[order[j]].push_back(order[i]);
      }
  }
  for (auto& neighbours : graph) {
    std::sort(neighbours.begin(), neighbours.end());
    neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  }
  return graph;
}

Solution firstFit(const Problem& problem) {
  if (!problemError(problem).empty()) return {};
  const Graph graph = conflictGraph(problem);
  const size_t n = graph.size();
  std::vector<int> indices(n, -1);
  for (size_t i = 0; i < n; ++i)
    indices[i] = problem.cbs[i].preassigned;
  std::vector<int> taken;
  for (size_t v = 0; v < n; ++v) {
    if (indices[v] >= 0) continue;
    taken.clear();
    for (size_t u : graph[v])
      if (indices[u] >= 0) taken.push_back(indices[u]);
    std::sort(taken.begin(), taken.end());
    int c = 0;
    for (int used : taken)
      if (used == c)
        ++c;
      else if (used > c)
        break;
    indices[v] = c;
  }
  Solution solution{std::move(indices), 0};
  solution.colours = spanOf(solution.indices);
  return solution;
}

std::optional<Solution> intervalColouring(const Problem& problem) {
  if (!problemError(problem).empty() || problem.source != ConflictSource::Intervals ||
      hasPreassignments(problem))
    return std::nullopt;
  const size_t n = problem.cbs.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return problem.cbs[a].lower < problem.cbs[b].lower; });
  // Active CBs by end time; released indices reused smallest first.
  using Active = std::pair<int64_t, int>;
  std::priority_queue<Active, std::vector<Active>, std::greater<>> active;
  std::priority_queue<int, std::vector<int>, std::greater<>> released;
  std::vector<int> indices(n, -1);
  int next = 0;
  for (size_t v : order) {
    while (!active.empty() && active.top().first <= problem.cbs[v].lower) {
      released.push(active.top().second);
      active.pop();
    }
    int c;
    if (!released.empty()) {
      c = released.top();
      released.pop();
    } else {
      c = next++;
    }
    indices[v] = c;
    active.emplace(problem.cbs[v].upper, c);
  }
  return Solution{std::move(indices), next};
}

Result solve(const Problem& problem, const SolveParams& params, const SolveLimits& limits) {
  return guardedSolve<Result>("cb-index", [&] { return run(problem, params, limits, true); });
}

Result solveExact(const Problem& problem, const SolveParams& params, const SolveLimits& limits) {
  return guardedSolve<Result>("cb-index", [&] { return run(problem, params, limits, false); });
}

} // namespace ttlplan::planner::cbindex
