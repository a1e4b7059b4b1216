#include "ttlplan/planner/colouring/Colouring.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>

namespace ttlplan::planner::colouring {
namespace {

using Clock = std::chrono::steady_clock;

void sortUnique(Graph& graph) {
  for (auto& neighbours : graph) {
    std::sort(neighbours.begin(), neighbours.end());
    neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  }
}

/// The smallest colour missing from `taken` (sorted ascending, duplicates allowed).
int smallestMissing(const std::vector<int>& taken) {
  int c = 0;
  for (int used : taken)
    if (used == c)
      ++c;
    else if (used > c)
      break;
  return c;
}

/// The first point where the most intervals are live, and how many are.
std::pair<int64_t, size_t> sweep(const std::vector<Interval>& intervals) {
  // Events (point, +1 start / -1 end); ends sort before starts at the same point: [lower, upper).
  std::vector<std::pair<int64_t, int>> events;
  events.reserve(intervals.size() * 2);
  for (const Interval& interval : intervals)
    if (interval.lower < interval.upper) {
      events.emplace_back(interval.lower, 1);
      events.emplace_back(interval.upper, -1);
    }
  std::sort(events.begin(), events.end());
  int64_t busiest = 0;
  int live = 0, peak = 0;
  for (const auto& [point, delta] : events) {
    live += delta;
    if (live > peak) {
      peak = live;
      busiest = point;
    }
  }
  return {busiest, static_cast<size_t>(peak)};
}

bool limitHit(Budget& budget) {
  const SolveLimits& limits = budget.limits;
  if (limits.nodeLimit > 0 && budget.nodes >= limits.nodeLimit) return true;
  if (limits.timeLimitSeconds > 0 && (budget.nodes & 255) == 0) {
    double elapsed = std::chrono::duration<double>(Clock::now() - budget.start).count();
    if (elapsed >= limits.timeLimitSeconds) return true;
  }
  return false;
}

/// DSatur branch and bound over one component, in local vertex numbers. Colours are bounded by
/// the incumbent's span; unused colours are interchangeable, so only the lowest is tried.
class ComponentSearch {
public:
  ComponentSearch(const Graph& graph, const std::vector<size_t>& vertices,
                  const std::vector<int>& preassigned, const std::vector<int>& incumbent, int goal,
                  Budget& budget)
      : m_(vertices.size()), goal_(goal), budget_(budget) {
    best_.resize(m_);
    for (size_t i = 0; i < m_; ++i)
      best_[i] = incumbent[vertices[i]];
    upper_ = span(best_);
    k_ = static_cast<size_t>(std::max(upper_, 1));
    std::vector<size_t> local(graph.size(), SIZE_MAX);
    for (size_t i = 0; i < m_; ++i)
      local[vertices[i]] = i;
    adj_.resize(m_);
    for (size_t i = 0; i < m_; ++i)
      for (size_t u : graph[vertices[i]])
        adj_[i].push_back(local[u]);
    colour_.assign(m_, -1);
    neighbourColours_.assign(m_ * k_, 0);
    saturation_.assign(m_, 0);
    useCount_.assign(k_, 0);
    for (size_t i = 0; i < m_; ++i)
      if (preassigned[vertices[i]] >= 0) {
        assign(i, preassigned[vertices[i]]);
        ++fixed_;
        fixedMax_ = std::max(fixedMax_, preassigned[vertices[i]]);
      }
  }

  /// Runs the search; returns false when a limit stopped it before the proof.
  bool run() {
    if (upper_ <= goal_) return true;
    dfs(fixed_, fixedMax_);
    return !aborted_;
  }

  int upper() const { return upper_; }
  const std::vector<int>& best() const { return best_; }

private:
  void assign(size_t v, int c) {
    colour_[v] = c;
    ++useCount_[static_cast<size_t>(c)];
    for (size_t u : adj_[v])
      if (neighbourColours_[u * k_ + static_cast<size_t>(c)]++ == 0) ++saturation_[u];
  }
  void unassign(size_t v) {
    int c = colour_[v];
    colour_[v] = -1;
    --useCount_[static_cast<size_t>(c)];
    for (size_t u : adj_[v])
      if (--neighbourColours_[u * k_ + static_cast<size_t>(c)] == 0) --saturation_[u];
  }

  /// The uncoloured vertex with the most distinct neighbour colours, then the most uncoloured
  /// neighbours, then the lowest id (deterministic).
  size_t pickNext() const {
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
    return pick;
  }

