// Core assignment on seeded random problems: every plan passes the validator, split_work_to_cores
// is never better (makespan, then cores), and small problems match a dynamic program.
#include "ttlplan/planner/cores/Solve.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

namespace ttlplan::planner::cores {
namespace {

/// Least makespan, then fewest parts, over contiguous partitions into at most K non-empty parts
/// (exactly K when `exact`): O(n^2 K) dynamic program, independent of the solver.
std::pair<int64_t, int> dynamicProgram(const std::vector<int64_t>& costs, int K, bool exact) {
  const size_t n = costs.size();
  const int64_t inf = INT64_MAX;
  std::vector<int64_t> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    prefix[i + 1] = prefix[i] + costs[i];
  // best[k][i]: least makespan of the first i items in k non-empty parts.
  std::vector<std::vector<int64_t>> best(size_t(K) + 1, std::vector<int64_t>(n + 1, inf));
  best[0][0] = 0;
  for (int k = 1; k <= K; ++k)
    for (size_t i = 1; i <= n; ++i)
      for (size_t j = 0; j < i; ++j)
        if (best[size_t(k) - 1][j] != inf)
          best[size_t(k)][i] =
              std::min(best[size_t(k)][i], std::max(best[size_t(k) - 1][j], prefix[i] - prefix[j]));
  std::pair<int64_t, int> out{inf, 0};
  for (int k = exact ? K : 1; k <= K; ++k)
    if (best[size_t(k)][n] < out.first) out = {best[size_t(k)][n], k};
  return out;
}

TEST(CoresRandom, TenThousandProblemsPassTheValidatorAndBeatTheBaseline) {
  std::mt19937 rng(424242);
  int differs = 0, checkedByDp = 0;
  for (int trial = 0; trial < 10000; ++trial) {
    Problem p;
    p.grid = {1 + int(rng() % 10u), 1 + int(rng() % 13u)};
    p.items = 1 + int64_t(rng() % (rng() % 2u ? 40u : 400u));
    p.autoGrid = rng() % 4u == 0;
    if (rng() % 2u) {
      int kind = int(rng() % 3u);
      for (int64_t i = 0; i < p.items; ++i)
        p.costs.push_back(kind == 0   ? int64_t(rng() % 4u)
                          : kind == 1 ? int64_t(1 + rng() % 20u)
                                      : (rng() % 10u == 0 ? 100 : 1));
    }
    if (rng() % 5u == 0)
      p.fixedCores = 1 + int(rng() % unsigned(std::min<int64_t>(p.items, p.grid.cores())));
    Result r = solve(p);
    ASSERT_EQ(r.status, SolveStatus::Optimal) << "trial " << trial << ": " << r.message;
    ASSERT_EQ(validate(p, *r.solution), Validity::Valid) << "trial " << trial;
    const int K = p.fixedCores > 0 ? p.fixedCores : p.grid.cores();
    if (p.items <= 40) {
      std::vector<int64_t> costs = p.costs;
      if (costs.empty()) costs.assign(size_t(p.items), 1);
      auto [makespan, cores] =
          dynamicProgram(costs, std::min<int>(K, int(p.items)), p.fixedCores > 0);
      ASSERT_EQ(r.solution->makespan, makespan) << "trial " << trial;
      ASSERT_EQ(r.solution->coresUsed, cores) << "trial " << trial;
      ++checkedByDp;
    }
    if (p.fixedCores > 0) continue;
    Solution base = splitWorkToCores(p.grid, p.items, p.costs);
    Problem fixedGrid = p;
    fixedGrid.autoGrid = false;
    ASSERT_EQ(validate(fixedGrid, base), Validity::Valid) << "trial " << trial;
    // Lexicographic (makespan, cores): the baseline is never better.
    ASSERT_LE(r.solution->makespan, base.makespan) << "trial " << trial;
    if (r.solution->makespan == base.makespan) {
      ASSERT_LE(r.solution->coresUsed, base.coresUsed) << "trial " << trial;
    }
    std::string why = explainDifference(*r.solution, base);
    ASSERT_EQ(why.empty(), *r.solution == base);
    differs += !why.empty();
  }
  RecordProperty("differs_from_split_work_to_cores", differs);
  RecordProperty("checked_by_dp", checkedByDp);
  EXPECT_GT(differs, 0);
  EXPECT_GT(checkedByDp, 1000);
}

} // namespace
} // namespace ttlplan::planner::cores
