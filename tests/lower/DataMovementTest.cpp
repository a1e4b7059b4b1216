// The data-movement passes (infer-pipe-semaphores, insert-sync, lower-data-movement, lower-sync):
// per-core pipe arguments from hand-written nets (loopback, dropped rectangles, unsupported
// shapes), the multicast handshake of matmul_mcast_2d in program order on the sender and the
// receiver paths with its runtime-arg values checked against the grid, and the diagnostics.
#include "tests/support/LoadModule.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/lower/PassManager.h"
#include "ttlplan/lower/passes/DataMovementSupport.h"

#include <gtest/gtest.h>
#include <map>

namespace ttlplan::lower {
namespace {

using ir::Attribute;
using ir::Operation;

const std::string kSource = TTLPLAN_SOURCE_DIR;

ir::Device wormhole() {
  return *ir::builtinDevice("wormhole_b0");
}

// ---- pipeArgTable on hand-written nets ---------------------------------------------------

Attribute ints(std::vector<int64_t> v) {
  std::vector<Attribute> out;
  for (int64_t x : v)
    out.push_back(Attribute::integer(x));
  return Attribute::array(std::move(out));
}

Attribute net(std::vector<int64_t> sender, std::vector<std::vector<int64_t>> dests,
              std::vector<std::vector<int64_t>> rects, int64_t receivers, int64_t ready,
              int64_t valid) {
  std::vector<Attribute> d, r;
  for (auto& x : dests)
    d.push_back(ints(x));
  for (auto& x : rects)
    r.push_back(ints(x));
  return Attribute::dictionary({{"sender", ints(sender)},
                                {"dests", Attribute::array(d)},
                                {"rects", Attribute::array(r)},
                                {"receivers", Attribute::integer(receivers)},
                                {"ready_semaphore", Attribute::integer(ready)},
                                {"valid_semaphore", Attribute::integer(valid)}});
}

TEST(DataMovementPipeArgs, SenderAndReceiversOfOneNet) {
  // 1 x 4 grid: (0, 0) sends to (1, 0)..(3, 0), one NOC0 rectangle.
  Attribute nets =
      Attribute::array({net({0, 0}, {{1, 0}, {2, 0}, {3, 0}}, {{19, 18, 21, 18, 3, 0}}, 3, 4, 5)});
  Expected<PipeArgTable> t = pipeArgTable(nets, 1, 4, wormhole());
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->cores.size(), 4u);
  EXPECT_EQ(t->maxRects, 1u);
  EXPECT_EQ(t->minSenderRects, 1u);
  const PipeCoreArgs& s = t->cores[0];
  EXPECT_TRUE(s.sender);
  EXPECT_FALSE(s.receiver);
  EXPECT_EQ(s.receivers, 3);
  EXPECT_EQ(s.sendReadySem, 4);
  EXPECT_EQ(s.sendValidSem, 5);
  ASSERT_EQ(s.rects.size(), 1u);
  // The plan's NoC rectangle [19, 18] -> [21, 18] reaches the kernel as logical corners, which
  // the host translates with the SDK (RuntimeArgs::markNocCoordinate).
  EXPECT_EQ(s.rects[0], (PipeRectArgs{1, 0, 3, 0, 3}));
  for (size_t c = 1; c < 4; ++c) {
    const PipeCoreArgs& r = t->cores[c];
    EXPECT_FALSE(r.sender);
    EXPECT_TRUE(r.receiver);
    EXPECT_EQ(r.senderNocX, 0); // logical column 0 (NoC x 18 on wormhole_b0)
    EXPECT_EQ(r.senderNocY, 0); // logical row 0
    EXPECT_EQ(r.recvReadySem, 4);
    EXPECT_EQ(r.recvValidSem, 5);
  }
  // The flat runtime-arg layout: names and values line up.
  std::vector<std::string> names = pipeArgNames("p", t->maxRects);
  std::vector<std::vector<int64_t>> values = pipeArgValues(*t, t->maxRects);
  ASSERT_EQ(names.size(), values.size());
  std::map<std::string, std::vector<int64_t>> byName;
  for (size_t i = 0; i < names.size(); ++i)
    byName[names[i]] = values[i];
  EXPECT_EQ(byName["p.is_sender"], (std::vector<int64_t>{1, 0, 0, 0}));
  EXPECT_EQ(byName["p.is_receiver"], (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(byName["p.r0.num_dests"], (std::vector<int64_t>{3, 0, 0, 0}));
  EXPECT_EQ(byName["p.r0.end_x"], (std::vector<int64_t>{3, 0, 0, 0}));
  EXPECT_EQ(byName["p.sender_noc_x"], (std::vector<int64_t>{0, 0, 0, 0}));
  // Exactly the coordinates are marked for the host's translation.
  for (const std::string& n : names) {
    const bool coordinate = n.ends_with("_x") || n.ends_with("_y");
    EXPECT_EQ(pipeArgNocAxis(n) != 0, coordinate) << n;
  }
  EXPECT_EQ(pipeArgNocAxis("p.r0.start_y"), 'y');
  EXPECT_EQ(pipeArgNocAxis("p.sender_noc_x"), 'x');
}

TEST(DataMovementPipeArgs, LoopbackIsSentWithThePlainVariantAndOneDestinationFewer) {
  // (1, 0) is the sender and also a destination of (0, 0)..(2, 0): the planner writes one
  // loopback rectangle of 3 cores; the sender already holds the bytes, so the plain variant
  // writes the other 2. A second rectangle that holds only the sender (loopback, 1 core) writes
  // nobody and is dropped.
  Attribute nets =
      Attribute::array({net({1, 0}, {{0, 0}, {1, 0}, {2, 0}},
                            {{18, 18, 20, 18, 3, 1}, {19, 19, 19, 19, 1, 1}}, 2, 0, 1)});
  Expected<PipeArgTable> t = pipeArgTable(nets, 2, 3, wormhole());
  ASSERT_TRUE(t) << t.error().message;
  const PipeCoreArgs& s = t->cores[1];
  ASSERT_TRUE(s.sender);
  EXPECT_FALSE(s.receiver); // it does not signal itself
  ASSERT_EQ(s.rects.size(), 1u);
  EXPECT_EQ(s.rects[0].numDests, 2);
  EXPECT_EQ(s.receivers, 2);
  EXPECT_TRUE(t->cores[0].receiver);
  EXPECT_TRUE(t->cores[2].receiver);
  EXPECT_EQ(t->cores[0].senderNocX, 1); // logical column 1
}

TEST(DataMovementPipeArgs, SendersWithFewerRectanglesGetGuards) {
  // Two nets of one pipe: (0, 0) covers its destinations with two rectangles, (0, 1) with one.
  Attribute nets = Attribute::array(
      {net({0, 0}, {{1, 0}, {2, 0}}, {{19, 18, 19, 18, 1, 0}, {20, 18, 20, 18, 1, 0}}, 2, 0, 1),
       net({0, 1}, {{1, 1}}, {{19, 19, 19, 19, 1, 0}}, 1, 0, 1)});
  Expected<PipeArgTable> t = pipeArgTable(nets, 2, 3, wormhole());
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->maxRects, 2u);
  EXPECT_EQ(t->minSenderRects, 1u);
  EXPECT_EQ(t->cores[3].rects.size(), 1u);
  EXPECT_EQ(t->cores[4].senderNocY, 1); // logical row 1
}

TEST(DataMovementPipeArgs, UnsupportedAndMalformedNetsAreErrors) {
  ir::Device d = wormhole();
  // One core sending two nets of the same pipe.
  Expected<PipeArgTable> two =
      pipeArgTable(Attribute::array({net({0, 0}, {{1, 0}}, {{19, 18, 19, 18, 1, 0}}, 1, 0, 1),
                                     net({0, 0}, {{0, 1}}, {{18, 19, 18, 19, 1, 0}}, 1, 2, 3)}),
                   2, 2, d);
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find("sends two nets of this pipe"), std::string::npos);
  // One core receiving from two senders.
  Expected<PipeArgTable> both =
      pipeArgTable(Attribute::array({net({0, 0}, {{1, 1}}, {{19, 19, 19, 19, 1, 0}}, 1, 0, 1),
                                     net({1, 0}, {{1, 1}}, {{19, 19, 19, 19, 1, 0}}, 1, 2, 3)}),
                   2, 2, d);
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("receives from two nets"), std::string::npos);
  // Rectangles that do not add up to the receivers.
  Expected<PipeArgTable> sum = pipeArgTable(
      Attribute::array({net({0, 0}, {{1, 0}}, {{19, 18, 19, 18, 2, 0}}, 1, 0, 1)}), 1, 2, d);
  ASSERT_FALSE(sum);
  EXPECT_NE(sum.error().message.find("write 2 cores but receivers = 1"), std::string::npos);
  // Not a dictionary.
  EXPECT_FALSE(pipeArgTable(Attribute::array({Attribute::integer(3)}), 1, 2, d));
  // A sender outside the grid.
  EXPECT_FALSE(pipeArgTable(
      Attribute::array({net({5, 0}, {{1, 0}}, {{19, 18, 19, 18, 1, 0}}, 1, 0, 1)}), 1, 2, d));
}

