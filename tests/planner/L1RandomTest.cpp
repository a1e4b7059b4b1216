// Seeded random L1 placement problems: every plan any solver returns passes the independent
// validator, heuristics never claim more than they show, and the solvers agree on optima.
#include "ttlplan/planner/l1/Baselines.h"
#include "ttlplan/planner/l1/IlpSolvers.h"
#include "ttlplan/planner/l1/RandomProblems.h"
#include "ttlplan/planner/l1/Solve.h"

#include <gtest/gtest.h>

using namespace ttlplan::planner;
using namespace ttlplan::planner::l1;

namespace {

/// Instance `seed` of a mixed family: 1..20 buffers, tight or loose lifetimes, some aligned.
RandomProblemParams mixedParams(uint64_t seed) {
  RandomProblemParams params;
  params.buffers = 1 + int(seed % 20);
  params.maxLifetime = 1 + int64_t(seed % 7);
  params.maxSize = seed % 3 == 0 ? 4096 : 100;
  params.maxAlignment = seed % 4 == 0 ? 32 : 1;
  return params;
}

void expectHonest(const Problem& p, const Result& r, uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " solver " + r.stats.solver);
  LiveBytes busiest = maxLiveBytes(p);
  switch (r.status) {
  case SolveStatus::Optimal:
  case SolveStatus::Feasible:
    ASSERT_TRUE(r.solution);
    ASSERT_EQ(validate(p, *r.solution), Validity::Valid);
    EXPECT_GE(r.lowerBound, busiest.bytes);
    EXPECT_LE(r.lowerBound, r.solution->peak);
    // With a capacity the exact solver decides feasibility: its Optimal need not be the least peak.
    if (r.status == SolveStatus::Optimal && (p.capacity == 0 || r.stats.solver != "exact")) {
      EXPECT_EQ(r.lowerBound, r.solution->peak);
    }
    break;
  case SolveStatus::Infeasible:
    ASSERT_GT(p.capacity, 0);
    ASSERT_TRUE(r.infeasibility);
    EXPECT_GT(r.infeasibility->smallestCapacity, p.capacity);
    EXPECT_FALSE(r.infeasibility->blockingBuffers.empty());
    break;
  case SolveStatus::NoSolution:
    EXPECT_FALSE(r.solution);
    break;
  case SolveStatus::Error:
    FAIL() << r.message;
  }
}

} // namespace

TEST(L1Random, GeneratorIsDeterministic) {
  RandomProblemParams params;
  params.maxAlignment = 16;
  Problem a = randomProblem(42, params), b = randomProblem(42, params);
  ASSERT_EQ(a.buffers.size(), 8u);
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    EXPECT_EQ(a.buffers[i].lower, b.buffers[i].lower);
    EXPECT_EQ(a.buffers[i].size, b.buffers[i].size);
    EXPECT_GE(a.buffers[i].size, 1);
    EXPECT_LE(a.buffers[i].size, 100);
    EXPECT_GT(a.buffers[i].upper, a.buffers[i].lower);
    EXPECT_EQ(16 % a.buffers[i].alignment, 0);
  }
  EXPECT_NE(randomProblem(43, params).buffers[0].size + randomProblem(44, params).buffers[0].size,
            2 * a.buffers[0].size + 1); // different seeds give (usually) different problems
}

