// The first-fit- and best-fit-decreasing baselines and the live-bytes bound, on hand-made cases.
#include "ttlplan/planner/l1/Baselines.h"

#include <gtest/gtest.h>

using namespace ttlplan::planner;
using namespace ttlplan::planner::l1;

TEST(L1Baselines, LiveBytesIsHalfOpen) {
  Problem p;
  p.buffers = {{"a", 0, 2, 4, 1}, {"b", 2, 4, 4, 1}, {"c", 1, 3, 3, 1}};
  LiveBytes busiest = maxLiveBytes(p);
  EXPECT_EQ(busiest.bytes, 7); // a + c at 1, b + c at 2; a and b never together
  EXPECT_EQ(busiest.time, 1);
  std::vector<size_t> ab = {0, 1};
  EXPECT_EQ(maxLiveBytes(p, ab).bytes, 4);
  EXPECT_EQ(maxLiveBytes(Problem{}).bytes, 0);
}

TEST(L1Baselines, FirstFitDecreasingHandCase) {
  Problem p;
  p.buffers = {{"c", 2, 4, 2, 1}, {"a", 0, 2, 4, 1}, {"b", 1, 3, 3, 1}};
  Result r = firstFitDecreasing(p);
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->offsets, (std::vector<int64_t>{0, 0, 4}));
  EXPECT_EQ(r.solution->peak, 7);
  EXPECT_EQ(r.lowerBound, 7);
  EXPECT_EQ(r.status, SolveStatus::Optimal); // the peak meets the live-bytes bound
  EXPECT_EQ(r.stats.solver, "first-fit-decreasing");
}

TEST(L1Baselines, SizeTiesBreakById) {
  Problem p;
  p.buffers = {{"z", 0, 1, 4, 1}, {"y", 0, 1, 4, 1}};
  Result r = firstFitDecreasing(p);
  ASSERT_TRUE(r.solution);
  EXPECT_EQ(r.solution->offsets, (std::vector<int64_t>{4, 0}));
}

TEST(L1Baselines, FirstFitTakesTheLowestGapBestFitTheTightest) {
  Problem p;
  p.buffers = {{"X", 0, 1, 3, 1},
               {"Y", 0, 3, 1, 1},
               {"U", 0, 1, 1, 1},
               {"V", 0, 3, 2, 1},
               {"S", 1, 2, 1, 1}};
  std::vector<size_t> order = {0, 1, 2, 3, 4};
  Solution first = placeInOrder(p, order, Fit::First);
  Solution best = placeInOrder(p, order, Fit::Best);
  EXPECT_EQ(first.offsets, (std::vector<int64_t>{0, 3, 4, 5, 0}));
  EXPECT_EQ(best.offsets, (std::vector<int64_t>{0, 3, 4, 5, 4}));
  EXPECT_EQ(validate(p, first), Validity::Valid);
  EXPECT_EQ(validate(p, best), Validity::Valid);
}

TEST(L1Baselines, AlignmentIsRespected) {
  Problem p;
  p.buffers = {{"a", 0, 2, 5, 1}, {"b", 0, 2, 3, 16}};
  for (Result r : {firstFitDecreasing(p), bestFitDecreasing(p)}) {
    ASSERT_TRUE(r.solution);
    EXPECT_EQ(r.solution->offsets, (std::vector<int64_t>{0, 16}));
    EXPECT_EQ(r.solution->peak, 19);
    EXPECT_EQ(r.status, SolveStatus::Feasible); // 19 > 8 live bytes: not proven
    EXPECT_EQ(r.lowerBound, 8);
  }
}

TEST(L1Baselines, OverCapacityIsNoSolutionNotInfeasible) {
  Problem p;
  p.capacity = 18;
  p.buffers = {{"a", 0, 2, 5, 1}, {"b", 0, 2, 3, 16}};
  Result r = firstFitDecreasing(p);
  EXPECT_EQ(r.status, SolveStatus::NoSolution);
  EXPECT_FALSE(r.solution);
  EXPECT_NE(r.message.find("proves nothing"), std::string::npos);
}