// ---- whole pipelines ---------------------------------------------------------------------

struct Lowered {
  bool ok = false;
  std::unique_ptr<ir::Module> module;
  ir::DiagnosticEngine diagnostics;
  std::string timing;
  std::string errors() const { return ir::format(diagnostics.diagnostics()); }
};

std::unique_ptr<Lowered> lower(const std::string& path, std::string_view source,
                               std::string_view pipeline) {
  auto out = std::make_unique<Lowered>();
  out->module = source.empty() ? ir::parseFile(path, out->diagnostics)
                               : ir::parseSource(source, "test.ttl", out->diagnostics);
  if (!out->module) return out;
  ir::Device device = wormhole();
  PassContext context{*out->module, device, out->diagnostics, {}, std::nullopt, {}, true};
  Expected<PassManager> pm = PassManager::parse(pipeline);
  EXPECT_TRUE(pm) << pm.error().message;
  PipelineOptions options;
  options.timePasses = true;
  options.dump = [&](const std::string& text) { out->timing += text; };
  out->ok = pm->run(context, options);
  return out;
}

Operation* function(ir::Module& module, std::string_view name) {
  for (Operation* f : module.topLevel("func.func"))
    if (f->attribute("sym_name").stringValue() == name) return f;
  return nullptr;
}

