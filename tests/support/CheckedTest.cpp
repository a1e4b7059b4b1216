// Checked arithmetic (support/Checked.h): every helper at and past the edges of int64_t.
#include "ttlplan/support/Checked.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ttlplan;

constexpr int64_t kMax = INT64_MAX, kMin = INT64_MIN;

TEST(Checked, AddSubMulRejectOverflowOnly) {
  EXPECT_EQ(checkedAdd(kMax - 1, 1), kMax);
  EXPECT_EQ(checkedAdd(kMax, 1), std::nullopt);
  EXPECT_EQ(checkedSub(kMin + 1, 1), kMin);
  EXPECT_EQ(checkedSub(kMin, 1), std::nullopt);
  EXPECT_EQ(checkedMul(int64_t(1) << 31, int64_t(1) << 31), int64_t(1) << 62);
  EXPECT_EQ(checkedMul(int64_t(1) << 32, int64_t(1) << 31), std::nullopt);
}

TEST(Checked, ProductStopsAtItsLimit) {
  std::vector<int64_t> f{1024, 1024, 1024};
  EXPECT_EQ(checkedProduct(f), int64_t(1) << 30);
  EXPECT_EQ(checkedProduct(f, (int64_t(1) << 30) - 1), std::nullopt);
  EXPECT_EQ(checkedProduct({}), 1);
}

TEST(Checked, TripCountMatchesTheLoopItCounts) {
  // Against a literal loop for small bounds, every step from 1 to 5.
  for (int64_t lb = -6; lb <= 6; ++lb)
    for (int64_t ub = -6; ub <= 6; ++ub)
      for (int64_t step = 1; step <= 5; ++step) {
        int64_t n = 0;
        for (int64_t i = lb; i < ub; i += step)
          ++n;
        EXPECT_EQ(tripCount(lb, ub, step), n) << lb << " " << ub << " " << step;
      }
}

TEST(Checked, TripCountAtTheEdgesOfInt64) {
  EXPECT_EQ(tripCount(0, kMax, 1), kMax);
  EXPECT_EQ(tripCount(kMax - 1, kMax, kMax), 1);
  EXPECT_EQ(tripCount(-1, kMax, 1), std::nullopt);   // 2^63 iterations
  EXPECT_EQ(tripCount(kMin, kMax, kMax), 3);         // kMin, -1, kMax - 1
  EXPECT_EQ(tripCount(kMin, kMax, 2), std::nullopt); // 2^63 iterations: kMin + 2k for k < 2^63
  EXPECT_EQ(tripCount(kMin, kMax, 4), int64_t(1) << 62);
  EXPECT_EQ(tripCount(0, 5, 0), std::nullopt);
  EXPECT_EQ(tripCount(0, 5, -1), std::nullopt);
  EXPECT_EQ(tripCount(5, 5, 1), 0);
}
