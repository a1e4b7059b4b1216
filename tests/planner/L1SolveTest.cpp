// planner::l1::solve: solver names, input checks, ILP back ends, and the infeasibility report.
#include "ttlplan/planner/l1/Baselines.h"
#include "ttlplan/planner/l1/IlpSolvers.h"
#include "ttlplan/planner/l1/RandomProblems.h"
#include "ttlplan/planner/l1/Solve.h"

#include <gtest/gtest.h>
#include <thread>

using namespace ttlplan::planner;
using namespace ttlplan::planner::l1;

namespace {

const L1Solver kIlps[] = {L1Solver::Cbc, L1Solver::Glpk};

} // namespace

TEST(L1Solve, SolverNames) {
  for (L1Solver solver : allL1Solvers()) {
    auto parsed = parseL1Solver(toString(solver));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, solver);
  }
  auto bad = parseL1Solver("greedy");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "unknown L1 solver 'greedy'; valid solvers are exact, cbc, "
                                 "glpk, first-fit-decreasing, best-fit-decreasing");
}

TEST(L1Solve, MalformedInputIsAnError) {
  Problem p;
  p.buffers = {{"a", 0, 2, 4, 1}, {"b", 3, 3, 4, 1}};
  for (L1Solver solver : allL1Solvers()) {
    Result r = solve(p, solver);
    EXPECT_EQ(r.status, SolveStatus::Error);
    EXPECT_EQ(r.message, "buffer 'b' (#1) has upper 3 <= lower 3");
    EXPECT_FALSE(r.solution);
  }
  p.buffers = {{"a", 0, 2, INT64_MAX / 2, 1}, {"b", 0, 2, INT64_MAX / 2, 1}};
  EXPECT_EQ(solve(p, L1Solver::FirstFitDecreasing).status, SolveStatus::Error);
  p.buffers.clear();
  p.capacity = -5;
  EXPECT_EQ(solve(p, L1Solver::Cbc).message, "capacity -5 is negative");
}

TEST(L1Solve, EmptyProblemIsOptimalAtZero) {
  for (L1Solver solver :
       {L1Solver::Cbc, L1Solver::Glpk, L1Solver::FirstFitDecreasing, L1Solver::BestFitDecreasing}) {
    Result r = solve(Problem{}, solver);
    EXPECT_EQ(r.status, SolveStatus::Optimal) << toString(solver);
    ASSERT_TRUE(r.solution);
    EXPECT_EQ(r.solution->peak, 0);
  }
}

TEST(L1Solve, IlpsAgreeOnAHandInstance) {
  // A mixed instance (one aligned buffer): both ILPs prove the same optimum, which lies between
  // the live-bytes bound and the first-fit-decreasing peak.
  Problem p;
  p.buffers = {{"a", 0, 2, 4, 1}, {"b", 1, 4, 3, 1}, {"c", 2, 5, 3, 1}, {"d", 0, 1, 2, 1},
               {"e", 3, 6, 4, 1}, {"f", 4, 6, 2, 1}, {"g", 1, 3, 2, 4}};
  Result ffd = solve(p, L1Solver::FirstFitDecreasing);
  ASSERT_TRUE(ffd.solution);
  for (L1Solver solver : kIlps) {
    Result r = solve(p, solver);
    ASSERT_EQ(r.status, SolveStatus::Optimal) << toString(solver) << ": " << r.message;
    EXPECT_EQ(r.lowerBound, r.solution->peak);
    EXPECT_LE(r.solution->peak, ffd.solution->peak);
    EXPECT_GE(r.solution->peak, maxLiveBytes(p).bytes);
    EXPECT_EQ(r.stats.solver, toString(solver));
  }
  EXPECT_EQ(solve(p, L1Solver::Cbc).solution->peak, solve(p, L1Solver::Glpk).solution->peak);
}