/// The per-core values of runtime arg `name` of `func`.
std::vector<int64_t> coreValues(Operation* func, const std::string& name) {
  std::vector<int64_t> out;
  for (const ir::NamedAttribute& e : func->attribute("ttl.core_values").entries())
    if (e.name == name) {
      EXPECT_TRUE(e.value.getIntegers(out));
    }
  return out;
}

/// The scf.if whose condition tests the runtime arg named `flag` (value name hint).
Operation* guardedBy(Operation* func, const std::string& flag) {
  Operation* found = nullptr;
  func->walk([&](Operation* op) {
    if (found || !op->isa("scf.if")) return;
    Operation* cmp = op->operand(0)->definingOp();
    if (cmp && cmp->isa("arith.cmpi") && cmp->operand(0)->nameHint() == flag) found = op;
  });
  return found;
}

/// The ttkernel calls directly in the then-block of `ifOp` (not nested), in order.
std::vector<Operation*> callsIn(Operation* ifOp) {
  std::vector<Operation*> out;
  for (auto& op : ifOp->body(0).operations())
    if (op->dialect() == "ttkernel") out.push_back(op.get());
  return out;
}

std::vector<std::string> namesOf(const std::vector<Operation*>& ops) {
  std::vector<std::string> out;
  for (Operation* op : ops)
    out.push_back(op->name());
  return out;
}

