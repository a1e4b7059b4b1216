// search::paretoFront on hand-built point sets, and against its definition on random ones: a point
// is on the front when no other point is at least as good in both predicted time and L1 bytes and
// better in one; of equal points only the first; the front ordered by L1 bytes.
#include "ttlplan/search/Tuner.h"

#include <gtest/gtest.h>
#include <random>

namespace ttlplan::search {
namespace {

std::vector<PointSummary> points(std::initializer_list<std::pair<double, int64_t>> timeAndBytes) {
  std::vector<PointSummary> out;
  for (const auto& [ns, bytes] : timeAndBytes)
    out.push_back({ns, bytes, "compute"});
  return out;
}

/// The front by its definition, O(n^2), in the order paretoFront promises.
std::vector<size_t> bruteForceFront(const std::vector<PointSummary>& p) {
  std::vector<size_t> front;
  for (size_t i = 0; i < p.size(); ++i) {
    bool beaten = false;
    for (size_t j = 0; j < p.size() && !beaten; ++j) {
      if (j == i) continue;
      const bool noWorse = p[j].predictedNs <= p[i].predictedNs && p[j].l1Bytes <= p[i].l1Bytes;
      const bool better = p[j].predictedNs < p[i].predictedNs || p[j].l1Bytes < p[i].l1Bytes;
      const bool earlierTwin = !better && j < i;
      beaten = noWorse && (better || earlierTwin);
    }
    if (!beaten) front.push_back(i);
  }
  std::stable_sort(front.begin(), front.end(),
                   [&](size_t a, size_t b) { return p[a].l1Bytes < p[b].l1Bytes; });
  return front;
}

TEST(ParetoFront, HandBuiltSets) {
  EXPECT_TRUE(paretoFront({}).empty());
  EXPECT_EQ(paretoFront(points({{5, 100}})), (std::vector<size_t>{0}));
  // A staircase, given out of order: every point trades time for bytes.
  EXPECT_EQ(paretoFront(points({{10, 300}, {30, 100}, {20, 200}})), (std::vector<size_t>{1, 2, 0}));
  // One point beats the rest in both.
  EXPECT_EQ(paretoFront(points({{10, 300}, {5, 100}, {20, 200}})), (std::vector<size_t>{1}));
  // Equal time, more bytes: dominated. Equal bytes, slower: dominated.
  EXPECT_EQ(paretoFront(points({{10, 100}, {10, 200}, {12, 100}})), (std::vector<size_t>{0}));
  // Equal points: the first only.
  EXPECT_EQ(paretoFront(points({{7, 50}, {9, 10}, {7, 50}})), (std::vector<size_t>{1, 0}));
}

TEST(ParetoFront, MatchesItsDefinitionOnRandomSets) {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<int> size(0, 40), small(0, 12);
  for (int t = 0; t < 2000; ++t) {
    std::vector<PointSummary> p;
    const int n = size(rng);
    for (int i = 0; i < n; ++i) // small ranges: many ties in each coordinate
      p.push_back({double(small(rng)), int64_t(small(rng)) * 1024, "compute"});
    ASSERT_EQ(paretoFront(p), bruteForceFront(p)) << "set " << t;
  }
}

} // namespace
} // namespace ttlplan::search
