// Multicast rectangles and semaphores: hand cases (L shape, rows, NOC1, loopback, sender
// exclusion, gaps, semaphore sharing, conflicts, pipe evaluation) and the validator's outcomes.
#include "ttlplan/planner/multicast/Solve.h"

#include <gtest/gtest.h>

namespace ttlplan::planner::multicast {
namespace {

Problem grid8() {
  Problem p;
  p.rows = 8;
  p.cols = 8;
  p.noc = NocMapping::translated(8, 8);
  return p;
}

std::vector<Core> rectCores(int x0, int y0, int x1, int y1) {
  std::vector<Core> out;
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x)
      out.push_back({x, y});
  return out;
}

PipeNet net(std::string id, Core sender, std::vector<Core> dests, int noc = 0) {
  PipeNet n;
  n.id = id;
  n.location = "k.ttl:" + id;
  n.sender = sender;
  n.dests = std::move(dests);
  n.noc = noc;
  return n;
}

Result solveValid(const Problem& p, const Options& o = {}) {
  Result r = solve(p, o);
  if (r.solution) {
    EXPECT_EQ(validate(p, *r.solution), Validity::Valid) << r.message;
  }
  return r;
}

TEST(Multicast, TranslatedMappingAddsEighteen) {
  NocMapping m = NocMapping::translated(8, 8);
  EXPECT_EQ(m.x.front(), 18);
  EXPECT_EQ(m.x.back(), 25);
  EXPECT_EQ(m.y.size(), 8u);
}

TEST(Multicast, LShapedSetNeedsTwoRectangles) {
  Problem p = grid8();
  std::vector<Core> l = rectCores(0, 0, 3, 0);
  for (Core c : rectCores(0, 1, 0, 3))
    l.push_back(c);
  p.nets.push_back(net("l", {7, 7}, l));
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  EXPECT_EQ(r.solution->rectangles, 2);
  EXPECT_EQ(r.rectangleLowerBound, 2);
}

TEST(Multicast, FullRowIsOneRectangleOnNoc0) {
  Problem p = grid8();
  p.nets.push_back(net("row", {0, 0}, rectCores(0, 2, 7, 2)));
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  ASSERT_EQ(r.solution->nets[0].multicasts.size(), 1u);
  const Multicast& mc = r.solution->nets[0].multicasts[0];
  EXPECT_EQ(mc.logical, (Rect{0, 2, 7, 2}));
  EXPECT_EQ(mc.noc, (NocRect{18, 20, 25, 20}));
  EXPECT_FALSE(mc.loopback);
  EXPECT_EQ(mc.numDests, 8);
  EXPECT_EQ(r.solution->nets[0].receivers, 8);
}

TEST(Multicast, Noc1SwapsStartAndEnd) {
  Problem p = grid8();
  p.nets.push_back(net("block", {0, 0}, rectCores(2, 3, 5, 6), 1));
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  ASSERT_EQ(r.solution->nets[0].multicasts.size(), 1u);
  EXPECT_EQ(r.solution->nets[0].multicasts[0].noc, (NocRect{23, 24, 20, 21}));
  EXPECT_EQ(toNoc(p.noc, Rect{2, 3, 5, 6}, 0), (NocRect{20, 21, 23, 24}));
}

TEST(Multicast, LoopbackWhenTheSenderIsADestinationInside) {
  Problem p = grid8();
  p.nets.push_back(net("row", {3, 2}, rectCores(0, 2, 7, 2)));
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  ASSERT_EQ(r.solution->nets[0].multicasts.size(), 1u);
  EXPECT_TRUE(r.solution->nets[0].multicasts[0].loopback);
  EXPECT_EQ(r.solution->nets[0].multicasts[0].numDests, 8);
  EXPECT_EQ(r.solution->nets[0].receivers, 7);
}

TEST(Multicast, SenderInsideWithoutLoopbackIsSkippedByTheHardware) {
  // All cores but the sender: one plain multicast over the whole grid (the greedy baseline,
  // which does not use the exclusion, needs four).
  Problem p = grid8();
  std::vector<Core> all;
  for (Core c : rectCores(0, 0, 7, 7))
    if (!(c == Core{3, 3})) all.push_back(c);
  p.nets.push_back(net("others", {3, 3}, all));
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  ASSERT_EQ(r.solution->nets[0].multicasts.size(), 1u);
  const Multicast& mc = r.solution->nets[0].multicasts[0];
  EXPECT_EQ(mc.logical, (Rect{0, 0, 7, 7}));
  EXPECT_FALSE(mc.loopback);
  EXPECT_EQ(mc.numDests, 63);
  Result g = solveValid(p, Options{CoverMethod::Greedy, true, {}});
  ASSERT_TRUE(g.solution);
  EXPECT_EQ(g.solution->rectangles, 4);
}

TEST(Multicast, RowFromTheFirstColumnStaysOneRectangle) {
  Problem p = grid8();
  p.nets.push_back(net("in0", {0, 4}, rectCores(1, 4, 7, 4)));
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->rectangles, 1);
  EXPECT_EQ(r.solution->nets[0].multicasts[0].numDests, 7);
}