TEST(L1Solve, InfeasibleByLiveBytesNamesTheShortfallAndBlockingSet) {
  // Worked by hand: live bytes are a+c = 70 at 0, a+b+c = 120 at 1, b+c = 60 at 2, d = 30 at 5.
  // a, b, c are pairwise live together, so the smallest capacity is 60 + 50 + 10 = 120: short
  // by 20. Deletion at time 1, smallest first: dropping c leaves 110 > 100 (drop it); dropping b
  // leaves 60 (keep); dropping a leaves 50 (keep). Blocking set {a, b}: 110 B at time 1.
  Problem p;
  p.capacity = 100;
  p.buffers = {{"a", 0, 2, 60, 1}, {"b", 1, 3, 50, 1}, {"c", 0, 4, 10, 1}, {"d", 5, 6, 30, 1}};
  for (L1Solver solver :
       {L1Solver::Cbc, L1Solver::Glpk, L1Solver::FirstFitDecreasing, L1Solver::BestFitDecreasing}) {
    Result r = solve(p, solver);
    ASSERT_EQ(r.status, SolveStatus::Infeasible) << toString(solver);
    EXPECT_FALSE(r.solution);
    ASSERT_TRUE(r.infeasibility);
    EXPECT_EQ(r.infeasibility->smallestCapacity, 120);
    EXPECT_EQ(r.infeasibility->blockingBuffers, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(r.infeasibility->blockingBytes, 110);
    EXPECT_EQ(r.lowerBound, 120);
    if (solver == L1Solver::Cbc || solver == L1Solver::Glpk) {
      EXPECT_EQ(r.message, "needs 120 B; capacity 100 B; short by 20 B; these 2 buffers cannot "
                           "coexist: a, b (110 B live at time 1)");
    }
  }
}

TEST(L1Solve, InfeasibleByAlignmentNeedsTheSolverToProveIt) {
  // A and B (1 byte each, 4-aligned) live together: offsets 0 and 4, so capacity 4 fails
  // although only 2 bytes are ever live at once; C (3 bytes, alone) is not to blame. Smallest
  // capacity: 5. Deletion filter, smallest first: without A or without B the rest fits (keep
  // both); without C, {A, B} is still infeasible (drop C).
  Problem p;
  p.capacity = 4;
  p.buffers = {{"A", 0, 2, 1, 4}, {"B", 1, 3, 1, 4}, {"C", 5, 6, 3, 1}};
  for (L1Solver solver : {L1Solver::Exact, L1Solver::Cbc, L1Solver::Glpk}) {
    Result r = solve(p, solver);
    ASSERT_EQ(r.status, SolveStatus::Infeasible) << toString(solver) << ": " << r.message;
    ASSERT_TRUE(r.infeasibility);
    EXPECT_EQ(r.infeasibility->smallestCapacity, 5);
    EXPECT_EQ(r.infeasibility->blockingBuffers, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(r.infeasibility->blockingBytes, 2);
    EXPECT_EQ(r.message, "needs 5 B; capacity 4 B; short by 1 B; these 2 buffers cannot "
                         "coexist: A, B (2 B live at time 1)");
  }
  p.capacity = 5;
  for (L1Solver solver : kIlps) {
    Result r = solve(p, solver);
    EXPECT_EQ(r.status, SolveStatus::Optimal) << toString(solver);
    ASSERT_TRUE(r.solution);
    EXPECT_EQ(r.solution->peak, 5);
  }
  // A heuristic proves nothing here: a plan above the bound is Feasible; over capacity, no
  // plan and no infeasibility claim.
  EXPECT_EQ(solve(p, L1Solver::FirstFitDecreasing).status, SolveStatus::Feasible);
  p.capacity = 4;
  EXPECT_EQ(solve(p, L1Solver::FirstFitDecreasing).status, SolveStatus::NoSolution);
}

TEST(L1Solve, IlpLimitsAreOutcomesNotErrors) {
  RandomProblemParams params;
  params.buffers = 40;
  params.maxSize = 1000;
  params.maxAlignment = 8;
  Problem p = randomProblem(7, params);
  for (L1Solver solver : kIlps) {
    SolveLimits limits;
    limits.nodeLimit = 1;
    Result r = solve(p, solver, limits);
    EXPECT_NE(r.status, SolveStatus::Error) << toString(solver) << ": " << r.message;
    EXPECT_NE(r.status, SolveStatus::Infeasible);
    if (r.solution) {
      EXPECT_LE(r.lowerBound, r.solution->peak);
      EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
    }
    limits = {};
    limits.timeLimitSeconds = 0.5;
    r = solve(p, solver, limits);
    EXPECT_NE(r.status, SolveStatus::Error) << toString(solver) << ": " << r.message;
    EXPECT_LT(r.stats.seconds, 10.0) << toString(solver);
  }
}

TEST(L1Solve, IlpsAreThreadSafe) {
  // The same instances solved on four threads at once give the sequential answers.
  RandomProblemParams params;
  params.buffers = 7;
  params.maxAlignment = 4;
  constexpr int kInstances = 24;
  std::vector<int64_t> expected(2 * kInstances), parallel(2 * kInstances, -1);
  auto peakOf = [&](int k) {
    Result r = solve(randomProblem(1000 + k / 2, params), kIlps[k % 2]);
    return r.status == SolveStatus::Optimal ? r.solution->peak : int64_t(-2);
  };
  for (int k = 0; k < 2 * kInstances; ++k)
    expected[k] = peakOf(k);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int k = t; k < 2 * kInstances; k += 4)
        parallel[k] = peakOf(k);
    });
  for (std::thread& thread : threads)
    thread.join();
  EXPECT_EQ(parallel, expected);
  for (int64_t peak : expected)
    EXPECT_GT(peak, 0);
}

TEST(L1Solve, WithThousands) {
  EXPECT_EQ(withThousands(0), "0");
  EXPECT_EQ(withThousands(999), "999");
  EXPECT_EQ(withThousands(1048576), "1,048,576");
  EXPECT_EQ(withThousands(-151424), "-151,424");
  EXPECT_EQ(withThousands(INT64_MIN), "-9,223,372,036,854,775,808");
}

TEST(L1Solve, EverySolverRejectsTheSameOutOfRangeInput) {
  // One input check for all solvers: 2^52 bytes in all (exact in the ILPs' doubles) and times
  // within +-2^31. Each problem is just over one of those limits.
  Problem tooBig{{{"a", 0, 2, 3, int64_t(1) << 52}}, 0};
  Problem tooLate{{{"a", 0, (int64_t(1) << 31) + 1, 8, 1}}, 0};
  for (const Problem& problem : {tooBig, tooLate})
    for (L1Solver solver : allL1Solvers()) {
      Result result = solve(problem, solver, {});
      EXPECT_EQ(result.status, SolveStatus::Error) << toString(solver);
      EXPECT_NE(result.message.find("buffer 'a'"), std::string::npos) << result.message;
    }
  Problem justFits{{{"a", -(int64_t(1) << 31), int64_t(1) << 31, (int64_t(1) << 52) - 2, 1}}, 0};
  EXPECT_EQ(solve(justFits, L1Solver::Exact, {}).status, SolveStatus::Optimal);
}
