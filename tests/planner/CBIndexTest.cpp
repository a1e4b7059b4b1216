// CB index colouring: hand-made cases (first-fit weakness, infeasibility reports, validator).
#include "ttlplan/planner/cbindex/Solve.h"

#include <gtest/gtest.h>

namespace ttlplan::planner::cbindex {
namespace {

Problem intervals(std::vector<std::pair<int64_t, int64_t>> spans, int limit = 32) {
  Problem p;
  p.limit = limit;
  for (size_t i = 0; i < spans.size(); ++i)
    p.cbs.push_back({"cb" + std::to_string(i), spans[i].first, spans[i].second, -1});
  return p;
}

Problem list(size_t n, std::vector<std::pair<size_t, size_t>> edges, int limit = 32) {
  Problem p;
  p.limit = limit;
  p.source = ConflictSource::List;
  for (size_t i = 0; i < n; ++i)
    p.cbs.push_back({"cb" + std::to_string(i), 0, 0, -1});
  p.conflicts = std::move(edges);
  return p;
}

TEST(CBIndex, EmptyProblemIsOptimalWithNoIndices) {
  Result r = solve(Problem{});
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->colours, 0);
  EXPECT_EQ(validate(Problem{}, *r.solution), Validity::Valid);
}

TEST(CBIndex, OverlappingIntervalsGetDistinctIndices) {
  Problem p = intervals({{0, 4}, {1, 3}, {2, 6}, {4, 8}, {6, 9}});
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->colours, 3);
  EXPECT_EQ(r.lowerBound, 3);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
}

TEST(CBIndex, FirstFitInProgramOrderCanWasteIndicesOnIntervals) {
  // A path B - A - C - D of intervals listed as B, D, A, C. First fit: B=0, D=0, A=1, C=2.
  // Optimal: 2.
  Problem p = intervals({{0, 2}, {5, 8}, {1, 4}, {3, 6}});
  Solution ff = firstFit(p);
  EXPECT_EQ(ff.colours, 3);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->colours, 2);
  EXPECT_EQ(r.stats.solver, "interval");
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
}

TEST(CBIndex, FirstFitOnPathInBadOrderNeedsThreeExactNeedsTwo) {
  // Path 0-2-3-1: first fit gives 0 and 1 index 0, then 2 gets 1 and 3 (next to both) gets 2.
  Problem q = list(4, {{0, 2}, {2, 3}, {3, 1}});
  Solution ff = firstFit(q);
  EXPECT_EQ(ff.colours, 3);
  EXPECT_EQ(validate(q, ff), Validity::Valid);
  Result r = solve(q);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->colours, 2);
  EXPECT_LE(r.solution->colours, ff.colours);
}

TEST(CBIndex, TooManyLiveTogetherNamesTheCbsAtTheBusiestStep) {
  // 33 CBs live at step 10, plus CBs that end before it and start after it.
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (int i = 0; i < 33; ++i)
    spans.emplace_back(i % 5, 11 + i % 3);
  spans.emplace_back(0, 1);   // cb33: gone before the others all start
  spans.emplace_back(11, 20); // cb34: starts after
  Problem p = intervals(spans, 32);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Infeasible);
  ASSERT_TRUE(r.infeasibility);
  EXPECT_EQ(r.infeasibility->reason, InfeasibleReason::TooManyLiveTogether);
  EXPECT_EQ(r.infeasibility->cbs.size(), 33u);
  EXPECT_EQ(r.infeasibility->needed, 33);
  ASSERT_TRUE(r.infeasibility->time);
  for (size_t cb : r.infeasibility->cbs) {
    EXPECT_LT(cb, 33u);
    EXPECT_LE(p.cbs[cb].lower, *r.infeasibility->time);
    EXPECT_LT(*r.infeasibility->time, p.cbs[cb].upper);
  }
  EXPECT_NE(r.message.find("cb32"), std::string::npos);
  EXPECT_EQ(r.message.find("cb33"), std::string::npos);
  // On Blackhole's 64 indices the same program fits.
  p.limit = 64;
  Result ok = solve(p);
  ASSERT_EQ(ok.status, SolveStatus::Optimal);
  EXPECT_EQ(ok.solution->colours, 33);
}

TEST(CBIndex, CliqueInConflictListIsReported) {
  // K5 on CBs 1..5 plus a pendant; limit 4.
  std::vector<std::pair<size_t, size_t>> edges{{0, 1}};
  for (size_t a = 1; a <= 5; ++a)
    for (size_t b = a + 1; b <= 5; ++b)
      edges.emplace_back(a, b);
  Problem p = list(6, edges, 4);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_EQ(r.infeasibility->reason, InfeasibleReason::TooManyLiveTogether);
  EXPECT_EQ(r.infeasibility->cbs, (std::vector<size_t>{1, 2, 3, 4, 5}));
  EXPECT_FALSE(r.infeasibility->time);
}

TEST(CBIndex, OddCycleNeedsThreeWithoutATriangle) {
  // C5 needs 3 colours though its largest clique is 2; cb5 is isolated and not blamed.
  Problem p = list(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}}, 2);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_EQ(r.infeasibility->reason, InfeasibleReason::NoColouringWithinLimit);
  EXPECT_EQ(r.infeasibility->cbs, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(r.infeasibility->needed, 3);
  p.limit = 3;
  Result ok = solve(p);
  ASSERT_EQ(ok.status, SolveStatus::Optimal);
  EXPECT_EQ(ok.solution->colours, 3);
}