  /// Returns true when the search should stop (goal reached or a limit hit).
  bool dfs(size_t coloured, int curMax) {
    if (limitHit(budget_)) {
      aborted_ = true;
      return true;
    }
    ++budget_.nodes;
    if (coloured == m_) {
      best_ = colour_;
      upper_ = curMax + 1;
      return upper_ <= goal_;
    }
    const size_t pick = pickNext();
    bool triedFresh = false;
    for (int c = 0; c + 1 < upper_; ++c) {
      if (neighbourColours_[pick * k_ + static_cast<size_t>(c)] > 0) continue;
      if (useCount_[static_cast<size_t>(c)] == 0) {
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

  size_t m_;
  size_t k_ = 1;
  int goal_;
  Budget& budget_;
  Graph adj_;
  std::vector<int> colour_;
  std::vector<int> neighbourColours_; ///< [v * k + c]: neighbours of v with colour c
  std::vector<int> saturation_;       ///< distinct colours among v's neighbours
  std::vector<int> useCount_;
  size_t fixed_ = 0;
  int fixedMax_ = -1;
  std::vector<int> best_;
  int upper_ = 0;
  bool aborted_ = false;
};

} // namespace

Graph fromEdges(size_t n, const std::vector<std::pair<size_t, size_t>>& edges) {
  Graph graph(n);
  for (auto [a, b] : edges)
    if (a < n && b < n && a != b) {
      graph[a].push_back(b);
      graph[b].push_back(a);
    }
  sortUnique(graph);
  return graph;
}

Graph fromIntervals(const std::vector<Interval>& intervals) {
  const size_t n = intervals.size();
  Graph graph(n);
  std::vector<size_t> order;
  for (size_t v = 0; v < n; ++v)
    if (intervals[v].lower < intervals[v].upper) order.push_back(v);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return intervals[a].lower < intervals[b].lower; });
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t j = i + 1;
         j < order.size() && intervals[order[j]].lower < intervals[order[i]].upper; ++j) {
      graph[order[i]].push_back(order[j]);
      graph[order[j]].push_back(order[i]);
    }
  sortUnique(graph);
  return graph;
}

int span(const std::vector<int>& colours) {
  int result = 0;
  for (int colour : colours)
    result = std::max(result, colour + 1);
  return result;
}

Busiest busiestPoint(const std::vector<Interval>& intervals) {
  Busiest busiest;
  busiest.point = sweep(intervals).first;
  for (size_t v = 0; v < intervals.size(); ++v)
    if (intervals[v].lower <= busiest.point && busiest.point < intervals[v].upper)
      busiest.members.push_back(v);
  return busiest;
}

size_t mostLive(const std::vector<Interval>& intervals) {
  return sweep(intervals).second;
}

std::vector<int> colourIntervals(const std::vector<Interval>& intervals) {
  std::vector<size_t> order;
  for (size_t v = 0; v < intervals.size(); ++v)
    if (intervals[v].lower < intervals[v].upper) order.push_back(v);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return intervals[a].lower < intervals[b].lower; });
  // Live vertices by end point; released colours are reused smallest first.
  using Active = std::pair<int64_t, int>; // (upper, colour)
  std::priority_queue<Active, std::vector<Active>, std::greater<>> active;
  std::priority_queue<int, std::vector<int>, std::greater<>> released;
  std::vector<int> colours(intervals.size(), -1);
  int next = 0;
  for (size_t v : order) {
    while (!active.empty() && active.top().first <= intervals[v].lower) {
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
    colours[v] = c;
    active.emplace(intervals[v].upper, c);
  }
  return colours;
}

std::vector<int> firstFit(const Graph& graph, const std::vector<int>& preassigned) {
  std::vector<int> colours(preassigned);
  std::vector<int> taken;
  for (size_t v = 0; v < graph.size(); ++v) {
    if (colours[v] >= 0) continue;
    taken.clear();
    for (size_t u : graph[v])
      if (colours[u] >= 0) taken.push_back(colours[u]);
    std::sort(taken.begin(), taken.end());
    colours[v] = smallestMissing(taken);
  }
  return colours;
}

std::vector<int> dsatur(const Graph& graph, const std::vector<int>& preassigned) {
  const size_t n = graph.size();
  std::vector<int> colours(preassigned);
  std::vector<std::vector<int>> seen(n); // neighbour colours, sorted and unique
  auto mark = [&](size_t v) {
    for (size_t u : graph[v]) {
      auto at = std::lower_bound(seen[u].begin(), seen[u].end(), colours[v]);
      if (at == seen[u].end() || *at != colours[v]) seen[u].insert(at, colours[v]);
    }
  };
  for (size_t v = 0; v < n; ++v)
    if (colours[v] >= 0) mark(v);
  for (;;) {
    size_t pick = SIZE_MAX, pickSat = 0, pickDeg = 0;
    for (size_t v = 0; v < n; ++v) {
      if (colours[v] >= 0) continue;
      size_t deg = 0;
      for (size_t u : graph[v])
        deg += colours[u] < 0;
      const size_t sat = seen[v].size();
      if (pick == SIZE_MAX || sat > pickSat || (sat == pickSat && deg > pickDeg)) {
        pick = v;
        pickSat = sat;
        pickDeg = deg;
      }
    }
    if (pick == SIZE_MAX) break;
    colours[pick] = smallestMissing(seen[pick]);
    mark(pick);
  }
  return colours;
}

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
    for (size_t c : candidates)
      if (std::all_of(clique.begin(), clique.end(),
                      [&](size_t member) { return adjacent[c * n + member] != 0; }))
        clique.push_back(c);
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

ComponentResult colourComponent(const Graph& graph, const std::vector<size_t>& component,
                                const std::vector<int>& preassigned, int goal,
                                std::vector<int>& colours, Budget& budget) {
  ComponentSearch search(graph, component, preassigned, colours, goal, budget);
  ComponentResult result;
  result.finished = search.run();
  result.span = search.upper();
  for (size_t i = 0; i < component.size(); ++i)
    colours[component[i]] = search.best()[i];
  return result;
}

} // namespace ttlplan::planner::colouring
