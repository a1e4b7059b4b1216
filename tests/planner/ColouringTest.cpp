// The graph-colouring module behind CB indices, semaphore ids and DST slots, on hand-built graphs
// whose chromatic numbers are known by construction. Each colouring is checked by `proper`, written
// here independently of the module.
#include "ttlplan/planner/colouring/Colouring.h"

#include <gtest/gtest.h>

namespace ttlplan::planner::colouring {
namespace {

/// Every vertex coloured (>= 0) and no edge joins two vertices of one colour.
bool proper(const std::vector<std::pair<size_t, size_t>>& edges, const std::vector<int>& colours) {
  for (int c : colours)
    if (c < 0) return false;
  for (auto [a, b] : edges)
    if (colours.at(a) == colours.at(b)) return false;
  return true;
}

std::vector<std::pair<size_t, size_t>> cycle(size_t n) {
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t v = 0; v < n; ++v)
    edges.emplace_back(v, (v + 1) % n);
  return edges;
}

/// The Grötzsch graph (Mycielski's construction on the 5-cycle): triangle-free, chromatic
/// number 4. Vertices 0-4 the cycle, 5-9 their shadows, 10 the apex.
std::vector<std::pair<size_t, size_t>> grotzsch() {
  std::vector<std::pair<size_t, size_t>> edges = cycle(5);
  for (size_t v = 0; v < 5; ++v) {
    edges.emplace_back(5 + v, (v + 1) % 5); // shadow of v joins v's cycle neighbours
    edges.emplace_back(5 + v, (v + 4) % 5);
    edges.emplace_back(5 + v, 10);
  }
  return edges;
}

/// The crown graph on 2n vertices in the order u0, v0, u1, v1, ...: u_i joins every v_j, j != i.
/// Bipartite (2 colours), but first fit in this order needs n.
std::vector<std::pair<size_t, size_t>> crown(size_t n) {
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j) edges.emplace_back(2 * i, 2 * j + 1);
  return edges;
}

TEST(Colouring, FromEdgesSortsAndDropsSelfLoopsDuplicatesAndStrangers) {
  Graph graph = fromEdges(3, {{2, 0}, {0, 2}, {1, 1}, {0, 1}, {0, 7}});
  EXPECT_EQ(graph, (Graph{{1, 2}, {0}, {0}}));
}

TEST(Colouring, IntervalGraphJoinsIntersectingHalfOpenIntervals) {
  // [0,2) and [2,4) only touch; [1,3) meets both; the empty interval meets nothing.
  Graph graph = fromIntervals({{0, 2}, {2, 4}, {1, 3}, {5, 5}});
  EXPECT_EQ(graph, (Graph{{2}, {2}, {0, 1}, {}}));
}

TEST(Colouring, BusiestPointIsAMaximumClique) {
  // Live counts by hand: point 0: 2, 1: 3 (0, 1, 4), 2: 3, 3: 3, 4: 2.
  Busiest busiest = busiestPoint({{0, 2}, {1, 3}, {2, 4}, {3, 5}, {0, 5}});
  EXPECT_EQ(busiest.point, 1);
  EXPECT_EQ(busiest.members, (std::vector<size_t>{0, 1, 4}));
}

TEST(Colouring, IntervalColouringUsesTheBusiestPointsCountAndReusesFreedColours) {
  std::vector<Interval> intervals{{0, 2}, {1, 3}, {2, 4}, {3, 5}, {0, 5}, {7, 7}};
  std::vector<int> colours = colourIntervals(intervals);
  EXPECT_EQ(span(colours), 3);
  EXPECT_EQ(colours[5], -1) << "an empty interval is never live";
  colours.pop_back();
  std::vector<std::pair<size_t, size_t>> edges;
  Graph graph = fromIntervals(intervals);
  for (size_t v = 0; v < 5; ++v)
    for (size_t u : graph[v])
      edges.emplace_back(v, u);
  EXPECT_TRUE(proper(edges, colours));
  // By start: 0 and 4 start at 0 (colours 0, 1), 1 at 1 (2); 2 starts when 0 ends and takes 0.
  EXPECT_EQ(colours, (std::vector<int>{0, 2, 0, 2, 1}));
}

