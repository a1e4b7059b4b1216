// DST allocation and sub-blocking: hand-made chains, the ttnn baseline, infeasibility reports.
#include "ttlplan/ir/Device.h"
#include "ttlplan/planner/dst/Solve.h"
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"

#include <array>
#include <gtest/gtest.h>

namespace ttlplan::planner::dst {
namespace {

/// Wormhole's DST capacity for a sync mode and accumulation (the device's count).
int64_t wormholeCapacity(SyncMode sync, bool fp32) {
  return ir::builtinDevice("wormhole_b0")->dstCapacityTiles(sync == SyncMode::Full, fp32);
}

/// Sets the accumulation and the capacity that goes with it on Wormhole.
void setFp32(Problem& p, bool fp32) {
  p.fp32Accumulation = fp32;
  p.capacityTiles = wormholeCapacity(p.sync, fp32);
}

/// ttnn's sub-block for a per-core block (baselines::ttnnSubblock) at Wormhole's half-sync DST.
Subblock ttnnChoice(int64_t perCoreM, int64_t perCoreN, bool fp32) {
  auto s = search::baselines::ttnnSubblock(uint32_t(perCoreM), uint32_t(perCoreN),
                                           uint32_t(wormholeCapacity(SyncMode::Half, fp32)));
  return {int64_t(s.h), int64_t(s.w)};
}

Problem chainOf(std::vector<Op> ops, int64_t rows, int64_t cols, SyncMode sync = SyncMode::Half,
                bool fp32 = false) {
  Problem p;
  p.chain.id = "chain";
  p.chain.ops = std::move(ops);
  p.chain.blockRows = rows;
  p.chain.blockCols = cols;
  p.sync = sync;
  setFp32(p, fp32);
  return p;
}

TEST(Dst, TheCapacityIsTheProblemsNotTheSyncMode) {
  // One live value on an 8x8 block: the sub-block fills the capacity (each power of two divides
  // the block), whatever sync mode and accumulation the problem names (the device's count decides).
  Problem p = chainOf({{"ttl.exp", {0}, 1}}, 8, 8, SyncMode::Half);
  for (int64_t capacity : {1, 2, 4, 8, 16}) {
    p.capacityTiles = capacity;
    Result r = solve(p);
    ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
    const Segment& s = r.solution->segments.at(0);
    EXPECT_EQ(s.subblockRows * s.subblockCols, capacity) << capacity;
    EXPECT_EQ(s.peakTiles, capacity) << capacity;
    EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  }
}

TEST(Dst, UnaryChainRunsInPlaceAndPrefersWideSubblocks) {
  // x -> exp -> relu on a 4x4 block, half sync bf16 (8 tiles): one live value at a time.
  Problem p = chainOf({{"ttl.exp", {0}, 1}, {"ttl.relu", {1}, 2}}, 4, 4);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  const Segment& s = r.solution->segments.at(0);
  EXPECT_EQ(s.subblockRows, 2); // (2, 4) beats (4, 2) at equal rounds: wider
  EXPECT_EQ(s.subblockCols, 4);
  EXPECT_EQ(s.rounds, 2);
  EXPECT_EQ(s.peakTiles, 8);
  EXPECT_EQ(s.slots[0], 0);
  EXPECT_EQ(s.slots[1], 0);
  EXPECT_EQ(s.slots[2], 0);
  EXPECT_FALSE(r.exceedingOp);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  // The ttnn list takes (4, 2) first: same rounds, narrower.
  EXPECT_EQ(ttnnChoice(4, 4, false), (Subblock{4, 2}));
}

TEST(Dst, BinaryOpNeedsTwoSlots) {
  // z = x + y: x and y live together at the add's read; z reuses x's slot.
  Problem p = chainOf({{"ttl.add", {0, 1}, 2}}, 4, 4);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  const Segment& s = r.solution->segments.at(0);
  EXPECT_EQ(s.subblockRows * s.subblockCols, 4);
  EXPECT_EQ(s.subblockCols, 4); // (1, 4) over (2, 2) and (4, 1)
  EXPECT_EQ(s.rounds, 4);
  EXPECT_EQ(s.peakTiles, 8);
  EXPECT_NE(s.slots[0], s.slots[1]);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
}

TEST(Dst, MatmulAccumulatorLivesWithTheBias) {
  // m = a @ b (K loop), r = m + bias. a, b stream; m and bias share the add's read point.
  Problem p = chainOf({{"ttl.matmul", {0, 1}, 2, true}, {"ttl.add", {2, 3}, 4}}, 4, 4);
  EXPECT_TRUE(isMatmulChain(p.chain));
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  const Segment& s = r.solution->segments.at(0);
  EXPECT_EQ(s.slots[0], -1); // operands take no DST
  EXPECT_EQ(s.slots[1], -1);
  EXPECT_EQ(s.subblockRows * s.subblockCols, 4);
  EXPECT_EQ(s.rounds, 4);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  // fp32 accumulation halves the capacity: 4 tiles / 2 values -> 2 tiles per sub-block.
  setFp32(p, true);
  Result f = solve(p);
  ASSERT_EQ(f.status, SolveStatus::Optimal);
  EXPECT_EQ(f.solution->segments[0].subblockRows, 1);
  EXPECT_EQ(f.solution->segments[0].subblockCols, 2);
  EXPECT_EQ(f.solution->rounds, 8);
  // Plain matmul, full sync: 16 tiles for one accumulator on an 8x8 block -> 4 rounds, and of
  // (2, 8), (4, 4), (8, 2) the squarest unpacks the fewest tiles: K * (4 + 4) a round, not
  // K * (2 + 8); the ttnn list stops at 8 tiles and takes (4, 2): 8 rounds.
  Problem mm = chainOf({{"ttl.matmul", {0, 1}, 2, true}}, 8, 8, SyncMode::Full);
  Result m = solve(mm);
  ASSERT_EQ(m.status, SolveStatus::Optimal);
  EXPECT_EQ(m.solution->segments[0].subblockRows, 4);
  EXPECT_EQ(m.solution->segments[0].subblockCols, 4);
  EXPECT_EQ(m.solution->rounds, 4);
  EXPECT_EQ(ttnnChoice(8, 8, false), (Subblock{4, 2}));
}

TEST(Dst, TtnnListOrder) {
  EXPECT_EQ(ttnnChoice(4, 4, false), (Subblock{4, 2}));
  EXPECT_EQ(ttnnChoice(4, 4, true), (Subblock{2, 2})); // h*w > 4 skipped
  EXPECT_EQ(ttnnChoice(2, 4, false), (Subblock{2, 4}));
  EXPECT_EQ(ttnnChoice(1, 8, false), (Subblock{1, 8}));
  EXPECT_EQ(ttnnChoice(1, 8, true), (Subblock{1, 4}));
  EXPECT_EQ(ttnnChoice(7, 7, false), (Subblock{7, 1}));
  EXPECT_EQ(ttnnChoice(3, 4, false), (Subblock{3, 2}));
  EXPECT_EQ(ttnnChoice(9, 9, false), (Subblock{3, 1}));
  EXPECT_EQ(ttnnChoice(5, 5, true), (Subblock{1, 1}));
  EXPECT_EQ(ttnnChoice(6, 6, false), (Subblock{3, 2}));
  EXPECT_EQ(ttnnChoice(1, 1, false), (Subblock{1, 1}));
}

TEST(Dst, ChooseSubblockMinimisesRoundsThenPrefersWidth) {
  EXPECT_EQ(chooseSubblock(4, 4, 8), (Subblock{2, 4}));
  EXPECT_EQ(chooseSubblock(4, 4, 16), (Subblock{4, 4}));
  EXPECT_EQ(chooseSubblock(3, 5, 8), (Subblock{1, 5}));
  EXPECT_EQ(chooseSubblock(6, 1, 4), (Subblock{3, 1}));
  EXPECT_EQ(chooseSubblock(7, 7, 1), (Subblock{1, 1}));
  EXPECT_FALSE(chooseSubblock(2, 2, 0));
}

TEST(Dst, SplitsThroughAnIntermediateCbAtTheOpThatOverflows) {
  // Five exp results summed: at op 4's read, a..d and x4 are live (5 > 4 tiles, fp32 half sync).
  std::vector<Op> ops;
  for (ValueId i = 0; i < 5; ++i)
    ops.push_back({"ttl.exp", {i}, 10 + i});
  ops.push_back({"ttl.add", {10, 11}, 20});
  ops.push_back({"ttl.add", {20, 12}, 21});
  ops.push_back({"ttl.add", {21, 13}, 22});
  ops.push_back({"ttl.add", {22, 14}, 23});
  Problem p = chainOf(ops, 2, 2, SyncMode::Half, /*fp32=*/true);
  p.intermediateTileBytes = 4096;
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  ASSERT_TRUE(r.exceedingOp);
  EXPECT_EQ(*r.exceedingOp, 4u);
  EXPECT_EQ(r.liveAtExceedingOp, 5);
  ASSERT_EQ(r.solution->segments.size(), 2u);
  EXPECT_EQ(r.solution->segments[0].endOp, 4u);
  // One CB per crossing value, each a 2x2 block of fp32 tiles.
  ASSERT_EQ(r.solution->intermediates.size(), 4u);
  for (ValueId v = 10; v < 14; ++v) {
    const IntermediateCb& cb = r.solution->intermediates[static_cast<size_t>(v - 10)];
    EXPECT_EQ(cb, (IntermediateCb{3, v, 2, 2, 4, 4 * 4096}));
  }
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  EXPECT_NE(r.message.find("op 4 (ttl.exp)"), std::string::npos);
}

TEST(Dst, OpWhoseOperandsExceedCapacityIsInfeasible) {
  // op 1 reads five values: no split helps with 4 tiles.
  Problem p = chainOf({{"ttl.exp", {0}, 1}, {"ttl.where5", {1, 2, 3, 4, 5}, 6}}, 1, 1,
                      SyncMode::Half, true);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Infeasible);
  ASSERT_TRUE(r.exceedingOp);
  EXPECT_EQ(*r.exceedingOp, 1u);
  EXPECT_EQ(r.liveAtExceedingOp, 5);
  EXPECT_FALSE(r.solution);
  EXPECT_NE(r.message.find("ttl.where5"), std::string::npos);
  setFp32(p, false); // 8 tiles: fits at 1x1
  EXPECT_EQ(solve(p).status, SolveStatus::Optimal);
}

TEST(Dst, MalformedChainsAreErrors) {
  EXPECT_EQ(solve(chainOf({}, 1, 1)).status, SolveStatus::Error);
  EXPECT_EQ(solve(chainOf({{"ttl.exp", {0}, 1}}, 0, 1)).status, SolveStatus::Error);
  EXPECT_EQ(solve(chainOf({{"ttl.exp", {0}, 1}, {"ttl.exp", {0}, 1}}, 1, 1)).status,
            SolveStatus::Error); // defined twice
  EXPECT_EQ(solve(chainOf({{"ttl.exp", {2}, 1}, {"ttl.exp", {0}, 2}}, 1, 1)).status,
            SolveStatus::Error); // read before defined
  EXPECT_EQ(solve(chainOf({{"ttl.exp", {1}, 1}}, 1, 1)).status, SolveStatus::Error);
  EXPECT_EQ(solve(chainOf({{"ttl.exp", {-1}, 1}}, 1, 1)).status, SolveStatus::Error);
  EXPECT_EQ(solve(chainOf({{"ttl.exp", {0}, 1, false, 0, 2}}, 1, 1)).status,
            SolveStatus::Error); // a 0x2 output block
  Problem badResult = chainOf({{"ttl.exp", {0}, 1}}, 1, 1);
  badResult.chain.results = {0};
  EXPECT_EQ(solve(badResult).status, SolveStatus::Error);
  Problem zero = chainOf({{"ttl.exp", {0}, 1}}, 1, 1, SyncMode::Half, true);
  zero.capacityTiles = 0;
  EXPECT_EQ(solve(zero).status, SolveStatus::Error);
}

TEST(Dst, ResultsStayLiveUntilPacked) {
  // a = exp x; b = relu a; both results: a stays live past b's write, so 2 slots.
  Problem p = chainOf({{"ttl.exp", {0}, 1}, {"ttl.relu", {1}, 2}}, 2, 2);
  p.chain.results = {1, 2};
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  const Segment& s = r.solution->segments[0];
  EXPECT_NE(s.slots[1], s.slots[2]);
  EXPECT_EQ(s.peakTiles, 8);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
}

TEST(Dst, ValidatorNamesWhatIsWrong) {
  Problem p = chainOf({{"ttl.add", {0, 1}, 2}, {"ttl.exp", {2}, 3}}, 4, 4);
  Result r = solve(p);
  ASSERT_TRUE(r.solution);
  const Solution good = *r.solution;
  ASSERT_EQ(validate(p, good), Validity::Valid);
  Solution s = good;
  s.segments.clear();
  EXPECT_EQ(validate(p, s), Validity::BadSegments);
  s = good;
  s.segments[0].endOp = 1;
  EXPECT_EQ(validate(p, s), Validity::BadSegments);
  s = good;
  s.segments[0].subblockCols = 3;
  EXPECT_EQ(validate(p, s), Validity::SubblockDoesNotDivide);
  s = good;
  s.segments[0].slots[1] = s.segments[0].slots[0];
  EXPECT_EQ(validate(p, s), Validity::SharedSlot);
  s = good;
  s.segments[0].slots[0] = -1;
  EXPECT_EQ(validate(p, s), Validity::MissingSlot);
  s = good;
  s.segments[0].slots[1] = 2; // 8 tiles / 4 per slot = 2 slots
  EXPECT_EQ(validate(p, s), Validity::SlotOutOfRange);
  s = good;
  s.segments[0].rounds += 1;
  EXPECT_EQ(validate(p, s), Validity::WrongRounds);
  s = good;
  s.rounds += 1;
  EXPECT_EQ(validate(p, s), Validity::WrongRounds);
  s = good;
  s.segments[0].peakTiles = 4;
  EXPECT_EQ(validate(p, s), Validity::WrongPeak);
  s = good;
  s.intermediates.push_back({0, 2, 4, 4, 16, 16 * 2048});
  EXPECT_EQ(validate(p, s), Validity::WrongIntermediates);
  // Splitting where it was not needed is still valid if the intermediate CB is declared.
  s = good;
  Segment second = s.segments[0];
  s.segments[0].endOp = 1;
  second.firstOp = 1;
  second.peakTiles = second.subblockRows * second.subblockCols; // only slot 0 is live there
  s.segments.push_back(second);
  s.rounds *= 2;
  EXPECT_EQ(validate(p, s), Validity::WrongIntermediates);
  s.intermediates.push_back({0, 2, 4, 4, 16, 16 * 2048});
  EXPECT_EQ(validate(p, s), Validity::Valid);
  s.intermediates[0].rows = 1; // the value's block is 4x4
  EXPECT_EQ(validate(p, s), Validity::WrongIntermediates);
  EXPECT_EQ(validate(chainOf({}, 1, 1), good), Validity::InvalidProblem);
}

/// softmax_row's chain on a 1x8 block (value ids as lower::extractChains numbers them):
///   x 0; m 1 = reduce_max(x) 1x1; mb 2 = bcast(m); d 3 = x - mb; e 4 = exp(d);
///   s 5 = reduce_sum(e) 1x1; i 6 = recip(s) 1x1; ib 7 = bcast(i); y 8 = e * ib.
Problem softmaxChain() {
  return chainOf({{"ttl.reduce_max", {0}, 1, true, 1, 1},
                  {"ttl.bcast", {1}, 2, true},
                  {"ttl.sub", {0, 2}, 3},
                  {"ttl.exp", {3}, 4},
                  {"ttl.reduce_sum", {4}, 5, true, 1, 1},
                  {"ttl.recip", {5}, 6, false, 1, 1},
                  {"ttl.bcast", {6}, 7, true},
                  {"ttl.mul", {4, 7}, 8}},
                 1, 8);
}

TEST(Dst, ReductionsAndBroadcastsOfComputedValuesCutTheChain) {
  Problem p = softmaxChain();
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  const Solution& s = *r.solution;
  EXPECT_EQ(validate(p, s), Validity::Valid);
  EXPECT_FALSE(r.exceedingOp); // it fits DST: every cut is forced by the rules
  // Cuts before the bcast of m, the reduce_sum of e and the bcast of i; each segment has one
  // block (the reductions' 1x1, the rest 1x8).
  ASSERT_EQ(s.segments.size(), 4u);
  const std::vector<std::array<int64_t, 6>> want = {
      // first, end, block rows, cols, sub-block cols, rounds
      {0, 1, 1, 1, 1, 1},
      {1, 4, 1, 8, 4, 2}, // mb and x live at the sub: 2 slots of 4 tiles
      {4, 6, 1, 1, 1, 1},
      {6, 8, 1, 8, 4, 2}}; // ib and e (from its CB) live at the mul
  for (size_t i = 0; i < want.size(); ++i) {
    const Segment& g = s.segments[i];
    EXPECT_EQ(
        (std::array<int64_t, 6>{static_cast<int64_t>(g.firstOp), static_cast<int64_t>(g.endOp),
                                g.blockRows, g.blockCols, g.subblockCols, g.rounds}),
        want[i])
        << "segment " << i;
  }
  EXPECT_EQ(s.rounds, 6);
  // x streams into the reduction (no DST there), but is unpacked for the sub.
  EXPECT_EQ(s.segments[0].slots[0], -1);
  EXPECT_GE(s.segments[1].slots[0], 0);
  EXPECT_EQ(s.segments[2].slots[4], -1); // e streams into reduce_sum
  // One CB per crossing value, of its own block: m (1 tile), e (8, read by reduce_sum and by
  // the mul two segments later: one CB serves both), i (1).
  EXPECT_EQ(s.intermediates,
            (std::vector<IntermediateCb>{
                {0, 1, 1, 1, 1, 2048}, {3, 4, 1, 8, 8, 8 * 2048}, {5, 6, 1, 1, 1, 2048}}));
  EXPECT_NE(r.message.find("split into 4 segments"), std::string::npos) << r.message;
}

TEST(Dst, ReductionOperandsStreamAndTakeNoDst) {
  // r = reduce_sum(x) over dims [1] of an 8x8 view into an 8x1 block, fp32 half sync (4 tiles):
  // x streams from its CB (no slot: lower-compute unpacks it with reduce_tile, not copy_tile), the
  // accumulator alone takes DST: 4x1 sub-blocks of the 8x1 block, 2 rounds.
  Problem p = chainOf({{"ttl.reduce_sum", {0}, 1, true, 8, 1}}, 8, 1, SyncMode::Half, true);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  const Segment& g = r.solution->segments.at(0);
  EXPECT_EQ(g.slots[0], -1);
  EXPECT_EQ(g.slots[1], 0);
  EXPECT_EQ(g.blockRows, 8);
  EXPECT_EQ(g.blockCols, 1);
  EXPECT_EQ(g.subblockRows, 4);
  EXPECT_EQ(g.rounds, 2);
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
  // A slot for x where the validator expects none is still valid (unused), but the accumulator
  // sharing a slot with a value live at its read point is not: r = reduce(x) while e = exp(y)
  // stays live for z = e + r.
  Problem q = chainOf({{"ttl.exp", {0}, 1, false, 8, 1},
                       {"ttl.reduce_sum", {2}, 3, true, 8, 1},
                       {"ttl.add", {1, 3}, 4, false, 8, 1}},
                      8, 1, SyncMode::Half, true);
  Result rq = solve(q);
  ASSERT_TRUE(rq.solution);
  Solution bad = *rq.solution;
  EXPECT_NE(bad.segments[0].slots[1], bad.segments[0].slots[3]);
  bad.segments[0].slots[3] = bad.segments[0].slots[1];
  EXPECT_EQ(validate(q, bad), Validity::SharedSlot);
}

TEST(Dst, MatmulOfAComputedOperandReadsItFromAnIntermediateCb) {
  // e = exp(a) (2x3 block), c = e @ b (2x4): e goes through a 2x3 CB; the matmul segment has the
  // 2x4 block.
  Problem p = chainOf({{"ttl.exp", {0}, 1, false, 2, 3}, {"ttl.matmul", {1, 2}, 3, true}}, 2, 4);
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  ASSERT_EQ(r.solution->segments.size(), 2u);
  EXPECT_EQ(r.solution->segments[0].blockCols, 3);
  EXPECT_EQ(r.solution->segments[1].blockCols, 4);
  EXPECT_EQ(r.solution->segments[1].slots[1], -1); // streamed from the CB
  EXPECT_EQ(r.solution->intermediates, (std::vector<IntermediateCb>{{0, 1, 2, 3, 6, 6 * 2048}}));
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
}

TEST(Dst, ABlockChangeAloneCutsTheChain) {
  // r = reduce_sum(x) (2x1, from a view), then q = exp(y) on the 2x2 block of another view: no
  // value crosses (the planner has no op combining them; the test is about the rule only).
  Problem p = chainOf({{"ttl.reduce_sum", {0}, 1, true, 2, 1}, {"ttl.exp", {2}, 3}}, 2, 2);
  p.chain.results = {1, 3};
  Result r = solve(p);
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  ASSERT_EQ(r.solution->segments.size(), 2u);
  EXPECT_TRUE(r.solution->intermediates.empty()); // results are packed by the store, not a CB
  EXPECT_EQ(validate(p, *r.solution), Validity::Valid);
}

TEST(Dst, ValidatorChecksTheSegmentRules) {
  Problem p = softmaxChain();
  Result r = solve(p);
  ASSERT_TRUE(r.solution);
  // Segments 0 and 1 merged: the reduction's 1x1 block is not the segment's 1x8.
  Solution merged = *r.solution;
  merged.segments[1].firstOp = 0;
  merged.rounds -= merged.segments[0].rounds;
  merged.segments.erase(merged.segments.begin());
  merged.intermediates.erase(merged.intermediates.begin());
  EXPECT_EQ(validate(p, merged), Validity::MixedBlocks);
  // A bcast of a value computed in its own segment (same blocks, so only that rule is broken).
  Problem q = chainOf({{"ttl.exp", {0}, 1}, {"ttl.bcast", {1}, 2, true}}, 1, 1);
  Result rq = solve(q);
  ASSERT_TRUE(rq.solution);
  ASSERT_EQ(rq.solution->segments.size(), 2u);
  EXPECT_EQ(validate(q, *rq.solution), Validity::Valid);
  Solution one = *rq.solution;
  one.segments[0].endOp = 2;
  one.segments[0].slots = one.segments[1].slots;
  one.segments[0].slots[1] = 0;
  one.segments.pop_back();
  one.intermediates.clear();
  one.rounds = 1;
  EXPECT_EQ(validate(q, one), Validity::CbOperandInSegment);
  // The segment's block must be its ops' block.
  Solution wrongBlock = *r.solution;
  wrongBlock.segments[0].blockCols = 8;
  EXPECT_EQ(validate(p, wrongBlock), Validity::MixedBlocks);
}

} // namespace
} // namespace ttlplan::planner::dst
