// CB index colouring on 10,000 seeded random problems of each kind. Every plan passes the
// validator, first fit never beats the exact result, and the exact result matches bounds computed
// here independently (a sweep for interval cliques, plain backtracking for chromatic numbers).
#include "ttlplan/planner/cbindex/Solve.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

namespace ttlplan::planner::cbindex {
namespace {

constexpr int kProblems = 10000;

/// The most intervals live at one step, by brute force over every start point.
int sweepMaxLive(const Problem& p) {
  int best = 0;
  for (const Cb& at : p.cbs) {
    int live = 0;
    for (const Cb& cb : p.cbs)
      live += cb.lower <= at.lower && at.lower < cb.upper;
    best = std::max(best, live);
  }
  return best;
}

bool conflict(const Problem& p, size_t a, size_t b) {
  if (p.source == ConflictSource::Intervals)
    return p.cbs[a].lower < p.cbs[b].upper && p.cbs[b].lower < p.cbs[a].upper;
  for (auto [x, y] : p.conflicts)
    if ((x == a && y == b) || (x == b && y == a)) return true;
  return false;
}

/// Can the CBs be indexed within [0, k) keeping pre-assignments? Plain backtracking in index order.
bool colourable(const Problem& p, int k, std::vector<int>& colour, size_t v) {
  if (v == p.cbs.size()) return true;
  if (p.cbs[v].preassigned >= 0) {
    int c = p.cbs[v].preassigned;
    if (c >= k) return false;
    for (size_t u = 0; u < v; ++u)
      if (colour[u] == c && conflict(p, u, v)) return false;
    colour[v] = c;
    return colourable(p, k, colour, v + 1);
  }
  // Colours no CB holds yet are interchangeable: try the used ones and the lowest unused one.
  std::vector<char> used(static_cast<size_t>(k), 0);
  for (int c : colour)
    if (c >= 0 && c < k) used[static_cast<size_t>(c)] = 1;
  bool triedUnused = false;
  for (int c = 0; c < k; ++c) {
    if (!used[static_cast<size_t>(c)]) {
      if (triedUnused) continue;
      triedUnused = true;
    }
    bool ok = true;
    for (size_t u = 0; u < p.cbs.size() && ok; ++u)
      if (u != v && colour[u] == c && conflict(p, u, v)) ok = false;
    if (!ok) continue;
    colour[v] = c;
    if (colourable(p, k, colour, v + 1)) return true;
    colour[v] = -1;
  }
  return false;
}

/// The least span of a valid index assignment (ignoring the limit); -1 if pre-assignments clash.
int bruteForceSpan(const Problem& p) {
  int maxPre = -1;
  for (size_t v = 0; v < p.cbs.size(); ++v) {
    maxPre = std::max(maxPre, p.cbs[v].preassigned);
    for (size_t u = 0; u < v; ++u)
      if (p.cbs[v].preassigned >= 0 && p.cbs[u].preassigned == p.cbs[v].preassigned &&
          conflict(p, u, v))
        return -1;
  }
  // Without a clash, maxPre + 1 + (free CBs) indices always suffice.
  for (int k = maxPre + 1; k <= maxPre + 1 + static_cast<int>(p.cbs.size()); ++k) {
    std::vector<int> colour(p.cbs.size(), -1);
    for (size_t v = 0; v < p.cbs.size(); ++v)
      if (p.cbs[v].preassigned >= 0) colour[v] = p.cbs[v].preassigned;
    if (colourable(p, k, colour, 0)) return k;
  }
  return -1;
}

void checkInfeasibility(const Problem& p, const Result& r) {
  ASSERT_TRUE(r.infeasibility);
  const Infeasibility& why = *r.infeasibility;
  ASSERT_FALSE(why.cbs.empty());
  EXPECT_GT(why.needed, p.limit);
  if (why.reason == InfeasibleReason::TooManyLiveTogether) {
    EXPECT_GT(static_cast<int>(why.cbs.size()), p.limit);
    for (size_t a : why.cbs)
      for (size_t b : why.cbs)
        if (a != b) {
          EXPECT_TRUE(conflict(p, a, b));
        }
  }
}

Problem randomIntervals(std::mt19937_64& rng, bool preassign) {
  Problem p;
  const int n = std::uniform_int_distribution<int>(0, 60)(rng);
  const int horizon = std::uniform_int_distribution<int>(1, 40)(rng);
  const int limits[] = {3, 6, 12, 32};
  p.limit = limits[std::uniform_int_distribution<int>(0, 3)(rng)];
  for (int i = 0; i < n; ++i) {
    int64_t lower = std::uniform_int_distribution<int>(0, horizon - 1)(rng);
    int64_t length = std::uniform_int_distribution<int>(1, std::max(1, horizon / 3))(rng);
    p.cbs.push_back({"cb" + std::to_string(i), lower, lower + length, -1});
  }
  if (preassign)
    for (Cb& cb : p.cbs)
      if (std::uniform_int_distribution<int>(0, 9)(rng) == 0)
        cb.preassigned = std::uniform_int_distribution<int>(0, p.limit)(rng);
  return p;
}

Problem randomList(std::mt19937_64& rng, int maxN) {
  Problem p;
  p.source = ConflictSource::List;
  const int n = std::uniform_int_distribution<int>(1, maxN)(rng);
  const double density = std::uniform_real_distribution<double>(0.1, 0.8)(rng);
  p.limit = std::uniform_int_distribution<int>(2, 6)(rng);
  for (int i = 0; i < n; ++i)
    p.cbs.push_back({"cb" + std::to_string(i), 0, 0, -1});
  std::bernoulli_distribution edge(density);
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if (edge(rng)) p.conflicts.emplace_back(static_cast<size_t>(a), static_cast<size_t>(b));
  if (std::bernoulli_distribution(0.3)(rng))
    for (Cb& cb : p.cbs)
      if (std::uniform_int_distribution<int>(0, 5)(rng) == 0)
        cb.preassigned = std::uniform_int_distribution<int>(0, p.limit)(rng);
  return p;
}

TEST(CBIndexRandom, IntervalProblemsMatchTheSweepClique) {
  std::mt19937_64 rng(20240601);
  int infeasible = 0, firstFitWorse = 0;
  for (int t = 0; t < kProblems; ++t) {
    Problem p = randomIntervals(rng, /*preassign=*/false);
    const int clique = sweepMaxLive(p);
    Solution ff = firstFit(p);
    EXPECT_EQ(validate(Problem{p.cbs, p.source, p.conflicts, 1 << 20}, ff), Validity::Valid);
    std::optional<Solution> greedy = intervalColouring(p);
    ASSERT_TRUE(greedy);
    EXPECT_EQ(greedy->colours, clique) << "problem " << t;
    for (const Result& r : {solve(p), solveExact(p)}) {
      if (clique > p.limit) {
        ASSERT_EQ(r.status, SolveStatus::Infeasible) << "problem " << t;
        checkInfeasibility(p, r);
        EXPECT_EQ(static_cast<int>(r.infeasibility->cbs.size()), clique);
        continue;
      }
      ASSERT_EQ(r.status, SolveStatus::Optimal) << "problem " << t << ": " << r.message;
      EXPECT_EQ(validate(p, *r.solution), Validity::Valid) << "problem " << t;
      EXPECT_EQ(r.solution->colours, clique) << "problem " << t;
      EXPECT_GE(ff.colours, r.solution->colours) << "problem " << t;
    }
    infeasible += clique > p.limit;
    firstFitWorse += ff.colours > clique;
  }
  // The generator must exercise both outcomes and first fit's weakness.
  EXPECT_GT(infeasible, kProblems / 20);
  EXPECT_GT(firstFitWorse, kProblems / 20);
}

TEST(CBIndexRandom, IntervalProblemsWithPreassignmentsMatchBruteForce) {
  std::mt19937_64 rng(77);
  int checkedBrute = 0;
  for (int t = 0; t < kProblems; ++t) {
    Problem p = randomIntervals(rng, /*preassign=*/true);
    if (p.cbs.size() > 12) p.cbs.resize(12);
    Result r = solve(p);
    const int span = bruteForceSpan(p);
    if (span < 0 || span > p.limit) {
      ASSERT_EQ(r.status, SolveStatus::Infeasible) << "problem " << t << ": " << r.message;
      checkInfeasibility(p, r);
      continue;
    }
    ASSERT_EQ(r.status, SolveStatus::Optimal) << "problem " << t << ": " << r.message;
    EXPECT_EQ(validate(p, *r.solution), Validity::Valid) << "problem " << t;
    EXPECT_EQ(r.solution->colours, span) << "problem " << t;
    Solution ff = firstFit(p);
    EXPECT_GE(ff.colours, r.solution->colours);
    ++checkedBrute;
  }
  EXPECT_GT(checkedBrute, kProblems / 2);
}

TEST(CBIndexRandom, ConflictListsMatchBruteForceChromaticNumber) {
  std::mt19937_64 rng(4242);
  int feasible = 0, infeasible = 0;
  for (int t = 0; t < kProblems; ++t) {
    Problem p = randomList(rng, 10);
    Result r = solve(p);
    Result exact = solveExact(p);
    const int span = bruteForceSpan(p);
    for (const Result* res : {&r, &exact}) {
      if (span < 0 || span > p.limit) {
        ASSERT_EQ(res->status, SolveStatus::Infeasible) << "problem " << t << ": " << res->message;
        checkInfeasibility(p, *res);
        continue;
      }
      ASSERT_EQ(res->status, SolveStatus::Optimal) << "problem " << t << ": " << res->message;
      EXPECT_EQ(validate(p, *res->solution), Validity::Valid) << "problem " << t;
      EXPECT_EQ(res->solution->colours, span) << "problem " << t;
      EXPECT_LE(res->lowerBound, span);
    }
    if (span >= 0 && span <= p.limit) {
      ++feasible;
      Solution ff = firstFit(p);
      EXPECT_GE(ff.colours, span) << "problem " << t;
    } else {
      ++infeasible;
    }
  }
  EXPECT_GT(feasible, kProblems / 10);
  EXPECT_GT(infeasible, kProblems / 10);
}

TEST(CBIndexRandom, LargerConflictListsAreValidUnderLimits) {
  std::mt19937_64 rng(99);
  for (int t = 0; t < kProblems; ++t) {
    Problem p = randomList(rng, 40);
    p.limit = std::uniform_int_distribution<int>(4, 32)(rng);
    Result r = solve(p, {}, SolveLimits{0, 20000});
    if (r.solution) {
      EXPECT_EQ(validate(p, *r.solution), Validity::Valid) << "problem " << t;
      EXPECT_GE(r.solution->colours, r.lowerBound);
      Solution ff = firstFit(p);
      if (r.status == SolveStatus::Optimal) {
        EXPECT_GE(ff.colours, r.solution->colours) << "problem " << t;
      }
    } else if (r.status == SolveStatus::Infeasible) {
      checkInfeasibility(p, r);
    } else {
      EXPECT_EQ(r.status, SolveStatus::NoSolution) << r.message;
    }
  }
}

} // namespace
} // namespace ttlplan::planner::cbindex