/// The integer an operand is, when it is an arith.constant.
std::optional<int64_t> constantOperand(Operation* op, size_t i) {
  Operation* def = op->operand(i)->definingOp();
  if (!def || !def->isa("arith.constant")) return std::nullopt;
  return def->attribute("value").intValue();
}

/// Checks the handshake of pipe `pipe` in `func` on a grid of `rows` x `cols` whose nets run
/// along rows (`alongRows`: sender (0, y), receivers (1..cols-1, y)) or down columns (sender (x,
/// 0), receivers (x, 1..rows-1)), on NoC `noc` (NOC1 swaps the rectangle's start and end).
void checkPipe(Operation* func, const std::string& pipe, int rows, int cols, bool alongRows,
               int noc) {
  SCOPED_TRACE(pipe);
  // Sender path: READY wait -> READY reset -> data multicast -> VALID set -> VALID multicast ->
  // write barrier (the send's ttl.wait), after the DRAM read and its barrier.
  Operation* send = guardedBy(func, pipe + "_is_sender");
  ASSERT_NE(send, nullptr);
  std::vector<Operation*> s = callsIn(send);
  std::vector<std::string> sn = namesOf(s);
  std::vector<std::string> expected = {"ttkernel.noc_async_read_page",
                                       "ttkernel.noc_async_read_page",
                                       "ttkernel.noc_async_read_barrier",
                                       "ttkernel.get_semaphore",
                                       "ttkernel.l1_ptr",
                                       "ttkernel.noc_semaphore_wait",
                                       "ttkernel.noc_semaphore_set",
                                       "ttkernel.get_noc_multicast_addr",
                                       "ttkernel.noc_async_write_multicast",
                                       "ttkernel.get_semaphore",
                                       "ttkernel.l1_ptr",
                                       "ttkernel.noc_semaphore_set",
                                       "ttkernel.get_noc_multicast_addr",
                                       "ttkernel.noc_semaphore_set_multicast",
                                       "ttkernel.noc_async_write_barrier"};
  ASSERT_EQ(sn, expected);
  // The wait and the reset act on the ready semaphore; the wait counts the receivers.
  EXPECT_EQ(s[3]->operand(0)->nameHint(), pipe + "_send_ready_sem");
  EXPECT_EQ(s[5]->operand(0), s[4]->result(0));
  EXPECT_EQ(s[5]->operand(1)->nameHint(), pipe + "_receivers");
  EXPECT_EQ(s[6]->operand(0), s[4]->result(0));
  EXPECT_EQ(constantOperand(s[6], 1), 0);
  // The data goes from the CB's write pointer to the same address on the receivers, with the
  // rectangle's num_dests; VALID = 1 from the valid semaphore to the same rectangle.
  Operation* wp = s[8]->operand(0)->definingOp();
  ASSERT_NE(wp, nullptr);
  EXPECT_TRUE(wp->isa("ttkernel.get_write_ptr"));
  EXPECT_EQ(s[7]->operand(4), s[8]->operand(0));
  EXPECT_EQ(s[8]->operand(1), s[7]->result(0));
  EXPECT_EQ(s[8]->operand(3)->nameHint(), pipe + "_r0_num_dests");
  EXPECT_EQ(s[9]->operand(0)->nameHint(), pipe + "_send_valid_sem");
  EXPECT_EQ(s[11]->operand(0), s[10]->result(0));
  EXPECT_EQ(constantOperand(s[11], 1), 1);
  EXPECT_EQ(s[12]->operand(4), s[9]->result(0));
  EXPECT_EQ(s[13]->operand(0), s[9]->result(0));
  EXPECT_EQ(s[13]->operand(1), s[12]->result(0));
  EXPECT_EQ(s[13]->operand(2)->nameHint(), pipe + "_r0_num_dests");
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(s[12]->operand(i), s[7]->operand(i)); // same rectangle

  // Receiver path: VALID reset -> READY increment on the sender -> VALID wait.
  Operation* recv = guardedBy(func, pipe + "_is_receiver");
  ASSERT_NE(recv, nullptr);
  std::vector<Operation*> r = callsIn(recv);
  ASSERT_EQ(namesOf(r),
            (std::vector<std::string>{"ttkernel.get_semaphore", "ttkernel.l1_ptr",
                                      "ttkernel.noc_semaphore_set", "ttkernel.get_semaphore",
                                      "ttkernel.get_noc_addr", "ttkernel.noc_semaphore_inc",
                                      "ttkernel.noc_semaphore_wait"}));
  EXPECT_EQ(r[0]->operand(0)->nameHint(), pipe + "_recv_valid_sem");
  EXPECT_EQ(r[2]->operand(0), r[1]->result(0));
  EXPECT_EQ(constantOperand(r[2], 1), 0);
  EXPECT_EQ(r[3]->operand(0)->nameHint(), pipe + "_recv_ready_sem");
  EXPECT_EQ(r[4]->operand(0)->nameHint(), pipe + "_sender_noc_x");
  EXPECT_EQ(r[4]->operand(1)->nameHint(), pipe + "_sender_noc_y");
  EXPECT_EQ(r[4]->operand(2), r[3]->result(0));
  EXPECT_EQ(r[5]->operand(0), r[4]->result(0));
  EXPECT_EQ(constantOperand(r[5], 1), 1);
  EXPECT_EQ(r[6]->operand(0), r[1]->result(0));
  EXPECT_EQ(constantOperand(r[6], 1), 1);

  // The values: one net per grid row (or column); every receiver signals its own net's sender
  // and uses its semaphores; num_dests of the one rectangle = receivers = the other cores.
  auto v = [&](const char* n) { return coreValues(func, pipe + "." + n); };
  std::vector<int64_t> isSender = v("is_sender"), isReceiver = v("is_receiver"),
                       receivers = v("receivers"), numRects = v("num_rects"),
                       numDests = v("r0.num_dests"), sx = v("r0.start_x"), sy = v("r0.start_y"),
                       ex = v("r0.end_x"), ey = v("r0.end_y"), nocX = v("sender_noc_x"),
                       nocY = v("sender_noc_y"), sendReady = v("send_ready_sem"),
                       sendValid = v("send_valid_sem"), recvReady = v("recv_ready_sem"),
                       recvValid = v("recv_valid_sem");
  ASSERT_EQ(isSender.size(), size_t(rows * cols));
  int others = alongRows ? cols - 1 : rows - 1;
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) {
      size_t c = size_t(y * cols + x);
      SCOPED_TRACE(::testing::Message() << "core (" << x << ", " << y << ")");
      bool sender = alongRows ? x == 0 : y == 0;
      EXPECT_EQ(isSender[c], sender ? 1 : 0);
      EXPECT_EQ(isReceiver[c], sender ? 0 : 1);
      if (sender) {
        EXPECT_EQ(receivers[c], others);
        EXPECT_EQ(numRects[c], 1);
        EXPECT_EQ(numDests[c], receivers[c]);
        // Logical receivers (1..3, y) or (x, 1..3), NOC1 swapped: the kernel gets logical
        // corners, the host their NoC coordinates.
        int x0 = alongRows ? 1 : x, x1 = alongRows ? cols - 1 : x;
        int y0 = alongRows ? y : 1, y1 = alongRows ? y : rows - 1;
        if (noc == 1) {
          std::swap(x0, x1);
          std::swap(y0, y1);
        }
        EXPECT_EQ(sx[c], x0);
        EXPECT_EQ(sy[c], y0);
        EXPECT_EQ(ex[c], x1);
        EXPECT_EQ(ey[c], y1);
        EXPECT_NE(sendReady[c], sendValid[c]);
      } else {
        int senderX = alongRows ? 0 : x, senderY = alongRows ? y : 0;
        size_t sc = size_t(senderY * cols + senderX);
        EXPECT_EQ(nocX[c], senderX);
        EXPECT_EQ(nocY[c], senderY);
        EXPECT_EQ(recvReady[c], sendReady[sc]);
        EXPECT_EQ(recvValid[c], sendValid[sc]);
        EXPECT_EQ(numDests[c], 0);
      }
    }
}

