// DST allocation on 10,000 seeded random chains: every plan passes the validator; the sub-block
// minimises rounds among all divisor pairs that fit (brute force here, with liveness recomputed
// here point by point); splits use the fewest segments (brute force over all cut sets, each
// segment checked against the rules: fits at 1x1, no CB operand computed in the segment, one
// output block); the infeasible op is the first that cannot fit alone; the ttnn list never beats
// the optimum.
#include "ttlplan/planner/dst/Solve.h"
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

namespace ttlplan::planner::dst {
namespace {

constexpr int kProblems = 10000;

/// Reads `v` into DST (an op with CB operands streams them instead).
bool reads(const Op& op, ValueId v) {
  return !op.cbOperands && std::find(op.inputs.begin(), op.inputs.end(), v) != op.inputs.end();
}

/// Reads `v` at all (from DST or streamed from a CB).
bool readsAny(const Op& op, ValueId v) {
  return std::find(op.inputs.begin(), op.inputs.end(), v) != op.inputs.end();
}

std::pair<int64_t, int64_t> blockOf(const Chain& c, const Op& op) {
  return op.rows == 0 ? std::pair{c.blockRows, c.blockCols} : std::pair{op.rows, op.cols};
}

/// Ops [a, b) may form a segment apart from DST capacity: one output block, and no op reading a
/// CB operand that an earlier op of the range computes.
bool allowed(const Problem& p, size_t a, size_t b) {
  const Chain& c = p.chain;
  for (size_t i = a; i < b; ++i) {
    if (blockOf(c, c.ops[i]) != blockOf(c, c.ops[a])) return false;
    if (!c.ops[i].cbOperands) continue;
    for (size_t k = a; k < i; ++k)
      if (readsAny(c.ops[i], c.ops[k].output)) return false;
  }
  return true;
}

/// The most values live at one point of ops [a, b), straight from the rules in Solve.h.
int liveAt(const Problem& p, size_t a, size_t b) {
  const Chain& c = p.chain;
  ValueId top = 0;
  for (const Op& op : c.ops) {
    top = std::max(top, op.output);
    for (ValueId x : op.inputs)
      top = std::max(top, x);
  }
  std::vector<ValueId> results = c.results;
  if (results.empty()) results.push_back(c.ops.back().output);
  int best = 0;
  for (size_t i = a; i < b; ++i)
    for (int phase = 0; phase < 2; ++phase) { // 0: read of op i, 1: write of op i
      const int64_t point = 2 * static_cast<int64_t>(i) + 1 + phase;
      int live = 0;
      for (ValueId v = 0; v <= top; ++v) {
        int64_t def = -1;
        for (size_t k = 0; k < c.ops.size(); ++k)
          if (c.ops[k].output == v) def = static_cast<int64_t>(k);
        const bool here = def >= static_cast<int64_t>(a) && def < static_cast<int64_t>(b);
        int64_t start = -1, end = -1;
        std::vector<size_t> readsHere;
        for (size_t k = a; k < b; ++k)
          if (reads(c.ops[k], v)) readsHere.push_back(k);
        if (here) {
          start = 2 * def + (c.ops[static_cast<size_t>(def)].cbOperands ? 1 : 2);
          end = start;
        } else if (!readsHere.empty()) {
          start = 2 * static_cast<int64_t>(readsHere.front()) + 1;
        } else {
          continue;
        }
        if (!readsHere.empty()) end = std::max(end, 2 * static_cast<int64_t>(readsHere.back()) + 1);
        bool later = std::find(results.begin(), results.end(), v) != results.end();
        for (size_t k = b; k < c.ops.size(); ++k)
          later = later || readsAny(c.ops[k], v);
        if (here && later) end = 2 * static_cast<int64_t>(b - 1) + 2;
        live += start <= point && point <= end;
      }
      best = std::max(best, live);
    }
  return best;
}

/// Fewest segments that each fit at 1x1 and obey the rules, by trying every cut set; 0 when none
/// does.
size_t bruteForceSegments(const Problem& p, int64_t capacity) {
  const size_t n = p.chain.ops.size();
  size_t best = 0;
  for (uint32_t mask = 0; mask < (1u << (n - 1)); ++mask) {
    size_t segments = 1, a = 0;
    bool ok = true;
    for (size_t i = 0; i + 1 < n && ok; ++i)
      if (mask & (1u << i)) {
        ok = allowed(p, a, i + 1) && liveAt(p, a, i + 1) <= capacity;
        a = i + 1;
        ++segments;
      }
    ok = ok && allowed(p, a, n) && liveAt(p, a, n) <= capacity;
    if (ok && (best == 0 || segments < best)) best = segments;
  }
  return best;
}

Problem randomChain(std::mt19937_64& rng) {
  Problem p;
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int n = uniform(1, 9);
  p.chain.blockRows = uniform(1, 8);
  p.chain.blockCols = uniform(1, 8);
  ValueId next = 0;
  std::vector<ValueId> values; // inputs and outputs so far
  std::vector<ValueId> outputs;
  for (int i = 0; i < n; ++i) {
    Op op;
    if (uniform(0, 9) < 2) {
      // matmul / reduce / bcast: CB operands, fresh views or (forcing a cut) computed values.
      static const char* kNames[] = {"ttl.matmul", "ttl.reduce_sum", "ttl.bcast"};
      op.name = kNames[uniform(0, 2)];
      op.cbOperands = true;
      for (int k = 0; k < (op.name == "ttl.matmul" ? 2 : 1); ++k) {
        if (outputs.empty() || uniform(0, 1) == 0) {
          values.push_back(next);
          op.inputs.push_back(next++);
        } else {
          op.inputs.push_back(outputs[static_cast<size_t>(uniform(0, int(outputs.size()) - 1))]);
        }
      }
      if (op.name == "ttl.reduce_sum") { // B x 1 or 1 x C
        op.rows = uniform(0, 1) ? p.chain.blockRows : 1;
        op.cols = op.rows == 1 ? p.chain.blockCols : 1;
      }
    } else {
      op.name = "op" + std::to_string(i);
      int arity = uniform(0, 19) == 0 ? uniform(4, 6) : uniform(1, 3);
      for (int k = 0; k < arity; ++k) {
        if (values.empty() || uniform(0, 9) < 3) {
          values.push_back(next);
          op.inputs.push_back(next++);
        } else {
          op.inputs.push_back(values[static_cast<size_t>(uniform(0, int(values.size()) - 1))]);
        }
      }
      if (i > 0 && uniform(0, 2) == 0) { // elementwise on the previous op's block
        op.rows = p.chain.ops.back().rows;
        op.cols = p.chain.ops.back().cols;
      }
    }
    op.output = next++;
    values.push_back(op.output);
    outputs.push_back(op.output);
    p.chain.ops.push_back(std::move(op));
  }
  if (uniform(0, 9) < 4)
    for (ValueId v : outputs)
      if (uniform(0, 2) == 0) p.chain.results.push_back(v);
  p.sync = uniform(0, 1) ? SyncMode::Full : SyncMode::Half;
  p.fp32Accumulation = uniform(0, 1) == 1;
  // Wormhole's and Blackhole's counts (ir/devices/*.json, dst).
  p.capacityTiles = (p.sync == SyncMode::Full ? 16 : 8) / (p.fp32Accumulation ? 2 : 1);
  p.intermediateTileBytes = p.fp32Accumulation ? 4096 : 2048;
  return p;
}

TEST(DstRandom, PlansAreValidAndOptimalAgainstBruteForce) {
  std::mt19937_64 rng(1234);
  int single = 0, split = 0, forcedSplit = 0, infeasible = 0, ttnnCompared = 0, ttnnWorse = 0;
  for (int t = 0; t < kProblems; ++t) {
    Problem p = randomChain(rng);
    ASSERT_TRUE(problemError(p).empty()) << problemError(p);
    const int64_t cap = p.capacityTiles;
    const size_t n = p.chain.ops.size();
    Result r = solve(p);
    const int whole = liveAt(p, 0, n);
    const bool rulesAllowOne = allowed(p, 0, n);
    if (r.status == SolveStatus::Infeasible) {
      ++infeasible;
      ASSERT_TRUE(r.exceedingOp);
      EXPECT_EQ(bruteForceSegments(p, cap), 0u) << "problem " << t;
      size_t first = n;
      for (size_t i = 0; i < n && first == n; ++i)
        if (liveAt(p, i, i + 1) > cap) first = i;
      EXPECT_EQ(*r.exceedingOp, first) << "problem " << t;
      continue;
    }
    ASSERT_EQ(r.status, SolveStatus::Optimal) << "problem " << t << ": " << r.message;
    const Solution& s = *r.solution;
    ASSERT_EQ(validate(p, s), Validity::Valid) << "problem " << t;
    if (whole <= cap && rulesAllowOne) {
      ++single;
      ASSERT_EQ(s.segments.size(), 1u);
      EXPECT_FALSE(r.exceedingOp);
      const auto [B, C] = blockOf(p.chain, p.chain.ops[0]);
      EXPECT_EQ(s.peakTiles, whole * s.segments[0].subblockRows * s.segments[0].subblockCols);
      // Brute force: every divisor pair that fits; the fewest rounds, then (a matmul chain) the
      // smallest h + w, then the widest.
      bool matmul = false;
      for (const Op& op : p.chain.ops)
        matmul = matmul || op.name == "ttl.matmul";
      int64_t bestRounds = 0, bestW = 0, bestSum = 0;
      for (int64_t h = 1; h <= B; ++h)
        for (int64_t w = 1; w <= C; ++w) {
          if (B % h || C % w || whole * h * w > cap) continue;
          int64_t rounds = (B / h) * (C / w), sum = matmul ? h + w : 0;
          if (bestRounds == 0 || rounds < bestRounds ||
              (rounds == bestRounds && (sum < bestSum || (sum == bestSum && w > bestW)))) {
            bestRounds = rounds;
            bestW = w;
            bestSum = sum;
          }
        }
      EXPECT_EQ(s.rounds, bestRounds) << "problem " << t;
      EXPECT_EQ(s.segments[0].subblockCols, bestW) << "problem " << t;
      // ttnn walks its list within the half-sync capacity, whatever the problem's sync mode.
      auto ttnn =
          search::baselines::ttnnSubblock(uint32_t(B), uint32_t(C), p.fp32Accumulation ? 4u : 8u);
      Subblock tt{int64_t(ttnn.h), int64_t(ttnn.w)};
      if (whole * tt.rows * tt.cols <= cap) {
        ++ttnnCompared;
        int64_t ttRounds = (B / tt.rows) * (C / tt.cols);
        EXPECT_LE(s.rounds, ttRounds) << "problem " << t;
        ttnnWorse += ttRounds > s.rounds;
      }
    } else {
      ++split;
      forcedSplit += whole <= cap;
      EXPECT_EQ(static_cast<bool>(r.exceedingOp), whole > cap) << "problem " << t;
      if (r.exceedingOp) {
        EXPECT_GT(r.liveAtExceedingOp, cap);
      }
      EXPECT_EQ(s.segments.size(), bruteForceSegments(p, cap)) << "problem " << t;
      // One intermediate CB per value that crosses a cut, of its op's block.
      size_t crossing = 0;
      int64_t intermediateTiles = 0;
      for (const Segment& seg : s.segments)
        for (size_t i = seg.firstOp; i < seg.endOp; ++i) {
          bool later = false;
          for (size_t k = seg.endOp; k < n; ++k)
            later = later || readsAny(p.chain.ops[k], p.chain.ops[i].output);
          crossing += later;
          if (later)
            intermediateTiles +=
                blockOf(p.chain, p.chain.ops[i]).first * blockOf(p.chain, p.chain.ops[i]).second;
        }
      EXPECT_EQ(s.intermediates.size(), crossing) << "problem " << t;
      int64_t tiles = 0;
      for (const IntermediateCb& cb : s.intermediates)
        tiles += cb.tiles;
      EXPECT_EQ(tiles, intermediateTiles) << "problem " << t;
      for (const Segment& seg : s.segments) {
        const int live = liveAt(p, seg.firstOp, seg.endOp);
        const auto [B, C] = blockOf(p.chain, p.chain.ops[seg.firstOp]);
        int64_t bestRounds = 0;
        for (int64_t h = 1; h <= B; ++h)
          for (int64_t w = 1; w <= C; ++w)
            if (B % h == 0 && C % w == 0 && live * h * w <= cap &&
                (bestRounds == 0 || (B / h) * (C / w) < bestRounds))
              bestRounds = (B / h) * (C / w);
        EXPECT_EQ(seg.rounds, bestRounds) << "problem " << t;
      }
    }
  }
  EXPECT_GT(single, kProblems / 2);
  EXPECT_GT(split, kProblems / 100);
  EXPECT_GT(forcedSplit, kProblems / 100); // splits that only the CB-operand / block rules force
  EXPECT_GT(infeasible, kProblems / 100);
  EXPECT_GT(ttnnWorse, 0);
  EXPECT_GT(ttnnCompared, kProblems / 10);
}

} // namespace
} // namespace ttlplan::planner::dst
