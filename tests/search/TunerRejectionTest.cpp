// The autotuner's rejection reasons (search/Tuner.h, docs/tuning.md "Evaluating a point"): one
// small kernel per reason that tests/search/TunerTest.cpp does not reach (dst, multicast,
// semaphores, limit, invalid, cost), each rejected for some knob values and accepted for
// others, with the exact Record::reason and the sentence of Record::detail that names the resource.
#include "tests/support/LoadModule.h"
#include "ttlplan/search/Tuner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>

namespace ttlplan::search {
namespace {

ir::Device wormhole() {
  return *ir::builtinDevice("wormhole_b0");
}

/// Checks that `module` fits at `accepted` and is rejected at `rejected` for `reason`, with each
/// of `details` in the record's detail; returns the accepted record.
Record expectRejected(const ir::Module& module, const ir::Binding& accepted,
                      const ir::Binding& rejected, const std::string& reason,
                      const std::vector<std::string>& details) {
  ir::Device d = wormhole();
  Record fits = evaluatePoint(module, d, accepted, {}, {}, nullptr);
  EXPECT_TRUE(fits.ok()) << fits.reason << ": " << fits.detail;
  Record r = evaluatePoint(module, d, rejected, {}, {}, nullptr);
  EXPECT_EQ(r.status, "rejected");
  EXPECT_EQ(r.reason, reason);
  for (const std::string& detail : details)
    EXPECT_NE(r.detail.find(detail), std::string::npos) << detail << "\nin: " << r.detail;
  return fits;
}

/// tests/search/kernels/`name` (one kernel per rejection reason, or two for one reason), parsed
/// and verified.
std::unique_ptr<ir::Module> kernel(const std::string& name) {
  return testing::loadVerified(testing::testKernelPath("search/kernels/" + name));
}

// ---------------------------------------------------------------------------------------------
// dst

TEST(TunerRejection, DstWhenOneOpNeedsMoreTilesThanTheRegisterHolds) {
  // The DST planner splits any chain into one-op segments at a 1 x 1 sub-block, so a chain is
  // rejected only when a single op's live tiles exceed the capacity (planner/dst/Solve.cpp). An
  // elementwise op reads at most 2 tiles, and the built-in devices hold at least 4 (Wormhole and
  // Blackhole: 16 tiles full sync, halved for half sync and again for fp32 accumulation), so this
  // takes a device description (`--device-file`) with a 2-tile fp32 DST: half sync and fp32 give
  // 2 * 2 / 2 / 2 = 1 tile, and ttl.add needs 2. Without fp32 it keeps 16 / 2 = 8 tiles.
  nlohmann::json json = ir::toJson(wormhole());
  json["name"] = "small_dst";
  json["dst"]["tiles_full_sync_fp32"] = 2;
  json["dst"]["tiles_half_sync_fp32"] = 1;
  Expected<ir::Device> device = ir::parseDevice(json.dump(), "small_dst.json");
  ASSERT_TRUE(device) << device.error().message;
  auto module = kernel("add.ttl"); // C = A + B on one core, fp32 accumulation the knob @ACC
  ASSERT_TRUE(module);

  Record fits = evaluatePoint(*module, *device, {{"ACC", 0}}, {}, {}, nullptr);
  EXPECT_EQ(fits.reason, "") << fits.detail;
  EXPECT_TRUE(fits.ok());
  Record r = evaluatePoint(*module, *device, {{"ACC", 1}}, {}, {}, nullptr);
  EXPECT_EQ(r.status, "rejected");
  EXPECT_EQ(r.reason, "dst");
  EXPECT_NE(r.detail.find("DST: kernel @add: chain %s -> %o"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("does not fit 1 DST tiles"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("op 0 (ttl.add) alone needs 2 DST tiles at a 1x1 sub-block; capacity 1"),
            std::string::npos)
      << r.detail;
  // On Wormhole itself fp32 accumulation leaves 4 tiles: both points fit.
  EXPECT_TRUE(evaluatePoint(*module, wormhole(), {{"ACC", 1}}, {}, {}, nullptr).ok());

  // tune() counts the point under its reason.
  TuneOptions o;
  o.threads = 1;
  Expected<TuneResult> tuned = tune(*module, *device, {}, o);
  ASSERT_TRUE(tuned) << tuned.error().message;
  EXPECT_EQ(tuned->space.size(), 2u);
  EXPECT_EQ(tuned->feasible, 1u);
  EXPECT_EQ(tuned->rejected, (std::map<std::string, uint64_t>{{"dst", 1}}));
  ASSERT_EQ(tuned->top.size(), 1u);
  EXPECT_EQ(tuned->top.front().point, (ir::Binding{{"ACC", 0}}));
}

// ---------------------------------------------------------------------------------------------
// limit

TEST(TunerRejection, LimitWhenTheNodeBudgetEndsBeforeAPlacement) {
  // The exact L1 solver places one CB per search node after the root (planner/l1/ExactSolver.cpp,
  // Search::search charges a node before each step): 3 CBs take 4 nodes. The DST and CB-index
  // solves of this kernel are polynomial and count no nodes against the limit.
  auto module = kernel("add.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  auto withNodeLimit = [&](int64_t nodes) {
    planner::kernel::PlanOptions options;
    options.limits.nodeLimit = nodes;
    return evaluatePoint(*module, d, {{"ACC", 0}}, {}, options, nullptr);
  };
  EXPECT_TRUE(withNodeLimit(0).ok());
  EXPECT_TRUE(withNodeLimit(4).ok()) << withNodeLimit(4).detail;
  Record r = withNodeLimit(3);
  EXPECT_EQ(r.status, "rejected");
  EXPECT_EQ(r.reason, "limit");
  EXPECT_NE(r.detail.find("L1: kernel @add: limit reached before a placement within the capacity "
                          "was found (no solution)"),
            std::string::npos)
      << r.detail;

  // Through tune(): TuneOptions::plan carries the limit (--node-limit).
  TuneOptions o;
  o.threads = 1;
  o.plan.limits.nodeLimit = 1;
  Expected<TuneResult> tuned = tune(*module, d, {}, o);
  ASSERT_TRUE(tuned) << tuned.error().message;
  EXPECT_EQ(tuned->rejected, (std::map<std::string, uint64_t>{{"limit", 2}}));
  EXPECT_EQ(tuned->feasible, 0u);
}

// ---------------------------------------------------------------------------------------------
// multicast and semaphores

TEST(TunerRejection, MulticastWhenTwoNetsWriteTheSameBytes) {
  // One pipe per core of row 0: core (x, 0) sends one block to (S * x, 1) and row 1 receives it.
  // S = 1: disjoint nets. S = 0: both senders write the same CB bytes on core (0, 1) at once.
  auto module = kernel("converging_pipes.ttl");
  ASSERT_TRUE(module);
  expectRejected(*module, {{"S", 1}}, {{"S", 0}}, "multicast",
                 {"multicast: kernel @converge: ", "both write core (0, 1) at the same L1 bytes"});
}

TEST(TunerRejection, SemaphoresWhenNetsOnOneCoreNeedMoreIdsThanExist) {
  // Each net takes two semaphore ids (ready, valid) on every core it touches, and nets live
  // together on a core never share them: 8 nets need 16 ids, Wormhole's semaphores_per_core; 9
  // need 18. The kernels create 8 and 9 pipes, all from core (0, 0) to core (1, 0) of a 1 x 2
  // grid, but do not use them (the semaphore ids are reserved per net all the same).
  ir::Device d = wormhole();
  ASSERT_EQ(d.kernel.semaphoresPerCore, 16);
  auto eight = kernel("eight_pipes.ttl");
  ASSERT_TRUE(eight);
  Record fits = evaluatePoint(*eight, d, {}, {}, {}, nullptr);
  EXPECT_TRUE(fits.ok()) << fits.reason << ": " << fits.detail;
  auto nine = kernel("nine_pipes.ttl");
  ASSERT_TRUE(nine);
  Record r = evaluatePoint(*nine, d, {}, {}, {}, nullptr);
  EXPECT_EQ(r.status, "rejected");
  EXPECT_EQ(r.reason, "semaphores");
  EXPECT_NE(r.detail.find("multicast: kernel @pipes: semaphores: 18 ids needed on core (0, 0) but "
                          "the limit is 16 per core"),
            std::string::npos)
      << r.detail;
  EXPECT_NE(r.detail.find("%p8"), std::string::npos) << r.detail;
}

// ---------------------------------------------------------------------------------------------
// invalid: a pipe to a core outside the grid, found before planning or by the planner

TEST(TunerRejection, InvalidWhenAPipeLeavesTheKnobGrid) {
  // grid = [1, @N]: the grid is known before planning, so the pipes are extracted with the
  // problem (lower::extractKernelProblem) and a destination outside a 1 x 1 grid is `invalid`,
  // the reason the planner gives the same failure when it extracts the pipes itself (below).
  // Core (0, 0) sends one block to core (1, 0).
  auto module = kernel("pipe_right_knob_grid.ttl");
  ASSERT_TRUE(module);
  expectRejected(*module, {{"N", 2}}, {{"N", 1}}, "invalid",
                 {"pipe '%p' on core (0, 0): destination (1, 0) to (1, 0) is not a rectangle "
                  "inside the grid"});
}

TEST(TunerRejection, InvalidWhenAPipeLeavesThePlannersGrid) {
  // grid "auto" with @N work items: the cores planner chooses the grid (1 x 1 for one item, 1 x 2
  // for two), so the pipes are extracted only after planning (lower::planKernel), where a failure
  // is a Rejection of resource Invalid.
  // Core (0, 0) sends one block to core (1, 0) in each work item.
  auto module = kernel("pipe_right_work_items.ttl");
  ASSERT_TRUE(module);
  Record fits = expectRejected(*module, {{"N", 2}}, {{"N", 1}}, "invalid",
                               {"pipe '%p' on core (0, 0): destination (1, 0) to (1, 0) is not a "
                                "rectangle inside the grid"});
  EXPECT_EQ(fits.cores, 2);
}

// ---------------------------------------------------------------------------------------------
// cost

TEST(TunerRejection, CostWhenLoopBoundsDoNotFold) {
  // S = 1 makes the loop's step 0: the cost model cannot count its iterations
  // (search/cost/Extract.cpp, Walker::loop). The planner does not read loop bounds, so the point
  // plans and only the cost model rejects it.
  // One block read, abs'd and written on one core; the reader's loop has step @S - 1.
  auto module = kernel("looped.ttl");
  ASSERT_TRUE(module);
  expectRejected(*module, {{"S", 2}}, {{"S", 1}}, "cost",
                 {"error: cost model: the loop bounds do not fold to constants on this core"});
}

TEST(TunerRejection, CostWhenTheSimulationDeadlocks) {
  // R = 2: the compute thread waits for a second block of %cbi that the reader never pushes.
  // One block read on one core; the compute and writer threads run @R times each.
  auto module = kernel("starved.ttl");
  ASSERT_TRUE(module);
  expectRejected(*module, {{"R", 1}}, {{"R", 2}}, "cost",
                 {"cost simulation: compute thread of core class 'core (0,0)' blocks forever in "
                  "wait on empty CB %cbi"});
}

} // namespace
} // namespace ttlplan::search
