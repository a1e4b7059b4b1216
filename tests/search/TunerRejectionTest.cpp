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

/// `text` with every "$NAME" replaced by `value`.
std::string substitute(std::string text, const std::string& name, const std::string& value) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
    text.replace(at, name.size(), value);
  return text;
}

/// Aliases shared by the kernels: one-tile blocks of bf16, 32x32 DRAM matrices.
const std::string kAliases = R"(#dram = #ttl.layout<dram, interleaved>
!tile = !ttcore.tile<32x32, bf16>
!mat = tensor<32x32xbf16, #dram>
!blk = tensor<1x1x!tile>
!cb = !ttl.cb<[1, 1], !tile, 2>
!rd = !ttl.transfer_handle<read>
!wr = !ttl.transfer_handle<write>
)";

/// The reader's body: one block of %a read into %cbi.
const std::string kReadA = R"(
      %v = ttl.cb_reserve %cbi : !cb -> !blk
      %sa = ttl.tensor_slice %a[%c0, %c0] : !mat -> !blk
      %xa = ttl.copy %sa, %v : (!blk, !blk) -> !rd
      ttl.wait %xa : !rd
      ttl.cb_push %cbi : !cb
)";

/// A reader body that moves one block over pipe %p: its sender reads it from %a and sends it,
/// its receiver takes it; both push it into %cbi.
const std::string kSendOverPipe = R"(
      %v = ttl.cb_reserve %cbi : !cb -> !blk
      ttl.if_src %p {
        %sa = ttl.tensor_slice %a[%c0, %c0] : !mat -> !blk
        %xa = ttl.copy %sa, %v : (!blk, !blk) -> !rd
        ttl.wait %xa : !rd
        %t = ttl.copy %v, %p : (!blk, !ttl.pipe) -> !wr
        ttl.wait %t : !wr
      }
      ttl.if_dst %p {
        %r = ttl.copy %p, %v : (!ttl.pipe, !blk) -> !rd
        ttl.wait %r : !rd
      }
      ttl.cb_push %cbi : !cb
)";

/// A compute thread that applies `ttl.abs` to one block of %cbi into %cbo, and a writer thread
/// that writes it to %c; `open` and `close` wrap both bodies (a work loop, say).
std::string absAndWriter(const std::string& open = "", const std::string& close = "") {
  return R"(
    ttl.compute_thread {
      )" +
         open + R"(
      %x = ttl.cb_wait %cbi : !cb -> !blk
      %o = ttl.cb_reserve %cbo : !cb -> !blk
      %y = ttl.abs %x : !blk
      ttl.store %y, %o : !blk
      ttl.cb_push %cbo : !cb
      ttl.cb_pop %cbi : !cb
      )" +
         close + R"(
    }
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      )" +
         open + R"(
      %w = ttl.cb_wait %cbo : !cb -> !blk
      %sc = ttl.tensor_slice %c[%c0, %c0] : !mat -> !blk
      %xc = ttl.copy %w, %sc : (!blk, !blk) -> !wr
      ttl.wait %xc : !wr
      ttl.cb_pop %cbo : !cb
      )" +
         close + R"(
    }
)";
}

// ---------------------------------------------------------------------------------------------
// dst

/// C = A + B on one core, fp32 accumulation a knob.
const std::string kAdd = kAliases + R"(module {
  ttl.param @ACC = [0, 1]
  ttl.kernel @add(%a: !mat, %b: !mat, %c: !mat) attributes {grid = [1, 1], fp32_dest_acc = @ACC} {
    %cba = ttl.create_cb : !cb
    %cbb = ttl.create_cb : !cb
    %cbc = ttl.create_cb : !cb
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      %va = ttl.cb_reserve %cba : !cb -> !blk
      %sa = ttl.tensor_slice %a[%c0, %c0] : !mat -> !blk
      %xa = ttl.copy %sa, %va : (!blk, !blk) -> !rd
      ttl.wait %xa : !rd
      ttl.cb_push %cba : !cb
      %vb = ttl.cb_reserve %cbb : !cb -> !blk
      %sb = ttl.tensor_slice %b[%c0, %c0] : !mat -> !blk
      %xb = ttl.copy %sb, %vb : (!blk, !blk) -> !rd
      ttl.wait %xb : !rd
      ttl.cb_push %cbb : !cb
    }
    ttl.compute_thread {
      %x = ttl.cb_wait %cba : !cb -> !blk
      %y = ttl.cb_wait %cbb : !cb -> !blk
      %o = ttl.cb_reserve %cbc : !cb -> !blk
      %s = ttl.add %x, %y : !blk
      ttl.store %s, %o : !blk
      ttl.cb_push %cbc : !cb
      ttl.cb_pop %cba : !cb
      ttl.cb_pop %cbb : !cb
    }
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      %w = ttl.cb_wait %cbc : !cb -> !blk
      %sc = ttl.tensor_slice %c[%c0, %c0] : !mat -> !blk
      %xc = ttl.copy %w, %sc : (!blk, !blk) -> !wr
      ttl.wait %xc : !wr
      ttl.cb_pop %cbc : !cb
    }
  }
}
)";

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
  auto module = testing::parseVerified(kAdd);
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
  auto module = testing::parseVerified(kAdd);
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

