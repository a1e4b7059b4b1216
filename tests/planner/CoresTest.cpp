// Core assignment: split_work_to_cores by hand, where the optimum differs, non-uniform costs,
// fixed core counts, the auto grid, and the validator's outcomes.
#include "ttlplan/planner/cores/Solve.h"

#include <gtest/gtest.h>

namespace ttlplan::planner::cores {
namespace {

TEST(Cores, SplitWorkToCoresOnEightByEightWithAHundredUnits) {
  // target = min(100, 64) = 64, q = 1, r = 36: 36 cores take 2 units, 28 take 1.
  Solution s = splitWorkToCores({8, 8}, 100);
  ASSERT_EQ(s.ranges.size(), 64u);
  int twos = 0, ones = 0;
  for (const Range& r : s.ranges)
    (r.count == 2 ? twos : ones) += 1;
  EXPECT_EQ(twos, 36);
  EXPECT_EQ(ones, 28);
  EXPECT_EQ(s.ranges[35], (Range{70, 2}));
  EXPECT_EQ(s.ranges[36], (Range{72, 1}));
  EXPECT_EQ(s.makespan, 2);
  EXPECT_EQ(s.coresUsed, 64);
  Problem p{100, {8, 8}, false, {}, 0};
  EXPECT_EQ(validate(p, s), Validity::Valid);
}

TEST(Cores, SameMakespanOnFewerCoresThanTheBaseline) {
  Problem p{100, {8, 8}, false, {}, 0};
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  EXPECT_EQ(r.solution->makespan, 2);
  EXPECT_EQ(r.solution->coresUsed, 50);
  EXPECT_EQ(explainDifference(*r.solution, splitWorkToCores({8, 8}, 100)),
            "same makespan 2 on 50 cores instead of 64");
  // 128 units: both give 2 per core on all 64 cores.
  Problem q{128, {8, 8}, false, {}, 0};
  EXPECT_EQ(explainDifference(*solve(q).solution, splitWorkToCores({8, 8}, 128)), "");
}

TEST(Cores, FewerUnitsThanCoresLeavesCoresIdle) {
  Solution s = splitWorkToCores({2, 4}, 3);
  EXPECT_EQ(s.coresUsed, 3);
  EXPECT_EQ(s.ranges[3], (Range{3, 0}));
  Result r = solve(Problem{3, {2, 4}, false, {}, 0});
  EXPECT_EQ(*r.solution, s);
}

TEST(Cores, NonUniformCostsUseTheExactContiguousPartition) {
  // [5 | 5 1 1 1 1] costs at most 9; the baseline's equal counts give [5 5 1] = 11.
  Problem p{6, {1, 2}, false, {5, 5, 1, 1, 1, 1}, 0};
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  EXPECT_EQ(r.solution->makespan, 9);
  EXPECT_EQ(r.solution->ranges[0], (Range{0, 1}));
  Solution base = splitWorkToCores({1, 2}, 6, p.costs);
  EXPECT_EQ(base.makespan, 11);
  EXPECT_EQ(explainDifference(*r.solution, base), "makespan 9 instead of 11 on the same 2 cores");
}

TEST(Cores, OneExpensiveItemBoundsTheMakespan) {
  Problem p{5, {2, 2}, false, {10, 1, 1, 1, 1}, 0};
  Result r = solve(p);
  EXPECT_EQ(r.solution->makespan, 10);
  EXPECT_EQ(r.solution->coresUsed, 2); // [10] [1 1 1 1]
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
}

TEST(Cores, FixedCoreCount) {
  Problem p{10, {8, 8}, false, {}, 4};
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->coresUsed, 4);
  EXPECT_EQ(r.solution->makespan, 3);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  Problem costs{6, {8, 8}, false, {0, 0, 9, 0, 0, 0}, 5};
  r = solve(costs);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->coresUsed, 5);
  EXPECT_EQ(r.solution->makespan, 9);
  EXPECT_EQ(validate(costs, *r.solution), Validity::Valid);
  EXPECT_EQ(solve(Problem{10, {8, 8}, false, {}, 65}).status, SolveStatus::Infeasible);
  EXPECT_EQ(solve(Problem{10, {8, 8}, false, {}, 11}).status, SolveStatus::Infeasible);
}

