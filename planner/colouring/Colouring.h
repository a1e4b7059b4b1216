#pragma once
// Graph colouring, the one module behind three planner sub-problems (docs/architecture.md):
//  - CB indices (planner/cbindex): CBs live together need different hardware CB indices;
//  - semaphore ids (planner/multicast): pipe nets sharing a core while live need different ids;
//  - DST slots (planner/dst): values of a compute chain live together need different DST slots.
// Each sub-problem builds its conflict graph (or its live intervals) and its own report; the
// algorithms are here, once: interval colouring (optimal on interval graphs), first fit, DSatur,
// a clique lower bound, connected components, and DSatur branch and bound for the exact answer.
#include "ttlplan/planner/SolveStatus.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ttlplan::planner::colouring {

/// Adjacency lists: graph[v] holds v's neighbours, sorted, without duplicates or v itself.
using Graph = std::vector<std::vector<size_t>>;

/// A vertex live over [lower, upper); empty (upper <= lower) means never live.
struct Interval {
  int64_t lower = 0; ///< first point the vertex is live
  int64_t upper = 0; ///< one past the last point
};

/// The graph of `edges` over n vertices; out-of-range ends and self loops are dropped.
Graph fromEdges(size_t n, const std::vector<std::pair<size_t, size_t>>& edges);

/// The interval graph: two vertices conflict when their intervals intersect.
Graph fromIntervals(const std::vector<Interval>& intervals);

/// max(colour) + 1 over `colours` (0 when empty or all -1): how many colours a colouring spans.
int span(const std::vector<int>& colours);

/// The busiest point of a set of intervals and the vertices live there: a maximum clique of the
/// interval graph, so its size is the chromatic number.
struct Busiest {
  int64_t point = 0;           ///< the first point where the most intervals are live
  std::vector<size_t> members; ///< the vertices live at `point`, ascending
};
Busiest busiestPoint(const std::vector<Interval>& intervals);
/// How many intervals are live at the busiest point (busiestPoint().members.size(), without
/// listing them).
size_t mostLive(const std::vector<Interval>& intervals);

/// Greedy by interval start, each vertex the smallest colour free at its start: optimal, it uses
/// exactly busiestPoint().members.size() colours. Vertices with empty intervals get -1.
std::vector<int> colourIntervals(const std::vector<Interval>& intervals);

/// First fit in vertex order: each uncoloured vertex (preassigned[v] < 0) takes the smallest
/// colour no neighbour holds yet; preassigned vertices keep theirs.
std::vector<int> firstFit(const Graph& graph, const std::vector<int>& preassigned);

/// DSatur greedy: repeatedly colours the uncoloured vertex with the most distinct neighbour
/// colours (then the most uncoloured neighbours, then the lowest id) with the smallest free colour.
std::vector<int> dsatur(const Graph& graph, const std::vector<int>& preassigned);

/// A large clique by greedy growth from every vertex: a lower bound on the colours needed.
std::vector<size_t> greedyClique(const Graph& graph);

/// The connected components, each ascending, in order of their smallest vertex.
std::vector<std::vector<size_t>> components(const Graph& graph);

/// What an exact search may spend: the limits, counted from `start`, with nodes shared by every
/// search that uses the same budget.
struct Budget {
  SolveLimits limits;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  int64_t nodes = 0; ///< search nodes so far
};

/// The outcome of colourComponent.
struct ComponentResult {
  int span = 0;          ///< span of the best colouring of the component (over its vertices)
  bool finished = false; ///< false: a limit stopped the search before its proof
};

/// DSatur branch and bound on one connected component of `graph`. `colours` holds a complete
/// colouring (of at least this component, preassigned vertices at their colour): the incumbent.
/// The search looks for a colouring of the component with a smaller span and stops at the first
/// with span <= goal (so goal = the clique bound proves the optimum, goal = a limit asks for any
/// fit), writing the best found back into `colours`. Finished means the span is optimal for the
/// component or <= goal.
ComponentResult colourComponent(const Graph& graph, const std::vector<size_t>& component,
                                const std::vector<int>& preassigned, int goal,
                                std::vector<int>& colours, Budget& budget);

} // namespace ttlplan::planner::colouring