TEST(Colouring, FirstFitFollowsVertexOrderAndDSaturDoesNot) {
  const auto edges = crown(4);
  Graph graph = fromEdges(8, edges);
  std::vector<int> ff = firstFit(graph, std::vector<int>(8, -1));
  std::vector<int> ds = dsatur(graph, std::vector<int>(8, -1));
  EXPECT_TRUE(proper(edges, ff));
  EXPECT_TRUE(proper(edges, ds));
  EXPECT_EQ(span(ff), 4);
  EXPECT_EQ(span(ds), 2);
}

TEST(Colouring, GreedyColouringsKeepPreassignedColours) {
  // Path 0 - 1 - 2 with vertex 1 fixed at 2: the ends take 0.
  Graph graph = fromEdges(3, {{0, 1}, {1, 2}});
  for (const std::vector<int>& colours : {firstFit(graph, {-1, 2, -1}), dsatur(graph, {-1, 2, -1})})
    EXPECT_EQ(colours, (std::vector<int>{0, 2, 0}));
}

TEST(Colouring, ExactSearchImprovesABadIncumbentToTheOptimum) {
  const auto edges = crown(4);
  Graph graph = fromEdges(8, edges);
  std::vector<int> colours = firstFit(graph, std::vector<int>(8, -1));
  Budget budget;
  ComponentResult result =
      colourComponent(graph, components(graph).at(0), std::vector<int>(8, -1), 2, colours, budget);
  EXPECT_TRUE(result.finished);
  EXPECT_EQ(result.span, 2);
  EXPECT_EQ(span(colours), 2);
  EXPECT_TRUE(proper(edges, colours));
  EXPECT_GT(budget.nodes, 0);
}

TEST(Colouring, ExactSearchProvesTheGrotzschGraphNeedsFourThoughItsCliquesHaveTwo) {
  const auto edges = grotzsch();
  Graph graph = fromEdges(11, edges);
  EXPECT_EQ(greedyClique(graph).size(), 2u);
  std::vector<int> colours = dsatur(graph, std::vector<int>(11, -1));
  Budget budget;
  // Goal 2 (the clique bound) cannot be met: a finished search proves the span it returns.
  ComponentResult result =
      colourComponent(graph, components(graph).at(0), std::vector<int>(11, -1), 2, colours, budget);
  EXPECT_TRUE(result.finished);
  EXPECT_EQ(result.span, 4);
  EXPECT_TRUE(proper(edges, colours));
}

TEST(Colouring, ExactSearchHonoursPreassignments) {
  // The 5-cycle needs 3 colours; vertex 0 fixed at 2 must keep it while the search tries for 2.
  const auto edges = cycle(5);
  Graph graph = fromEdges(5, edges);
  std::vector<int> preassigned{2, -1, -1, -1, -1};
  std::vector<int> colours = firstFit(graph, preassigned);
  Budget budget;
  ComponentResult result = colourComponent(graph, {0, 1, 2, 3, 4}, preassigned, 2, colours, budget);
  EXPECT_TRUE(result.finished);
  EXPECT_EQ(result.span, 3);
  EXPECT_EQ(colours[0], 2);
  EXPECT_TRUE(proper(edges, colours));
}

TEST(Colouring, ANodeLimitStopsTheSearchAndKeepsAProperIncumbent) {
  const auto edges = grotzsch();
  Graph graph = fromEdges(11, edges);
  std::vector<int> colours = firstFit(graph, std::vector<int>(11, -1));
  const int before = span(colours);
  Budget budget;
  budget.limits.nodeLimit = 1;
  ComponentResult result =
      colourComponent(graph, components(graph).at(0), std::vector<int>(11, -1), 2, colours, budget);
  EXPECT_FALSE(result.finished);
  EXPECT_LE(span(colours), before);
  EXPECT_TRUE(proper(edges, colours));
}

TEST(Colouring, ComponentsComeInOrderOfTheirSmallestVertex) {
  Graph graph = fromEdges(7, {{4, 5}, {5, 6}, {6, 4}, {0, 2}, {2, 3}});
  EXPECT_EQ(components(graph), (std::vector<std::vector<size_t>>{{0, 2, 3}, {1}, {4, 5, 6}}));
}

} // namespace
} // namespace ttlplan::planner::colouring