TEST(CBIndex, PreassignmentsAreKeptAndCanForceInfeasibility) {
  // A [0,2) = 0 and C [2,4) = 1 pre-assigned; B [1,3) meets both, so needs index 2.
  Problem p = intervals({{0, 2}, {1, 3}, {2, 4}}, 3);
  p.cbs[0].preassigned = 0;
  p.cbs[2].preassigned = 1;
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->indices, (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  p.limit = 2; // the clique is only 2, but the pre-assignments force a third index
  Result bad = solve(p);
  ASSERT_EQ(bad.status, SolveStatus::Infeasible);
  EXPECT_EQ(bad.infeasibility->reason, InfeasibleReason::NoColouringWithinLimit);
  EXPECT_EQ(bad.infeasibility->cbs, (std::vector<size_t>{0, 1, 2}));
}

TEST(CBIndex, PreassignedOutOfRangeAndClashAreInfeasible) {
  Problem p = intervals({{0, 2}, {1, 3}, {5, 6}}, 4);
  p.cbs[2].preassigned = 4;
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_EQ(r.infeasibility->reason, InfeasibleReason::PreassignedOutOfRange);
  EXPECT_EQ(r.infeasibility->cbs, (std::vector<size_t>{2}));
  p.cbs[2].preassigned = -1;
  p.cbs[0].preassigned = 1;
  p.cbs[1].preassigned = 1;
  Result clash = solve(p);
  ASSERT_EQ(clash.status, SolveStatus::Infeasible);
  EXPECT_EQ(clash.infeasibility->reason, InfeasibleReason::PreassignedClash);
  EXPECT_EQ(clash.infeasibility->cbs, (std::vector<size_t>{0, 1}));
}

TEST(CBIndex, MalformedProblemsAreErrorsNotExceptions) {
  Problem empty = intervals({{3, 3}});
  EXPECT_EQ(solve(empty).status, SolveStatus::Error);
  EXPECT_TRUE(firstFit(empty).indices.empty());
  Problem badEdge = list(2, {{0, 2}});
  EXPECT_EQ(solve(badEdge).status, SolveStatus::Error);
  Problem self = list(2, {{1, 1}});
  EXPECT_EQ(solve(self).status, SolveStatus::Error);
  Problem noLimit = intervals({{0, 1}}, 0);
  EXPECT_EQ(solve(noLimit).status, SolveStatus::Error);
  EXPECT_EQ(validate(noLimit, Solution{{0}, 1}), Validity::InvalidProblem);
}

TEST(CBIndex, ValidatorNamesWhatIsWrong) {
  Problem p = intervals({{0, 2}, {1, 3}, {4, 5}}, 2);
  p.cbs[2].preassigned = 1;
  EXPECT_EQ(validate(p, Solution{{0, 1, 1}, 2}), Validity::Valid);
  EXPECT_EQ(validate(p, Solution{{0, 1}, 2}), Validity::WrongIndexCount);
  EXPECT_EQ(validate(p, Solution{{0, 2, 1}, 3}), Validity::IndexOutOfRange);
  EXPECT_EQ(validate(p, Solution{{-1, 0, 1}, 2}), Validity::IndexOutOfRange);
  EXPECT_EQ(validate(p, Solution{{1, 1, 1}, 2}), Validity::SharedIndex);
  EXPECT_EQ(validate(p, Solution{{0, 1, 0}, 2}), Validity::PreassignmentChanged);
  EXPECT_EQ(validate(p, Solution{{0, 1, 1}, 1}), Validity::WrongColourCount);
  Problem q = list(3, {{0, 2}}, 4);
  EXPECT_EQ(validate(q, Solution{{0, 0, 1}, 2}), Validity::Valid);
  EXPECT_EQ(validate(q, Solution{{1, 0, 1}, 2}), Validity::SharedIndex);
}

TEST(CBIndex, FitLimitTakesFirstFitWhenItFits) {
  Problem p = intervals({{0, 2}, {5, 8}, {1, 4}, {3, 6}}, 32);
  Result r = solve(p, SolveParams{Objective::FitLimit});
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.stats.solver, "first-fit");
  EXPECT_EQ(r.solution->colours, 3);
  Result exact = solveExact(p);
  EXPECT_EQ(exact.solution->colours, 2);
}

TEST(CBIndex, NodeLimitGivesAValidPlanOrNoSolution) {
  // Mycielski-like hard-ish graph: the Grötzsch graph (11 vertices, chromatic 4, triangle-free).
  std::vector<std::pair<size_t, size_t>> edges{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}};
  for (size_t i = 0; i < 5; ++i) {
    edges.emplace_back(5 + i, (i + 1) % 5);
    edges.emplace_back(5 + i, (i + 4) % 5);
    edges.emplace_back(5 + i, 10);
  }
  Problem p = list(11, edges, 4);
  Result full = solveExact(p);
  ASSERT_EQ(full.status, SolveStatus::Optimal);
  EXPECT_EQ(full.solution->colours, 4);
  EXPECT_GT(full.stats.nodes, 1);
  Result cut = solveExact(p, {}, SolveLimits{0, 1});
  ASSERT_TRUE(cut.status == SolveStatus::Feasible || cut.status == SolveStatus::NoSolution);
  if (cut.solution) {
    EXPECT_EQ(validate(p, *cut.solution), Validity::Valid);
  }
  p.limit = 3;
  Result no = solve(p);
  ASSERT_EQ(no.status, SolveStatus::Infeasible);
  EXPECT_EQ(no.infeasibility->reason, InfeasibleReason::NoColouringWithinLimit);
  EXPECT_EQ(no.infeasibility->cbs.size(), 11u);
}

} // namespace
} // namespace ttlplan::planner::cbindex