TEST(DataMovementLowering, MatmulMcast2dHandshakeOrderAndArgs) {
  auto l = lower(kSource + "/examples/matmul_mcast_2d.ttl", "", kDefaultPipeline);
  ASSERT_TRUE(l->ok) << l->errors();
  Operation* reader = function(*l->module, "matmul_mcast_2d_reader");
  Operation* writer = function(*l->module, "matmul_mcast_2d_writer");
  ASSERT_NE(reader, nullptr);
  ASSERT_NE(writer, nullptr);
  // %pa: A blocks along each grid row from (0, y), NOC0; %pb: B blocks down each column from
  // (x, 0), in the second mover thread, NOC1.
  checkPipe(reader, "pa", 4, 4, true, 0);
  checkPipe(writer, "pb", 4, 4, false, 1);
  // Everything was lowered, and the result parses back.
  l->module->op->walk([&](Operation* op) {
    if (op->parentOp() && op->ancestor("func.func")) {
      EXPECT_NE(op->dialect(), "ttl") << op->name() << " left at " << op->location().str();
    }
  });
  ir::DiagnosticEngine diags;
  EXPECT_TRUE(ir::parseSource(ir::print(*l->module), "printed.ttl", diags))
      << ir::format(diags.diagnostics());
  // Statistics: one send and one receive per mover thread (each in its K loop, lowered once).
  EXPECT_NE(l->timing.find("2 sends"), std::string::npos) << l->timing;
  EXPECT_NE(l->timing.find("2 receives"), std::string::npos) << l->timing;
}