/// One pipe per core of row 0: core (x, 0) sends one block to (S * x, 1) and row 1 receives it.
/// S = 1: disjoint nets. S = 0: both senders write the same CB bytes on core (0, 1) at once.
const std::string kConverging = kAliases + R"(module {
  ttl.param @S = [0, 1]
  ttl.kernel @converge(%a: !mat, %c: !mat) attributes {grid = [2, 2]} {
    %cbi = ttl.create_cb : !cb
    %cbo = ttl.create_cb : !cb
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      %x = ttl.core_x : index
      %s = ttl.param_value @S : index
      %dx = arith.muli %s, %x : index
      %p = ttl.create_pipe src(%x, 0) dst(%dx, 1) : !ttl.pipe
)" + kSendOverPipe + R"(    }
)" + absAndWriter() + R"(  }
}
)";

TEST(TunerRejection, MulticastWhenTwoNetsWriteTheSameBytes) {
  auto module = testing::parseVerified(kConverging);
  ASSERT_TRUE(module);
  expectRejected(*module, {{"S", 1}}, {{"S", 0}}, "multicast",
                 {"multicast: kernel @converge: ", "both write core (0, 1) at the same L1 bytes"});
}

/// `pipes` pipes, all from core (0, 0) to core (1, 0) of a 1 x 2 grid, created but not used (the
/// semaphore ids are reserved per net all the same); one block flows through %cbi -> %cbo.
std::string manyPipes(int pipes) {
  std::string created;
  for (int i = 0; i < pipes; ++i)
    created +=
        "      %p" + std::to_string(i) + " = ttl.create_pipe src(0, 0) dst(1, 0) : !ttl.pipe\n";
  return kAliases + R"(module {
  ttl.kernel @pipes(%a: !mat, %c: !mat) attributes {grid = [1, 2]} {
    %cbi = ttl.create_cb : !cb
    %cbo = ttl.create_cb : !cb
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
)" + created +
         kReadA + R"(    }
)" + absAndWriter() +
         R"(  }
}
)";
}

TEST(TunerRejection, SemaphoresWhenNetsOnOneCoreNeedMoreIdsThanExist) {
  // Each net takes two semaphore ids (ready, valid) on every core it touches, and nets live
  // together on a core never share them: 8 nets need 16 ids, Wormhole's semaphores_per_core; 9
  // need 18.
  ir::Device d = wormhole();
  ASSERT_EQ(d.kernel.semaphoresPerCore, 16);
  auto eight = testing::parseVerified(manyPipes(8));
  ASSERT_TRUE(eight);
  Record fits = evaluatePoint(*eight, d, {}, {}, {}, nullptr);
  EXPECT_TRUE(fits.ok()) << fits.reason << ": " << fits.detail;
  auto nine = testing::parseVerified(manyPipes(9));
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

/// Core (0, 0) sends one block to core (1, 0), on the grid `$GRID` with `$WORK` work items.
const std::string kPipeRight = kAliases + R"(module {
  ttl.param @N = [1, 2]
  ttl.kernel @right(%a: !mat, %c: !mat) attributes {$GRID} {
    %cbi = ttl.create_cb : !cb
    %cbo = ttl.create_cb : !cb
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      %p = ttl.create_pipe src(0, 0) dst(1, 0) : !ttl.pipe
      $OPEN
)" + kSendOverPipe + R"(      $CLOSE
    }
)" + absAndWriter("$OPEN", "$CLOSE") +
                               R"(  }
}
)";