TEST(Multicast, GapsInTheMappingSplitRectangles) {
  Problem p = grid8();
  p.noc.x = {1, 2, 3, 4, 6, 7, 8, 9}; // a non-Tensix column at NoC x = 5
  p.nets.push_back(net("row", {0, 0}, rectCores(0, 1, 7, 1)));
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->rectangles, 2);
  p.allowGaps = true;
  r = solveValid(p);
  EXPECT_EQ(r.solution->rectangles, 1);
  EXPECT_EQ(r.solution->nets[0].multicasts[0].noc, (NocRect{1, 19, 9, 19}));
}

TEST(Multicast, NonMonotonicMappingIsAnError) {
  Problem p = grid8();
  p.noc.y[3] = p.noc.y[2];
  p.nets.push_back(net("row", {0, 0}, rectCores(0, 1, 7, 1)));
  Result r = solve(p);
  EXPECT_EQ(r.status, SolveStatus::Error);
  EXPECT_NE(r.message.find("monotonic"), std::string::npos);
  EXPECT_EQ(validate(p, Solution{}), Validity::InvalidProblem);
}

TEST(Multicast, BadNetsAreErrorsNamingTheLocation) {
  Problem p = grid8();
  p.nets.push_back(net("far", {9, 0}, rectCores(0, 1, 7, 1)));
  Result r = solve(p);
  EXPECT_EQ(r.status, SolveStatus::Error);
  EXPECT_NE(r.message.find("k.ttl:far"), std::string::npos);
  p.nets[0] = net("none", {0, 0}, {});
  EXPECT_EQ(solve(p).status, SolveStatus::Error);
}

// 8 row multicasts (disjoint rows) and 2 column multicasts (disjoint columns): 20 semaphores
// without sharing, 4 ids with it.
Problem rowsAndColumns() {
  Problem p = grid8();
  for (int y = 0; y < 8; ++y)
    p.nets.push_back(net("in0_" + std::to_string(y), {0, y}, rectCores(1, y, 7, y)));
  for (int x = 0; x < 2; ++x)
    p.nets.push_back(net("in1_" + std::to_string(x), {x, 0}, rectCores(x, 1, x, 7), 1));
  for (size_t i = 0; i < p.nets.size(); ++i)
    p.nets[i].dstAddress = int64_t(i < 8 ? 0 : 1);
  return p;
}

TEST(Multicast, SemaphoreSharingFitsWhatTwentyIdsWouldNot) {
  Problem p = rowsAndColumns();
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  EXPECT_LE(r.solution->semaphoreIds, 16);
  EXPECT_EQ(r.solution->semaphoreIds, 4);
  Result unshared = solve(p, Options{CoverMethod::Exact, false, {}});
  EXPECT_EQ(unshared.status, SolveStatus::Infeasible);
  ASSERT_TRUE(unshared.infeasibility);
  EXPECT_EQ(unshared.infeasibility->needed, 20);
  EXPECT_EQ(unshared.infeasibility->nets.size(), 10u);
}

TEST(Multicast, DisjointLifetimesShareIdsOverlappingOnesDoNot) {
  Problem p = grid8();
  for (int i = 0; i < 9; ++i) {
    p.nets.push_back(net("all" + std::to_string(i), {0, 0}, rectCores(0, 0, 7, 7)));
    p.nets.back().lower = i;
    p.nets.back().upper = i + 1;
  }
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->semaphoreIds, 2);
  for (PipeNet& n : p.nets)
    n.lower = 0, n.upper = 10;
  r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_EQ(r.infeasibility->needed, 18);
  EXPECT_EQ(r.infeasibility->nets.size(), 9u);
  EXPECT_NE(r.message.find("k.ttl:all8"), std::string::npos);
}