TEST(DataMovementLowering, EveryExampleLowersAndParsesBack) {
  for (const char* name : {"eltwise_add", "eltwise_bcast_scalar", "matmul_single_core",
                           "matmul_multicore", "matmul_mcast_2d", "matmul_template"}) {
    SCOPED_TRACE(name);
    auto l = lower(kSource + "/examples/" + name + ".ttl", "", kDefaultPipeline);
    ASSERT_TRUE(l->ok) << l->errors();
    ir::DiagnosticEngine diags;
    EXPECT_TRUE(ir::parseSource(ir::print(*l->module), "printed.ttl", diags))
        << ir::format(diags.diagnostics());
  }
}

// ---- diagnostics and statistics on small kernels --------------------------------------------

const std::string kShardedLayout = "#ttl.layout<dram, sharded, grid = [1, 1], shard = [64, 64]>";

TEST(DataMovementLowering, ShardedTensorsAreNotSupportedYet) {
  auto l = lower(testing::testKernelPath("lower/kernels/sharded_read.ttl"), "",
                 "verify,infer-pipe-semaphores,insert-sync,plan,apply-plan,expand-threads,"
                 "lower-data-movement");
  EXPECT_FALSE(l->ok);
  std::string e = l->errors();
  EXPECT_NE(e.find("sharded_read.ttl:12:12: error: lower-data-movement: sharded tensors are not "
                   "supported yet"),
            std::string::npos)
      << e;
}

TEST(DataMovementLowering, LowerSyncReportsWhatAnEarlierPassLeft) {
  // Without lower-data-movement the copy and its slice are left: lower-sync names the wait's
  // missing lowering (and does not silently drop the copy).
  std::string source = testing::testKernelText("lower/kernels/sharded_read.ttl");
  source.replace(source.find(kShardedLayout), kShardedLayout.size(),
                 "#ttl.layout<dram, interleaved>");
  auto l = lower("", source,
                 "verify,infer-pipe-semaphores,insert-sync,plan,apply-plan,expand-threads,"
                 "lower-sync");
  EXPECT_FALSE(l->ok);
  std::string e = l->errors();
  EXPECT_NE(e.find("run `lower-data-movement` before `lower-sync`"), std::string::npos) << e;
}