TEST(TunerRejection, InvalidWhenAPipeLeavesTheKnobGrid) {
  // grid = [1, @N]: the grid is known before planning, so the pipes are extracted with the
  // problem (lower::extractKernelProblem) and a destination outside a 1 x 1 grid is `invalid`,
  // the reason the planner gives the same failure when it extracts the pipes itself (below).
  std::string text = substitute(kPipeRight, "$GRID", "grid = [1, @N]");
  text = substitute(substitute(text, "$OPEN", ""), "$CLOSE", "");
  auto module = testing::parseVerified(text);
  ASSERT_TRUE(module);
  expectRejected(*module, {{"N", 2}}, {{"N", 1}}, "invalid",
                 {"pipe '%p' on core (0, 0): destination (1, 0) to (1, 0) is not a rectangle "
                  "inside the grid"});
}

TEST(TunerRejection, InvalidWhenAPipeLeavesThePlannersGrid) {
  // grid "auto" with @N work items: the cores planner chooses the grid (1 x 1 for one item, 1 x 2
  // for two), so the pipes are extracted only after planning (lower::planKernel), where a failure
  // is a Rejection of resource Invalid.
  std::string text = substitute(kPipeRight, "$GRID", "work = [@N]");
  text = substitute(substitute(text, "$OPEN", "ttl.work_loop (%i) {"), "$CLOSE", "}");
  auto module = testing::parseVerified(text);
  ASSERT_TRUE(module);
  Record fits = expectRejected(*module, {{"N", 2}}, {{"N", 1}}, "invalid",
                               {"pipe '%p' on core (0, 0): destination (1, 0) to (1, 0) is not a "
                                "rectangle inside the grid"});
  EXPECT_EQ(fits.cores, 2);
}

// ---------------------------------------------------------------------------------------------
// cost

/// One block read, abs'd and written on one core; the reader's loop has step @S - 1.
const std::string kLooped = kAliases + R"(module {
  ttl.param @S = [1, 2]
  ttl.kernel @looped(%a: !mat, %c: !mat) attributes {grid = [1, 1]} {
    %cbi = ttl.create_cb : !cb
    %cbo = ttl.create_cb : !cb
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %s = ttl.param_value @S : index
      %step = arith.subi %s, %c1 : index
      scf.for %i = %c0 to %c1 step %step {)" +
                            kReadA + R"(      }
    }
)" + absAndWriter() + R"(  }
}
)";

TEST(TunerRejection, CostWhenLoopBoundsDoNotFold) {
  // S = 1 makes the loop's step 0: the cost model cannot count its iterations
  // (search/cost/Extract.cpp, Walker::loop). The planner does not read loop bounds, so the point
  // plans and only the cost model rejects it.
  auto module = testing::parseVerified(kLooped);
  ASSERT_TRUE(module);
  expectRejected(*module, {{"S", 2}}, {{"S", 1}}, "cost",
                 {"error: cost model: the loop bounds do not fold to constants on this core"});
}

/// One block read on one core; the compute and writer threads run @R times each.
const std::string kStarved = kAliases + R"(module {
  ttl.param @R = [1, 2]
  ttl.kernel @starved(%a: !mat, %c: !mat) attributes {grid = [1, 1]} {
    %cbi = ttl.create_cb : !cb
    %cbo = ttl.create_cb : !cb
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index)" +
                             kReadA + R"(    }
    ttl.compute_thread {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = ttl.param_value @R : index
      scf.for %i = %c0 to %r step %c1 {
        %x = ttl.cb_wait %cbi : !cb -> !blk
        %o = ttl.cb_reserve %cbo : !cb -> !blk
        %y = ttl.abs %x : !blk
        ttl.store %y, %o : !blk
        ttl.cb_push %cbo : !cb
        ttl.cb_pop %cbi : !cb
      }
    }
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = ttl.param_value @R : index
      scf.for %i = %c0 to %r step %c1 {
        %w = ttl.cb_wait %cbo : !cb -> !blk
        %sc = ttl.tensor_slice %c[%c0, %c0] : !mat -> !blk
        %xc = ttl.copy %w, %sc : (!blk, !blk) -> !wr
        ttl.wait %xc : !wr
        ttl.cb_pop %cbo : !cb
      }
    }
  }
}
)";

TEST(TunerRejection, CostWhenTheSimulationDeadlocks) {
  // R = 2: the compute thread waits for a second block of %cbi that the reader never pushes.
  auto module = testing::parseVerified(kStarved);
  ASSERT_TRUE(module);
  expectRejected(*module, {{"R", 1}}, {{"R", 2}}, "cost",
                 {"cost simulation: compute thread of core class 'core (0,0)' blocks forever in "
                  "wait on empty CB %cbi"});
}

} // namespace
} // namespace ttlplan::search