TEST(Multicast, ConflictingSendersNameBothLocations) {
  Problem p = grid8();
  p.nets.push_back(net("a", {0, 0}, rectCores(0, 2, 7, 2)));
  p.nets.push_back(net("b", {1, 0}, rectCores(2, 0, 2, 7)));
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Error);
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_EQ(r.conflicts[0].core, (Core{2, 2}));
  EXPECT_NE(r.message.find("k.ttl:a"), std::string::npos);
  EXPECT_NE(r.message.find("k.ttl:b"), std::string::npos);
  Solution empty;
  EXPECT_EQ(validate(p, empty), Validity::ConflictingNets);
  p.nets[1].dstAddress = 4096; // other bytes: no conflict
  EXPECT_EQ(solveValid(p).status, SolveStatus::Optimal);
  p.nets[1].dstAddress = 0;
  p.nets[1].lower = 1, p.nets[1].upper = 2; // other time: no conflict
  EXPECT_EQ(solveValid(p).status, SolveStatus::Optimal);
}

TEST(Multicast, BuildNetsEvaluatesPipesOnEveryCore) {
  // %p = ttl.create_pipe src(0, %y) dst(1, %y) to(7, %y)
  PipeSpec spec;
  spec.id = "p";
  spec.location = "mm.ttl:12:5";
  spec.evaluate = [](Core c) { return std::optional<PipeEnds>({{0, c.y}, {1, c.y, 7, c.y}}); };
  NetsResult nets = buildNets(8, 8, {spec});
  ASSERT_TRUE(nets.error.empty()) << nets.error;
  ASSERT_EQ(nets.nets.size(), 8u);
  EXPECT_EQ(nets.nets[3].sender, (Core{0, 3}));
  EXPECT_EQ(nets.nets[3].dests.size(), 7u);
  Problem p = grid8();
  p.nets = nets.nets;
  Result r = solveValid(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.solution->rectangles, 8);
  EXPECT_EQ(r.solution->semaphoreIds, 2);

  spec.evaluate = [](Core c) { return std::optional<PipeEnds>({{0, c.y}, {1, c.y, 8, c.y}}); };
  nets = buildNets(8, 8, {spec});
  EXPECT_NE(nets.error.find("mm.ttl:12:5"), std::string::npos);
  // One sender, two overlapping rectangles: rejected.
  spec.evaluate = [](Core c) { return std::optional<PipeEnds>({{0, 0}, {c.x, 0, 7, 0}}); };
  nets = buildNets(8, 8, {spec});
  EXPECT_NE(nets.error.find("overlapping"), std::string::npos);
}

TEST(Multicast, ValidatorCatchesEachMistake) {
  Problem p = grid8();
  p.nets.push_back(net("row", {3, 2}, rectCores(0, 2, 7, 2)));
  p.nets.push_back(net("col", {0, 2}, rectCores(0, 3, 0, 7), 1)); // meets "row" at (0, 2)
  p.nets[1].dstAddress = 64;
  Result r = solveValid(p);
  ASSERT_TRUE(r.solution);
  const Solution good = *r.solution;
  auto check = [&](Validity expected, auto mutate) {
    Solution s = good;
    mutate(s);
    EXPECT_EQ(validate(p, s), expected) << toString(expected);
  };
  check(Validity::WrongNetCount, [](Solution& s) { s.nets.pop_back(); });
  check(Validity::WrongLoopback, [](Solution& s) { s.nets[0].multicasts[0].loopback = false; });
  check(Validity::WrongNumDests, [](Solution& s) { s.nets[0].multicasts[0].numDests = 7; });
  check(Validity::WrongNocCoordinates, [](Solution& s) {
    std::swap(s.nets[1].multicasts[0].noc.startY, s.nets[1].multicasts[0].noc.endY);
  });
  check(Validity::RectangleOutsideGrid,
        [](Solution& s) { s.nets[0].multicasts[0].logical.x1 = 8; });
  check(Validity::ExtraCore, [&](Solution& s) {
    Multicast& mc = s.nets[1].multicasts[0];
    mc.logical.y0 = 1; // (0, 1) is no destination; the sender (0, 2) is skipped
    mc.numDests = 6;
    mc.noc = toNoc(p.noc, mc.logical, 1);
  });
  check(Validity::NotCovered, [](Solution& s) {
    s.nets[0].multicasts[0].logical.x1 = 6;
    s.nets[0].multicasts[0].numDests = 7;
    s.nets[0].multicasts[0].noc.endX = 24;
  });
  check(Validity::Overlap,
        [](Solution& s) { s.nets[0].multicasts.push_back(s.nets[0].multicasts[0]); });
  check(Validity::WrongReceivers, [](Solution& s) { s.nets[0].receivers = 8; });
  check(Validity::SemaphoreOutOfRange, [](Solution& s) { s.nets[0].readySemaphore = 16; });
  check(Validity::SemaphoreClash, [](Solution& s) {
    s.nets[1].readySemaphore = s.nets[0].readySemaphore; // both nets use core (0, 2)
  });
  check(Validity::WrongTotals, [](Solution& s) { s.rectangles = 5; });
}

} // namespace
} // namespace ttlplan::planner::multicast