TEST(DataMovementLowering, LowerSyncFindsLeftoverTtlOps) {
  // A correctly lowered module into which a ttl op that lower-sync does not lower (a pipe) and
  // one it does (a barrier) are put back by hand, as a buggy earlier pass would leave them.
  std::string source = testing::testKernelText("lower/kernels/sharded_read.ttl");
  source.replace(source.find(kShardedLayout), kShardedLayout.size(),
                 "#ttl.layout<dram, interleaved>");
  auto l = lower("", source,
                 "verify,infer-pipe-semaphores,insert-sync,plan,apply-plan,expand-threads,"
                 "lower-data-movement,lower-sync");
  ASSERT_TRUE(l->ok) << l->errors();
  Operation* reader = function(*l->module, "k_reader");
  ASSERT_NE(reader, nullptr);
  ir::Block& body = reader->body();
  body.insert(body.operations().begin(), Operation::create("ttl.dma_barrier", reader->location()));
  body.insert(body.operations().begin(),
              Operation::create("ttl.create_pipe", reader->location(), {}, {ir::Type::pipe()},
                                {{"static_coords", ints({0, 0, 0, 0})}}));
  ir::Device device = wormhole();
  ir::DiagnosticEngine diags;
  PassContext context{*l->module, device, diags, {}, std::nullopt, {}, true};
  Expected<PassManager> pm = PassManager::parse("lower-sync");
  ASSERT_TRUE(pm);
  EXPECT_FALSE(pm->run(context));
  std::string e = ir::format(diags.diagnostics());
  EXPECT_NE(e.find("'ttl.create_pipe' is left in thread function @k_reader after lower-sync"),
            std::string::npos)
      << e;
  // The barrier it does know was lowered, not reported.
  EXPECT_EQ(e.find("ttl.dma_barrier"), std::string::npos) << e;
}

/// Lowers tests/lower/kernels/row_pipe.ttl with `nets` in place of the planner's, and lists the
/// multicasts of the sender path in order ("guarded ..." when inside `scf.if (r < num_rects)`).
std::vector<std::string> multicastsWithNets(Attribute nets, std::vector<int64_t>& numRects) {
  auto l = lower(testing::testKernelPath("lower/kernels/row_pipe.ttl"), "",
                 "verify,infer-pipe-semaphores,insert-sync,plan,apply-plan,expand-threads");
  EXPECT_TRUE(l->ok) << l->errors();
  Operation* pipe = nullptr;
  l->module->op->walk([&](Operation* op) {
    if (op->isa("ttl.create_pipe")) pipe = op;
  });
  if (!pipe) return {"no pipe"};
  pipe->setAttribute("ttl.nets", nets);
  ir::Device device = wormhole();
  ir::DiagnosticEngine diags;
  PassContext context{*l->module, device, diags, {}, std::nullopt, {}, true};
  Expected<PassManager> pm = PassManager::parse("lower-data-movement");
  EXPECT_TRUE(pm);
  if (!pm->run(context)) return {ir::format(diags.diagnostics())};
  Operation* reader = function(*l->module, "k_reader");
  numRects = coreValues(reader, "p.num_rects");
  Operation* send = guardedBy(reader, "p_is_sender");
  if (!send) return {"no sender path"};
  std::vector<std::string> seen;
  auto name = [](Operation* op) {
    return op->name() + " " + op->operand(op->numOperands() - 1)->nameHint();
  };
  for (auto& op : send->body(0).operations()) {
    if (op->isa("ttkernel.noc_async_write_multicast") ||
        op->isa("ttkernel.noc_semaphore_set_multicast")) {
      seen.push_back(name(op.get()));
    } else if (op->isa("scf.if")) {
      Operation* cmp = op->operand(0)->definingOp();
      EXPECT_TRUE(cmp && cmp->isa("arith.cmpi"));
      if (!cmp) continue;
      EXPECT_EQ(cmp->attribute("predicate").intValue(), 6); // ult
      EXPECT_EQ(constantOperand(cmp, 0), 1);
      EXPECT_EQ(cmp->operand(1)->nameHint(), "p_num_rects");
      for (auto& inner : op->body(0).operations())
        if (inner->isa("ttkernel.noc_async_write_multicast") ||
            inner->isa("ttkernel.noc_semaphore_set_multicast"))
          seen.push_back("guarded " + name(inner.get()));
    }
  }
  return seen;
}

