// search::choosePick: the baseline is kept exactly when the fastest point's predicted gain over
// it is within the margin, and only when it is feasible.
#include "ttlplan/search/Pick.h"

#include <gtest/gtest.h>

namespace ttlplan::search {
namespace {

Record record(double ns, const char* status = "ok") {
  Record r;
  r.status = status;
  if (std::string(status) == "ok") r.predictedNs = ns;
  r.point = {{"ns", int64_t(ns)}};
  return r;
}

TEST(Pick, KeepsTheBaselineWithinTheMargin) {
  Record fastest = record(100);
  // 110 / 100 - 1 = 10 %: within 18.8 %, kept; 130 / 100 - 1 = 30 %: beyond, the fastest.
  Pick kept = choosePick(fastest, record(110), 0.188);
  EXPECT_TRUE(kept.keptBaseline);
  EXPECT_EQ(kept.record.point, record(110).point);
  EXPECT_NEAR(kept.predictedGain, 0.10, 1e-12);
  EXPECT_NE(kept.why.find("within the cost model's ranking uncertainty of 18.8 %"),
            std::string::npos)
      << kept.why;
  Pick moved = choosePick(fastest, record(130), 0.188);
  EXPECT_FALSE(moved.keptBaseline);
  EXPECT_EQ(moved.record.point, fastest.point);
  // The boundary belongs to the baseline; a zero margin keeps it only on a tie.
  EXPECT_TRUE(choosePick(fastest, record(125), 0.25).keptBaseline);
  EXPECT_TRUE(choosePick(fastest, record(100), 0).keptBaseline);
  EXPECT_FALSE(choosePick(fastest, record(101), 0).keptBaseline);
}

TEST(Pick, AnInfeasibleOrMissingBaselineIsNeverKept) {
  Record fastest = record(100);
  EXPECT_FALSE(choosePick(fastest, std::nullopt, 0.5).keptBaseline);
  Pick rejected = choosePick(fastest, record(0, "rejected"), 0.5);
  EXPECT_FALSE(rejected.keptBaseline);
  EXPECT_EQ(rejected.record.point, fastest.point);
  EXPECT_EQ(rejected.predictedGain, 0);
}

} // namespace
} // namespace ttlplan::search
