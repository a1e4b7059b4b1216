// planner::kernel::plan on hand-built KernelProblems (no IR): CB placement and `?` block counts
// against the free L1, CB indices, DST chains and the rejections' numbers. Every expected value is
// worked out by hand in the comments.
#include "ttlplan/planner/kernel/Plan.h"

#include <gtest/gtest.h>
#include <set>

namespace ttlplan::planner::kernel {
namespace {

/// A bf16 CB of `rows` x `cols` tiles (2,048 B a tile); nullopt count: `?`.
CbSpec cb(std::string name, int64_t rows, int64_t cols, std::optional<int64_t> count) {
  CbSpec s;
  s.name = std::move(name);
  s.location = "hand.ttl:1:1";
  s.blockShape = {rows, cols};
  s.dataType = "bf16";
  s.tileBytes = 2048;
  s.blockCount = count;
  return s;
}

/// One core, no work, no pipes; `free` bytes of L1 from base 100,000, 32-B alignment, 32 CBs.
KernelProblem kernelOf(std::vector<CbSpec> cbs, int64_t free) {
  KernelProblem k;
  k.name = "@hand";
  k.location = "hand.ttl:1:1";
  k.cbs = std::move(cbs);
  k.limits.device = "hand-device";
  k.limits.l1Base = 100000;
  k.limits.l1FreeBytes = free;
  k.limits.cbAlignment = 32;
  k.limits.cbLimit = 32;
  k.limits.semaphoresPerCore = 16;
  k.limits.grid = {1, 1};
  k.grid = {1, 1};
  k.multicast = multicast::Problem{};
  k.multicast->rows = 1;
  k.multicast->cols = 1;
  return k;
}

/// A (2x1, 2 blocks) 8,192 B, B (1x2, 2 blocks) 8,192 B, C (2x2, `?`) 8,192 B a block.
std::vector<CbSpec> matmulCbs() {
  return {cb("%a", 2, 1, 2), cb("%b", 1, 2, 2), cb("%c", 2, 2, std::nullopt)};
}

TEST(KernelPlan, CbsArePackedFromTheBaseWithTheDeepestQuestionCountThatFits) {
  PlanResult r = plan(kernelOf(matmulCbs(), 1 << 20));
  ASSERT_TRUE(r.plan) << r.rejection->message;
  const KernelPlan& p = *r.plan;
  ASSERT_EQ(p.cbs.size(), 3u);
  // `?` takes --max-block-count (4): 4 x 8,192 = 32,768 B; 8,192 + 8,192 + 32,768 = 49,152 B.
  EXPECT_EQ(p.cbs[2].blockCount, 4);
  EXPECT_TRUE(p.cbs[2].chosenByPlanner);
  EXPECT_FALSE(p.cbs[0].chosenByPlanner);
  EXPECT_EQ(p.cbs[2].bytes, 32768);
  EXPECT_EQ(p.l1Used, 49152);
  // Every CB lives the whole program: program order from the base, no gaps (8,192 is aligned).
  EXPECT_EQ(p.cbs[0].address, 100000);
  EXPECT_EQ(p.cbs[1].address, 108192);
  EXPECT_EQ(p.cbs[2].address, 116384);
  std::set<int> indices;
  for (const CbPlan& c : p.cbs)
    indices.insert(c.index);
  EXPECT_EQ(indices, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(validatePlan(p), "");
}

TEST(KernelPlan, TheLargestQuestionCbShrinksFirstUntilL1Fits) {
  // A and B 16,384 B fixed; C 8,192 B a block and D 2,048 B a block, both `?` from 4:
  // 16,384 + 32,768 + 8,192 = 57,344 B > 45,000. C to 3: 49,152 B, still over; C (24,576 B) is
  // still the largest: to 2, 40,960 B, fits. D keeps 4.
  std::vector<CbSpec> cbs = matmulCbs();
  cbs.push_back(cb("%d", 1, 1, std::nullopt));
  PlanResult r = plan(kernelOf(cbs, 45000));
  ASSERT_TRUE(r.plan) << r.rejection->message;
  EXPECT_EQ(r.plan->cbs[2].blockCount, 2);
  EXPECT_EQ(r.plan->cbs[3].blockCount, 4);
  EXPECT_EQ(r.plan->l1Used, 40960);
  EXPECT_EQ(validatePlan(*r.plan), "");
  // A count the caller fixes is kept: C at 3 and D shrinks instead. 16,384 + 24,576 = 40,960,
  // leaving 4,040 B for D: one block of 2,048 fits, two (4,096) do not.
  PlanOptions fixed;
  fixed.blockCounts[2] = 3;
  PlanResult f = plan(kernelOf(cbs, 45000), fixed);
  ASSERT_TRUE(f.plan) << f.rejection->message;
  EXPECT_EQ(f.plan->cbs[2].blockCount, 3);
  EXPECT_EQ(f.plan->cbs[3].blockCount, 1);
  EXPECT_EQ(f.plan->l1Used, 43008);
}

TEST(KernelPlan, L1RejectionCountsTheSmallestCountsAndNamesTheCbs) {
  // At one block of C the CBs take 8,192 * 3 = 24,576 B; 20,000 are free.
  PlanResult r = plan(kernelOf(matmulCbs(), 20000));
  ASSERT_FALSE(r.plan);
  ASSERT_TRUE(r.rejection);
  EXPECT_EQ(r.rejection->resource, Resource::L1);
  EXPECT_EQ(r.rejection->needed, 24576);
  EXPECT_EQ(r.rejection->available, 20000);
  EXPECT_EQ(r.rejection->cbs.size(), 3u);
  EXPECT_NE(r.rejection->message.find("short by 4,576 B"), std::string::npos)
      << r.rejection->message;
  EXPECT_NE(r.rejection->message.find("%a"), std::string::npos) << r.rejection->message;
}

TEST(KernelPlan, MoreCbsThanIndicesIsACbIndexRejection) {
  KernelProblem k = kernelOf(matmulCbs(), 1 << 20);
  k.limits.cbLimit = 2;
  PlanResult r = plan(k);
  ASSERT_FALSE(r.plan);
  EXPECT_EQ(r.rejection->resource, Resource::CbIndices);
  EXPECT_EQ(r.rejection->needed, 3);
  EXPECT_EQ(r.rejection->available, 2);
  EXPECT_NE(r.rejection->message.find("short by 1"), std::string::npos) << r.rejection->message;
}

TEST(KernelPlan, AChainIsPlannedAtItsCapacity) {
  // x -> exp -> relu on C's 2x2 block: one live value; 8 tiles fit the whole block in one round,
  // 2 tiles take two rounds of 1x2 (wider first).
  KernelProblem k = kernelOf(matmulCbs(), 1 << 20);
  ChainSpec chain;
  chain.id = "%r -> %c";
  chain.location = "hand.ttl:9:9";
  chain.dataType = "bf16";
  chain.problem.chain.id = chain.id;
  chain.problem.chain.ops = {{"ttl.exp", {0}, 1}, {"ttl.relu", {1}, 2}};
  chain.problem.chain.blockRows = 2;
  chain.problem.chain.blockCols = 2;
  chain.ops = {{"ttl.exp", "hand.ttl:7:9", "%e"}, {"ttl.relu", "hand.ttl:8:9", "%r"}};
  for (int64_t capacity : {8, 2}) {
    chain.problem.capacityTiles = capacity;
    k.chains = {chain};
    PlanResult r = plan(k);
    ASSERT_TRUE(r.plan) << r.rejection->message;
    ASSERT_EQ(r.plan->chains.size(), 1u);
    const ChainPlan& c = r.plan->chains[0];
    EXPECT_EQ(c.capacityTiles, capacity);
    EXPECT_EQ(c.solution.rounds, capacity == 8 ? 1 : 2);
    ASSERT_EQ(c.solution.segments.size(), 1u);
    EXPECT_EQ(c.solution.segments[0].subblockRows, capacity == 8 ? 2 : 1);
    EXPECT_EQ(c.solution.segments[0].subblockCols, 2);
    EXPECT_EQ(validatePlan(*r.plan), "");
  }
  // No capacity at all: the chain is malformed, not planned.
  chain.problem.capacityTiles = 0;
  k.chains = {chain};
  PlanResult bad = plan(k);
  ASSERT_FALSE(bad.plan);
  EXPECT_EQ(bad.rejection->resource, Resource::Invalid);
}

} // namespace
} // namespace ttlplan::planner::kernel