TEST(L1Random, BaselineAndExactPlansAreValidOnTenThousandProblems) {
  int exactOptimal = 0;
  for (uint64_t seed = 0; seed < 10000; ++seed) {
    Problem p = randomProblem(seed, mixedParams(seed));
    SolveLimits limits;
    limits.nodeLimit = 200000; // deterministic; the instances are small
    Result exact = solve(p, L1Solver::Exact, limits);
    expectHonest(p, exact, seed);
    ASSERT_TRUE(exact.solution) << "seed " << seed;
    exactOptimal += exact.status == SolveStatus::Optimal;
    for (L1Solver solver : {L1Solver::FirstFitDecreasing, L1Solver::BestFitDecreasing}) {
      Result r = solve(p, solver);
      expectHonest(p, r, seed);
      ASSERT_TRUE(r.solution);
      // A baseline is never better than a proven optimum.
      if (exact.status == SolveStatus::Optimal) {
        EXPECT_GE(r.solution->peak, exact.solution->peak) << "seed " << seed;
      }
    }
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(exactOptimal, 9900);
}

TEST(L1Random, BaselinesWithCapacityAreHonest) {
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    Problem p = randomProblem(seed, mixedParams(seed));
    int64_t bound = maxLiveBytes(p).bytes;
    p.capacity = std::max<int64_t>(1, bound - 5 + int64_t(seed % 40));
    for (L1Solver solver : {L1Solver::FirstFitDecreasing, L1Solver::BestFitDecreasing}) {
      Result r = solve(p, solver);
      expectHonest(p, r, seed);
      // Heuristics only call a problem infeasible when the live bytes prove it.
      EXPECT_EQ(r.status == SolveStatus::Infeasible, bound > p.capacity);
    }
    if (HasFatalFailure()) return;
  }
}

TEST(L1Random, ExactCbcGlpkAgreeOnSmallProblemsAndBeatTheBaselines) {
  int solvedByBoth = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    RandomProblemParams params = mixedParams(seed);
    params.buffers = 1 + int(seed % 8);
    Problem p = randomProblem(seed, params);
    Result cbc = solve(p, L1Solver::Cbc);
    Result glpk = solve(p, L1Solver::Glpk);
    Result exact = solve(p, L1Solver::Exact);
    expectHonest(p, exact, seed);
    ASSERT_EQ(exact.status, SolveStatus::Optimal) << "seed " << seed << ": " << exact.message;
    EXPECT_EQ(exact.solution->peak, cbc.solution->peak) << "seed " << seed;
    Result ffd = solve(p, L1Solver::FirstFitDecreasing);
    Result bfd = solve(p, L1Solver::BestFitDecreasing);
    expectHonest(p, cbc, seed);
    expectHonest(p, glpk, seed);
    ASSERT_EQ(cbc.status, SolveStatus::Optimal) << "seed " << seed << ": " << cbc.message;
    ASSERT_EQ(glpk.status, SolveStatus::Optimal) << "seed " << seed << ": " << glpk.message;
    EXPECT_EQ(cbc.solution->peak, glpk.solution->peak) << "seed " << seed;
    EXPECT_LE(cbc.solution->peak, ffd.solution->peak) << "seed " << seed;
    EXPECT_LE(cbc.solution->peak, bfd.solution->peak) << "seed " << seed;
    ++solvedByBoth;
  }
  EXPECT_EQ(solvedByBoth, 300);
}

TEST(L1Random, SolversAgreeOnFeasibilityUnderTightCapacities) {
  int infeasible = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    RandomProblemParams params = mixedParams(seed);
    params.buffers = 2 + int(seed % 6);
    params.maxAlignment = 8;
    Problem p = randomProblem(seed, params);
    p.capacity = maxLiveBytes(p).bytes + int64_t(seed % 3); // often too tight with alignment
    Result cbc = solve(p, L1Solver::Cbc);
    Result glpk = solve(p, L1Solver::Glpk);
    expectHonest(p, cbc, seed);
    expectHonest(p, glpk, seed);
    ASSERT_EQ(cbc.status, glpk.status) << "seed " << seed;
    Result exact = solve(p, L1Solver::Exact);
    expectHonest(p, exact, seed);
    EXPECT_EQ(exact.status, cbc.status) << "seed " << seed; // same feasibility verdict
    if (cbc.status == SolveStatus::Optimal) {
      EXPECT_EQ(cbc.solution->peak, glpk.solution->peak) << "seed " << seed;
    }
    if (cbc.status == SolveStatus::Infeasible) {
      ++infeasible;
      EXPECT_EQ(cbc.infeasibility->smallestCapacity, glpk.infeasibility->smallestCapacity);
    }
  }
  EXPECT_GT(infeasible, 0); // the family does exercise the solver-proven case
}