TEST(DataMovementLowering, ExtraRectanglesAreGuardedByTheirCount) {
  // The planner covers this net with one rectangle; give it two (as for a destination set that
  // spans a gap in the NoC grid). With every sender having two, no guard is needed.
  Attribute twoRects =
      net({0, 0}, {{1, 0}, {2, 0}}, {{19, 18, 19, 18, 1, 0}, {20, 18, 20, 18, 1, 0}}, 2, 0, 1);
  std::vector<int64_t> numRects;
  EXPECT_EQ(multicastsWithNets(Attribute::array({twoRects}), numRects),
            (std::vector<std::string>{"ttkernel.noc_async_write_multicast p_r0_num_dests",
                                      "ttkernel.noc_async_write_multicast p_r1_num_dests",
                                      "ttkernel.noc_semaphore_set_multicast p_r0_num_dests",
                                      "ttkernel.noc_semaphore_set_multicast p_r1_num_dests"}));
  EXPECT_EQ(numRects, (std::vector<int64_t>{2, 0, 0, 0, 0, 0}));
  // A second sender, (0, 1), with one rectangle: rectangle 1 is issued only where num_rects > 1,
  // data first, then VALID.
  Attribute oneRect = net({0, 1}, {{1, 1}}, {{19, 19, 19, 19, 1, 0}}, 1, 0, 1);
  EXPECT_EQ(
      multicastsWithNets(Attribute::array({twoRects, oneRect}), numRects),
      (std::vector<std::string>{"ttkernel.noc_async_write_multicast p_r0_num_dests",
                                "guarded ttkernel.noc_async_write_multicast p_r1_num_dests",
                                "ttkernel.noc_semaphore_set_multicast p_r0_num_dests",
                                "guarded ttkernel.noc_semaphore_set_multicast p_r1_num_dests"}));
  EXPECT_EQ(numRects, (std::vector<int64_t>{2, 0, 0, 1, 0, 0}));
}

TEST(DataMovementLowering, InsertSyncCountsWaitsAndTheyBecomeBarriersBeforeThePop) {
  auto l = lower(testing::testKernelPath("lower/kernels/unwaited_write.ttl"), "",
                 "verify,infer-pipe-semaphores,insert-sync,plan,apply-plan,expand-threads,"
                 "lower-data-movement,lower-sync");
  ASSERT_TRUE(l->ok) << l->errors();
  EXPECT_NE(l->timing.find("2 waits-inserted"), std::string::npos) << l->timing;
  Operation* writer = function(*l->module, "k_writer");
  ASSERT_NE(writer, nullptr);
  std::vector<std::string> calls;
  writer->walk([&](Operation* op) {
    if (op->dialect() == "ttkernel" && op->name() != "ttkernel.get_arg_val")
      calls.push_back(op->name());
  });
  // Two write barriers (one per inserted wait) after both tile writes (a second write from the
  // same view needs no wait for the first: both only read it) and before the pop.
  EXPECT_EQ(calls, (std::vector<std::string>{
                       "ttkernel.tensor_accessor", "ttkernel.cb_wait_front",
                       "ttkernel.get_read_ptr", "ttkernel.noc_async_write_page",
                       "ttkernel.noc_async_write_page", "ttkernel.noc_async_write_barrier",
                       "ttkernel.noc_async_write_barrier", "ttkernel.cb_pop_front"}));
}

} // namespace
} // namespace ttlplan::lower