TEST(Cores, AutoGridPrefersFullRowsWithTheFewestIdleCores) {
  EXPECT_EQ(chooseGrid(50, {8, 8}), (Grid{7, 8}));
  EXPECT_EQ(chooseGrid(64, {8, 8}), (Grid{8, 8}));
  EXPECT_EQ(chooseGrid(12, {8, 8}), (Grid{2, 6}));
  EXPECT_EQ(chooseGrid(5, {8, 8}), (Grid{1, 5}));
  EXPECT_EQ(chooseGrid(9, {10, 13}), (Grid{1, 9}));
  EXPECT_EQ(chooseGrid(14, {10, 13}), (Grid{2, 7}));
  Problem p{100, {8, 8}, true, {}, 0};
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->grid, (Grid{7, 8}));
  EXPECT_EQ(r.solution->ranges.size(), 56u);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  EXPECT_EQ(explainDifference(*r.solution, splitWorkToCores({8, 8}, 100)),
            "same makespan 2 on 50 cores instead of 64, grid 7x8 instead of 8x8");
}

TEST(Cores, BadInputIsAnError) {
  EXPECT_EQ(solve(Problem{0, {8, 8}, false, {}, 0}).status, SolveStatus::Error);
  EXPECT_EQ(solve(Problem{3, {0, 8}, false, {}, 0}).status, SolveStatus::Error);
  EXPECT_EQ(solve(Problem{3, {8, 8}, false, {1, 2}, 0}).status, SolveStatus::Error);
  EXPECT_EQ(solve(Problem{2, {8, 8}, false, {1, -2}, 0}).status, SolveStatus::Error);
  // 50000 x 50000 overflows int and would need 2.5e9 ranges: refused, not crashed.
  EXPECT_EQ(solve(Problem{2, {50000, 50000}, false, {}, 0}).status, SolveStatus::Error);
}

TEST(Cores, ValidatorCatchesEachMistake) {
  Problem p{10, {1, 4}, false, {}, 0};
  const Solution good = *solve(p).solution; // 3 3 2 2
  auto check = [&](Validity expected, auto mutate) {
    Solution s = good;
    mutate(s);
    EXPECT_EQ(validate(p, s), expected) << toString(expected);
  };
  check(Validity::Valid, [](Solution&) {});
  check(Validity::GridOutsideDevice, [](Solution& s) { s.grid = {2, 2}; });
  check(Validity::WrongRangeCount, [](Solution& s) { s.ranges.pop_back(); });
  check(Validity::BadRange, [](Solution& s) { s.ranges[3].count = 5; });
  check(Validity::Overlap, [](Solution& s) { s.ranges[1].start = 2; });
  check(Validity::NotCovered, [](Solution& s) { s.ranges[3].count = 1; });
  check(Validity::WrongMakespan, [](Solution& s) { s.makespan = 2; });
  check(Validity::WrongCoresUsed, [](Solution& s) { s.coresUsed = 3; });
  Problem autoGrid = p;
  autoGrid.autoGrid = true;
  check(Validity::Valid, [](Solution&) {});
  EXPECT_EQ(validate(autoGrid, good), Validity::Valid);
  Solution tooBig = good;
  tooBig.grid = {1, 5};
  EXPECT_EQ(validate(autoGrid, tooBig), Validity::GridOutsideDevice);
  EXPECT_EQ(validate(Problem{10, {1, 4}, false, {}, 3}, good), Validity::WrongCoresUsed);
  EXPECT_EQ(validate(Problem{0, {1, 4}, false, {}, 0}, good), Validity::InvalidProblem);
}

} // namespace
} // namespace ttlplan::planner::cores
