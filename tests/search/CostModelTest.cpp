// The cost model (search/cost/): a one-tile kernel whose cycles the test works out by hand from
// the device numbers, the simulation's CB and multicast semantics on hand-built programs,
// extrapolation against a full simulation, and monotonicity (bytes, fidelity, CB depth, cores).
#include "tests/support/LoadModule.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/cost/Extract.h"
#include "ttlplan/search/cost/MatmulProgram.h"
#include "ttlplan/search/cost/Model.h"
#include "ttlplan/search/cost/Price.h"
#include "ttlplan/search/cost/Report.h"

#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ttlplan::search::cost {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;

ir::Device wormhole() {
  return *ir::builtinDevice("wormhole_b0");
}

Step cbStep(StepKind kind, int cb) {
  return Step::onCb(kind, cb);
}

Step transfer(StepKind kind, int64_t bytes) {
  return Step::transfer(kind, bytes, 1);
}

Step compute(double cycles) {
  return Step::compute(cycles);
}

Step waitTransfers() {
  return Step::waitTransfers();
}

Step loop(int64_t count, std::vector<Step> body, bool work = false) {
  return Step::loop(count, std::move(body), work);
}

// Reader -> compute -> writer over CB 0 (input) and CB 1 (output), `items` times, with the given
// bytes per block and compute cycles per block.
Program pipeline(int64_t items, int64_t inDepth, int64_t outDepth, int64_t bytes, double cycles,
                 int64_t writeBytes) {
  Program p;
  CoreClass cls;
  cls.name = "core";
  cls.cbs = {{"%in", inDepth, bytes}, {"%out", outDepth, writeBytes}};
  Thread reader{ThreadRole::Noc0,
                {loop(items,
                      {cbStep(StepKind::Reserve, 0), transfer(StepKind::Read, bytes),
                       waitTransfers(), cbStep(StepKind::Push, 0)},
                      true)}};
  Thread math{ThreadRole::Compute,
              {loop(items,
                    {cbStep(StepKind::Wait, 0), cbStep(StepKind::Reserve, 1), compute(cycles),
                     cbStep(StepKind::Push, 1), cbStep(StepKind::Pop, 0)},
                    true)}};
  Thread writer{ThreadRole::Noc1,
                {loop(items,
                      {cbStep(StepKind::Wait, 1), transfer(StepKind::Write, writeBytes),
                       waitTransfers(), cbStep(StepKind::Pop, 1)},
                      true)}};
  cls.threads = {reader, math, writer};
  p.classes.push_back(cls);
  return p;
}

double predictCycles(const Program& p, const ir::Device& d, ModelOptions o = {}) {
  Expected<Prediction> r = predict(p, d, o);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? r->cycles : -1;
}

// ---- The one-tile kernel, by hand -------------------------------------------------------------

Expected<Program> programOf(const std::string& text, const ir::Device& device,
                            const ir::Binding& binding = {}) {
  ir::DiagnosticEngine diags;
  auto module = ir::parseSource(text, "test.ttl", diags);
  if (!module || !ir::verify(*module, diags)) return Error{ir::format(diags.diagnostics())};
  lower::PlanOptions options;
  if (!binding.empty()) options.binding = binding;
  Expected<lower::ModulePlan> plan = lower::planModule(*module, device, options);
  if (!plan) return plan.error();
  return extractProgram(module->topLevel(ir::KernelOp::kName).at(0), plan->kernels.at(0),
                        plan->binding.binding, device);
}

TEST(CostModel, OneTileMatmulCyclesByHand) {
  ir::Device d = wormhole();
  Expected<Program> program = programOf(testing::testKernelText("search/kernels/one_tile.ttl"), d);
  ASSERT_TRUE(program) << program.error().message;
  ASSERT_EQ(program->classes.size(), 1u);
  Expected<Prediction> p = predict(*program, d);
  ASSERT_TRUE(p) << p.error().message;

  // By hand. S: one CB call, Q: one NoC request, L: DRAM read latency, N: NoC latency.
  const ir::CostConstants& k = d.cost;
  double S = k.cbSyncCycles, Q = k.nocRequestCycles, L = k.dramLatencyCycles;
  double N = k.nocLatencyCycles;
  double tile = double(d.tiles.bf16);
  // One core reads, so it gets its own NoC rate (the banks could give far more).
  double R = double(d.dram.measuredReadBytesPerCycle),
         W = double(d.dram.measuredWriteBytesPerCycle);
  // Compute: one 1x1 round at HiFi4: the slowest of math (64 ideal / efficiency), unpack (in0 and
  // in1 tiles) and pack (one tile), plus the DST round.
  double math = double(d.compute.matmul.hifi4) / k.matmulFpuEfficiency;
  double unpack = 2 * (k.unpackCyclesPerTile + tile / k.unpackBytesPerCycle);
  double pack = k.packCyclesPerTile + tile / k.packBytesPerCycle;
  double C = std::max({math, unpack, pack}) + k.dstRoundCycles;
  // Reader: reserve a (S), issue a (Q), reserve b (S), issue b (Q); the engine streams both tiles
  // back to back (the first starts at S + Q), the last lands L later; push a, push b.
  ASSERT_GT(tile / R, S + Q); // so the second read queues behind the first
  double pushB = (S + Q + 2 * tile / R + L) + 2 * S;
  // Compute: reserve c (S), wait a (S, after push a), wait b (S, after push b), the chain, pop a,
  // pop b, push c.
  double pushC = pushB + S + C + 3 * S;
  // Writer: wait c (S), issue (Q), the tile at W bytes per cycle, the write's ack (N), pop c (S).
  double expected = pushC + S + Q + tile / W + N + S;
  EXPECT_NEAR(p->cycles, expected, 1e-6);
  EXPECT_NEAR(p->deviceNs, expected / (double(d.clockMhz) / 1000) + k.launchNs, 1e-6);
  // Utilisation as tt-metal defines it: ideal FPU cycles (64 at HiFi4) over the predicted cycles.
  EXPECT_NEAR(p->idealCycles, double(d.compute.matmul.hifi4), 1e-9);
  EXPECT_NEAR(p->utilization, double(d.compute.matmul.hifi4) / expected, 1e-12);
  EXPECT_EQ(p->simulations, 1);
}

// ---- Simulation semantics ----------------------------------------------------------------------

TEST(CostModel, ShallowOutputCbStallsTheComputeThreadOnThatCb) {
  ir::Device d = wormhole();
  // The writer is slow (big blocks); the compute thread must wait for room in %out.
  auto run = [&](int64_t outDepth) {
    Program p = pipeline(8, 2, outDepth, 2048, 100, 64 * 2048);
    Expected<Prediction> r = predict(p, d);
    EXPECT_TRUE(r);
    return *r;
  };
  Prediction shallow = run(1), deep = run(4);
  const ThreadStats& computeShallow = shallow.criticalThreads.at(1).stats;
  EXPECT_GT(computeShallow.stallCbFull, 0);
  EXPECT_GT(shallow.criticalCbStall.at(1), 0);
  EXPECT_GT(shallow.criticalCbStall.at(1), deep.criticalCbStall.at(1));
  EXPECT_LE(deep.cycles, shallow.cycles);
}

TEST(CostModel, ReaderBoundPipelineRunsAtTheReadRate) {
  ir::Device d = wormhole();
  // 200 blocks of 64 KiB: the reader streams at the core's read rate; everything else is hidden.
  int64_t bytes = 64 * 1024;
  Program p = pipeline(200, 2, 2, bytes, 10, 2048);
  double perBlock = double(bytes) / double(d.dram.measuredReadBytesPerCycle);
  double cycles = predictCycles(p, d);
  // Each block: issue, stream, latency (the reader waits for it before the next), CB calls.
  double k = d.cost.nocRequestCycles + d.cost.dramLatencyCycles + 2 * d.cost.cbSyncCycles;
  EXPECT_GT(cycles, 200 * perBlock);
  EXPECT_LT(cycles, 200 * (perBlock + k) + 20000);
}

TEST(CostModel, ExtrapolationMatchesTheFullSimulation) {
  ir::Device d = wormhole();
  for (double cycles : {50.0, 3000.0, 12000.0}) {
    Program p = pipeline(37, 2, 2, 8192, cycles, 4096);
    p.classes[0].threads[1].steps[0].body.insert(p.classes[0].threads[1].steps[0].body.begin() + 2,
                                                 loop(23, {compute(cycles / 23)}));
    ModelOptions full;
    full.sampleLow = 1000;
    full.sampleHigh = 2000;
    double exact = predictCycles(p, d, full);
    Expected<Prediction> fast = predict(p, d);
    ASSERT_TRUE(fast);
    EXPECT_EQ(fast->simulations, 4); // the work loop and the inner loop of 23
    EXPECT_NEAR(fast->cycles / exact, 1.0, 0.01) << "compute " << cycles;
  }
}

// A loop nested in a loop of the same trip count gets its own variable: sharing one makes the
// time quadratic in it, which the linear extrapolation cannot follow (cost-2 predicted 4,400
// cycles here instead of 6,800).
TEST(CostModel, NestedLoopsOfTheSameCountAreExtrapolatedApart) {
  ir::Device d = wormhole();
  Program p;
  CoreClass cls;
  cls.name = "core";
  cls.threads = {Thread{ThreadRole::Compute, {loop(8, {loop(8, {compute(100)}), compute(50)})}}};
  p.classes = {cls};
  Expected<Prediction> fast = predict(p, d);
  ASSERT_TRUE(fast) << fast.error().message;
  EXPECT_EQ(fast->simulations, 4); // two variables: the outer loop and the inner one
  EXPECT_NEAR(fast->cycles, 8 * (8 * 100 + 50), 1e-6);
}

TEST(CostModel, MulticastWaitsForEveryReceiverAndDeliversAfterTheLatency) {
  ir::Device d = wormhole();
  Program p;
  // Class 0 sends one block; class 1 receives it after a slow start (compute 5000 before ready).
  CoreClass sender, receiver;
  sender.name = "sender";
  receiver.name = "receiver";
  receiver.cores = 7;
  Step send;
  send.kind = StepKind::Send;
  send.net = 0;
  send.bytes = 4096;
  Step receive;
  receive.kind = StepKind::Receive;
  receive.net = 0;
  sender.threads = {Thread{ThreadRole::Noc0, {send}}};
  receiver.threads = {Thread{ThreadRole::Noc0, {compute(5000), receive}}};
  p.classes = {sender, receiver};
  p.nets = {Net{"net", 0, {1}, 7, 1}};
  Expected<Prediction> r = predict(p, d);
  ASSERT_TRUE(r) << r.error().message;
  const ir::CostConstants& k = d.cost;
  double ready = 5000 + k.nocRequestCycles;
  // The sender hears the last ready signal one NoC latency later, issues the linked multicast,
  // and the data streams at the linked rate; its VALID flag lands one latency after.
  double sent = ready + k.nocLatencyCycles + k.nocRequestCycles +
                4096.0 / double(d.noc.measuredMulticastLinkedBytesPerCycle);
  EXPECT_NEAR(r->cycles, sent + k.nocLatencyCycles, 1e-9);
  EXPECT_EQ(r->criticalClass, 1);
}

TEST(CostModel, DeadlockIsAnErrorNamingTheThreadAndCb) {
  Program p = pipeline(4, 1, 1, 2048, 10, 2048);
  // The compute thread never pops: the reader blocks forever on %in.
  auto& body = p.classes[0].threads[1].steps[0].body;
  body.pop_back();
  Expected<Prediction> r = predict(p, wormhole());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("blocks forever in reserve on full CB %in"), std::string::npos)
      << r.error().message;
}

// Threads that walk the same 12 blocks with different loop nests (one loop of 12 against 4 x 3,
// as a tt-lang kernel's reader and compute often do) are cut differently by the sampling; the
// model simulates every iteration instead, so it predicts what the same nests predict.
TEST(CostModel, DifferentLoopNestsOverTheSameBlocksPredictLikeEqualNests) {
  auto nested = [](std::vector<Step> body) {
    return std::vector<Step>{loop(4, {loop(3, std::move(body))})};
  };
  Program equal = pipeline(12, 2, 2, 2048, 10, 2048);
  for (Thread& t : equal.classes[0].threads)
    t.steps = nested(t.steps[0].body);
  Program mixed = equal;
  Thread& math = mixed.classes[0].threads[1];
  math.steps = {loop(12, math.steps[0].body[0].body)};
  double expected = predictCycles(equal, wormhole());
  EXPECT_NEAR(predictCycles(mixed, wormhole()), expected, 1e-6 * expected);
}

TEST(CostModel, MalformedProgramIsAnError) {
  Program p = pipeline(4, 1, 1, 2048, 10, 2048);
  p.classes[0].threads[0].steps[0].body[0].cb = 7;
  Expected<Prediction> r = predict(p, wormhole());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("uses CB 7"), std::string::npos) << r.error().message;
}

TEST(CostModel, DeviceCostFieldsAreCheckedAndRoundTrip) {
  nlohmann::json j = ir::toJson(wormhole());
  Expected<ir::Device> back = ir::parseDevice(j.dump(), "x.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, wormhole());
  j["cost"]["matmul_fpu_efficiency"] = 1.5;
  j["cost"]["launch_ns"] = "fast";
  j["cost"].erase("noc_latency_cycles");
  Expected<ir::Device> bad = ir::parseDevice(j.dump(), "x.json");
  ASSERT_FALSE(bad);
  const std::string& m = bad.error().message;
  EXPECT_NE(m.find("field 'cost.matmul_fpu_efficiency' = 1.5 is out of range [0.01, 1.0]"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("field 'cost.launch_ns' has type string, expected number"), std::string::npos)
      << m;
  EXPECT_NE(m.find("field 'cost.noc_latency_cycles' is missing"), std::string::npos) << m;
}

// ---- Monotonicity -----------------------------------------------------------------------------

TEST(CostModel, MoreBytesAreNeverFaster) {
  ir::Device d = wormhole();
  double last = 0;
  for (int64_t bytes : {1024, 2048, 8192, 32768, 131072}) {
    double cycles = predictCycles(pipeline(50, 2, 2, bytes, 500, bytes), d);
    EXPECT_GE(cycles, last) << bytes;
    last = cycles;
  }
}

TEST(CostModel, DeeperCbsAreNeverSlower) {
  ir::Device d = wormhole();
  for (double cycles : {100.0, 1000.0, 5000.0}) {
    double last = 1e300;
    for (int64_t depth = 1; depth <= 4; ++depth) {
      double t = predictCycles(pipeline(40, depth, depth, 16384, cycles, 16384), d);
      EXPECT_LE(t, last + 1e-6) << "depth " << depth << " compute " << cycles;
      last = t;
    }
  }
}

TEST(CostModel, HigherFidelityIsNeverFaster) {
  ir::Device d = wormhole();
  planner::dst::Problem problem;
  problem.chain.ops = {planner::dst::Op{"ttl.matmul", {0, 1}, 2, true, 0, 0}};
  problem.chain.blockRows = 4;
  problem.chain.blockCols = 4;
  planner::dst::Solution solution;
  planner::dst::Segment seg;
  seg.endOp = 1;
  seg.blockRows = seg.blockCols = 4;
  seg.subblockRows = 2;
  seg.subblockCols = 4;
  seg.rounds = 2;
  solution.segments = {seg};
  std::vector<OpShape> shapes = {OpShape{8, 2, 2048}};
  double last = 0;
  for (int phases = 1; phases <= 4; ++phases) {
    ComputeSettings s{phases, false, 2048};
    ComputeBreakdown b = priceChain(problem, solution, shapes, s, d);
    double total = b.math + b.unpack + b.pack + b.overhead;
    EXPECT_GE(total, last) << phases;
    last = total;
    EXPECT_NEAR(idealMathCycles(problem, shapes, phases, d),
                4.0 * 4 * 8 * double(d.compute.matmul.forPhases(phases)), 1e-9);
  }
}

TEST(CostModel, MoreCoresAreNeverSlowerWhenComputeBound) {
  ir::Device d = wormhole();
  // tests/run/matmul_grid.ttl: 8x8 output tiles in 1x1 blocks with the full K (8 tiles) per
  // item, 64 items; the grid grows from 1x1 to 8x8.
  std::string path = kSource + "/tests/run/matmul_grid.ttl";
  double last = 1e300;
  for (auto [gy, gx] : {std::pair{1, 1}, {1, 2}, {2, 2}, {2, 4}, {4, 4}, {8, 8}}) {
    ir::DiagnosticEngine diags;
    auto module = ir::parseFile(path, diags);
    ASSERT_TRUE(module);
    ASSERT_TRUE(ir::verify(*module, diags)) << ir::format(diags.diagnostics());
    lower::PlanOptions options;
    options.binding =
        ir::Binding{{"GY", gy}, {"GX", gx}, {"BM", 1}, {"BN", 1}, {"BK", 8}, {"WM", 8}, {"WN", 8}};
    Expected<lower::ModulePlan> plan = lower::planModule(*module, d, options);
    ASSERT_TRUE(plan) << plan.error().message;
    Expected<Program> program = extractProgram(module->topLevel(ir::KernelOp::kName).at(0),
                                               plan->kernels.at(0), plan->binding.binding, d);
    ASSERT_TRUE(program) << program.error().message;
    double cycles = predictCycles(*program, d);
    EXPECT_LE(cycles, last) << gy << "x" << gx;
    last = cycles;
  }
}

TEST(CostModel, MulticastExampleHasFourCoreClassesAndTwoNetsPerOperand) {
  ir::Device d = wormhole();
  ir::DiagnosticEngine diags;
  auto module = ir::parseFile(kSource + "/examples/matmul_mcast_2d.ttl", diags);
  ASSERT_TRUE(module && ir::verify(*module, diags));
  Expected<lower::ModulePlan> plan = lower::planModule(*module, d);
  ASSERT_TRUE(plan) << plan.error().message;
  Expected<Program> program =
      extractProgram(module->topLevel(ir::KernelOp::kName).at(0), plan->kernels.at(0), {}, d);
  ASSERT_TRUE(program) << program.error().message;
  // (0,0) sends A and B; (0,y>0) sends A, receives B; (x>0,0) sends B, receives A; the rest
  // receive both.
  ASSERT_EQ(program->classes.size(), 4u);
  int cores = 0;
  for (const CoreClass& c : program->classes)
    cores += c.cores;
  EXPECT_EQ(cores, 16);
  EXPECT_EQ(program->nets.size(), 4u);
  for (const Net& net : program->nets)
    EXPECT_EQ(net.destinations, 3);
  Expected<Prediction> p = predict(*program, d);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_GT(p->cycles, 0);
  EXPECT_GT(p->analytic.mcastBytes, 0);
}

} // namespace
} // namespace ttlplan::search::cost

namespace ttlplan::search::cost {
namespace {

MatmulRun run2d(uint64_t m, uint64_t k, uint64_t n) {
  MatmulRun run;
  run.problem.m = m;
  run.problem.k = k;
  run.problem.n = n;
  run.config.family = baselines::MatmulFamily::MultiCast2D;
  run.config.in0BlockW = 4;
  run.config.outSubblockH = 2;
  run.config.outSubblockW = 4;
  run.config.perCoreM = run.config.outBlockH = uint32_t(m / 32 / 8);
  run.config.perCoreN = run.config.outBlockW = uint32_t(n / 32 / 8);
  return run;
}

TEST(CostModel, ACoreReadingOnTwoThreadsDoesNotBeatTheBanks) {
  ir::Device d = wormhole();
  // 64 cores, each reading 100 blocks of 64 KiB on each of its two data-movement threads. The
  // threads transfer side by side, so the banks, not one thread's own rate, set the pace: all
  // bytes at the chip's bandwidth. (Until cost-4 the load factor took the two threads' traffic
  // as one, and the kernel came out at half the banks' time.)
  int64_t bytes = 64 * 1024, blocks = 100;
  Program p;
  CoreClass cls;
  cls.name = "reads A and B";
  cls.cores = 64;
  for (ThreadRole role : {ThreadRole::Noc0, ThreadRole::Noc1})
    cls.threads.push_back(
        {role, {loop(blocks, {transfer(StepKind::Read, bytes), waitTransfers()}, true)}});
  p.classes.push_back(cls);
  p.gridRows = p.gridCols = 8;
  double all = 64.0 * 2 * double(blocks * bytes);
  // What the banks deliver with every core reading interleaved pages (measured on Wormhole).
  ASSERT_GT(d.dram.measuredInterleavedGBps, 0);
  ASSERT_LT(d.dram.measuredInterleavedGBps, double(d.dram.bandwidthGBps));
  double banks = all / (d.dram.measuredInterleavedGBps / (double(d.clockMhz) / 1000));
  ASSERT_GT(banks, 2 * double(blocks * bytes) / double(d.dram.measuredReadBytesPerCycle));
  Expected<Prediction> r = predict(p, d);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GE(r->cycles, banks);
  EXPECT_LT(r->cycles, 1.1 * banks);
  EXPECT_GE(r->cycles, r->analytic.dram);
}

TEST(CostModelMatmul, TwoDimensionalConfigHasFourClassesAndNetsAndRespectsTheBounds) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  Expected<Program> program = matmulProgram(run2d(2048, 2048, 2048), d);
  ASSERT_TRUE(program) << program.error().message;
  ASSERT_EQ(program->classes.size(), 4u);
  int cores = 0;
  for (const CoreClass& c : program->classes)
    cores += c.cores;
  EXPECT_EQ(cores, 64);
  ASSERT_EQ(program->nets.size(), 4u);
  EXPECT_EQ(program->nets[1].nets, 7); // in0 from column 0, rows 1..7
  EXPECT_EQ(program->nets[1].destinations, 7);
  Expected<Prediction> p = predict(*program, d);
  ASSERT_TRUE(p) << p.error().message;
  // Never faster than a throughput bound.
  EXPECT_GE(p->cycles, p->analytic.compute);
  EXPECT_GE(p->cycles, p->analytic.dram);
  // tt-metal's ideal: 64^3 tile products at HiFi4 over 64 cores.
  EXPECT_NEAR(p->idealCycles, 64.0 * 64 * 64 * double(d.compute.matmul.hifi4) / 64, 1e-6);
  EXPECT_GT(p->utilization, 0.3);
  EXPECT_LT(p->utilization, 1.0);
}

TEST(CostModelMatmul, KnobsThatDoNotDivideAreAnError) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  MatmulRun run = run2d(2048, 2048, 2048);
  run.config.in0BlockW = 3; // 64 K tiles
  Expected<Program> program = matmulProgram(run, d);
  ASSERT_FALSE(program);
  EXPECT_NE(program.error().message.find("Kt 64 in0_block_w 3"), std::string::npos)
      << program.error().message;
  run = run2d(2048, 2048, 2048);
  run.config.family = baselines::MatmulFamily::MultiCore;
  EXPECT_FALSE(matmulProgram(run, d));
}

TEST(CostModelMatmul, SpillingPartialsCostsMoreThanL1Accumulation) {
  ir::Device d = *ir::builtinDevice("blackhole_p150");
  // A math-bound round (2x4 sub-block, 4 K tiles): reloading the partials adds a datacopy per
  // tile to math (and tiles to the unpacker), which L1 accumulation does not need.
  MatmulRun run = run2d(4096, 8192, 4096);
  run.packerL1Acc = true;
  Expected<Prediction> l1 = predict(*matmulProgram(run, d), d);
  run.packerL1Acc = false;
  Expected<Prediction> spill = predict(*matmulProgram(run, d), d);
  ASSERT_TRUE(l1 && spill);
  EXPECT_GT(spill->cycles, l1->cycles);
}

} // namespace
} // namespace ttlplan::search::cost

namespace ttlplan::search::cost {
namespace {

TEST(CostReport, OneKernelJsonHasTheTopLevelPredictionAndTheTableNamesTheStalls) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  ir::DiagnosticEngine diags;
  auto module = ir::parseFile(kSource + "/examples/matmul_mcast_2d.ttl", diags);
  ASSERT_TRUE(module && ir::verify(*module, diags));
  Expected<CostReport> report = costModule(*module, d, lower::PlanOptions{});
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->kernels.size(), 1u);
  nlohmann::json j = toJson(*report);
  EXPECT_EQ(j["schema_version"], kCostReportSchemaVersion);
  EXPECT_EQ(j["model_version"], std::string(kModelVersion));
  EXPECT_EQ(j["calibration_hash"], calibrationHash(d));
  const Prediction& p = report->kernels[0].prediction;
  EXPECT_DOUBLE_EQ(j["predicted_ns"].get<double>(), p.deviceNs);
  EXPECT_DOUBLE_EQ(j["utilization"].get<double>(), p.utilization);
  EXPECT_EQ(j["bound"], std::string(toString(p.bound)));
  EXPECT_EQ(j["kernels"][0]["grid"], nlohmann::json({4, 4}));
  EXPECT_EQ(j["kernels"][0]["critical_core"]["threads"].size(), 3u);
  std::string text = formatCostReport(*report);
  EXPECT_NE(text.find("@matmul_mcast_2d (4x4 grid): predicted"), std::string::npos) << text;
  EXPECT_NE(text.find("cycles waited on each CB: %cba"), std::string::npos) << text;
}

TEST(CostReport, ComputeGridOverrideIsCheckedAgainstTheDevice) {
  ir::Device d = *ir::builtinDevice("blackhole_p150");
  EXPECT_TRUE(ir::setComputeGrid(d, 10, 12));
  EXPECT_EQ(d.grid.compute, (ir::GridShape{10, 12}));
  Status tooWide = ir::setComputeGrid(d, 10, 15);
  ASSERT_FALSE(tooWide);
  EXPECT_NE(tooWide.error().message.find("at most 10x12"), std::string::npos)
      << tooWide.error().message;
  EXPECT_FALSE(ir::setComputeGrid(d, 0, 4));
}

} // namespace
} // namespace ttlplan::search::cost

namespace ttlplan::search::cost {
namespace {

// The calibration prices ttnn's kernels with matmulProgram; the templates are priced through the
// planner and extractProgram. For the same config (and L1 accumulation, as ttlplan's lowering
// does) the two must agree, or the calibration would not speak for the templates.
TEST(CostModelMatmul, TemplateAndConfigProgramsPredictTheSame) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  struct Case {
    int m, k, n, pm, pn, w, bh, bw;
    const char* dtype;
    const char* fidelity;
    uint32_t tileBytes;
  };
  for (Case c : {Case{2048, 2048, 2048, 8, 8, 4, 8, 8, "bf16", "HiFi4", 2048},
                 Case{1024, 8192, 1024, 4, 4, 16, 4, 4, "bfp4_b", "LoFi", 576},
                 Case{2048, 1024, 4096, 8, 16, 2, 8, 4, "bfp8_b", "HiFi2", 1088},
                 Case{2048, 2048, 4096, 8, 16, 4, 4, 4, "bf16", "HiFi4", 2048}}) {
    SCOPED_TRACE(fmt::format("{}x{}x{} {}", c.m, c.k, c.n, c.dtype));
    ir::DiagnosticEngine diags;
    auto module = ir::parseFile(kSource + "/examples/matmul_2d_template.ttl", diags);
    ASSERT_TRUE(module && ir::verify(*module, diags));
    lower::PlanOptions options;
    options.binding = ir::Binding{{"M", c.m},
                                  {"K", c.k},
                                  {"N", c.n},
                                  {"DTYPE", ir::KnobValue::symbol(c.dtype)},
                                  {"FIDELITY", ir::KnobValue::symbol(c.fidelity)},
                                  {"FP32_DEST_ACC", 0},
                                  {"per_core_M", c.pm},
                                  {"per_core_N", c.pn},
                                  {"in0_block_w", c.w},
                                  {"out_block_h", c.bh},
                                  {"out_block_w", c.bw},
                                  {"out_subblock_h", 2},
                                  {"out_subblock_w", 4}};
    Expected<lower::ModulePlan> plan = lower::planModule(*module, d, options);
    ASSERT_TRUE(plan) << plan.error().message;
    const planner::dst::Segment& seg = plan->kernels[0].chains.at(0).solution.segments.at(0);
    Expected<Program> fromTemplate = extractProgram(module->topLevel(ir::KernelOp::kName).at(0),
                                                    plan->kernels[0], plan->binding.binding, d);
    ASSERT_TRUE(fromTemplate) << fromTemplate.error().message;
    MatmulRun run;
    run.problem.m = uint64_t(c.m);
    run.problem.k = uint64_t(c.k);
    run.problem.n = uint64_t(c.n);
    run.problem.in0TileBytes = run.problem.in1TileBytes = run.problem.outTileBytes = c.tileBytes;
    run.config.family = baselines::MatmulFamily::MultiCast2D;
    run.config.in0BlockW = uint32_t(c.w);
    run.config.outBlockH = uint32_t(c.bh);
    run.config.outBlockW = uint32_t(c.bw);
    run.config.perCoreM = uint32_t(c.pm);
    run.config.perCoreN = uint32_t(c.pn);
    run.config.outSubblockH = uint32_t(seg.subblockRows); // the planner's, as the template runs
    run.config.outSubblockW = uint32_t(seg.subblockCols);
    run.fidelity = c.fidelity;
    run.packerL1Acc = true;
    Expected<Program> fromConfig = matmulProgram(run, d);
    ASSERT_TRUE(fromConfig) << fromConfig.error().message;
    EXPECT_EQ(fromTemplate->classes.size(), fromConfig->classes.size());
    // The template's block rows x block columns merge into one loop over a core's blocks, as
    // the config builder's block loop (mergeSharedNest).
    for (const CoreClass& cls : fromTemplate->classes)
      for (const Thread& thread : cls.threads) {
        ASSERT_EQ(thread.steps.size(), 1u);
        EXPECT_EQ(thread.steps[0].kind, StepKind::Loop);
        EXPECT_EQ(thread.steps[0].count, (c.pm / c.bh) * (c.pn / c.bw));
      }
    Expected<Prediction> a = predict(*fromTemplate, d), b = predict(*fromConfig, d);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->simulations, b->simulations);
    EXPECT_NEAR(a->cycles / b->cycles, 1.0, 0.02);
    EXPECT_NEAR(a->idealCycles, b->idealCycles, 1e-6 * b->idealCycles);
  }
}

} // namespace
} // namespace ttlplan::search::cost

namespace ttlplan::search::cost {
namespace {

// Edge cores of the 2-D template (per-core blocks that do not divide the matrix): their loops
// split where the padded blocks start; the model samples the split loop as a whole, so the
// prediction matches a full simulation and the edge core reads less.
TEST(CostModelMatmul, EdgeCoresSplitTheirLoopsAndExtrapolateLikeTheWhole) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  ir::DiagnosticEngine diags;
  auto module = ir::parseFile(kSource + "/examples/matmul_2d_template.ttl", diags);
  ASSERT_TRUE(module && ir::verify(*module, diags));
  lower::PlanOptions options;
  // 10 x 32 tiles in per-core blocks of 4 x 8: 3 x 4 cores; the last row owns 2 of its 4 rows.
  options.binding = ir::Binding{{"M", 320},           {"K", 256},         {"N", 1024},
                                {"per_core_M", 4},    {"per_core_N", 8},  {"out_block_h", 1},
                                {"out_block_w", 8},   {"in0_block_w", 1}, {"out_subblock_h", 1},
                                {"out_subblock_w", 8}};
  Expected<lower::ModulePlan> plan = lower::planModule(*module, d, options);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->kernels[0].grid.rows, 3);
  Expected<Program> program = extractProgram(module->topLevel(ir::KernelOp::kName).at(0),
                                             plan->kernels[0], plan->binding.binding, d);
  ASSERT_TRUE(program) << program.error().message;
  int split = 0;
  std::function<void(const std::vector<Step>&)> count = [&](const std::vector<Step>& steps) {
    for (const Step& s : steps) {
      if (s.kind != StepKind::Loop) continue;
      split += s.sourceCount > 0;
      count(s.body);
    }
  };
  for (const CoreClass& c : program->classes)
    for (const Thread& t : c.threads)
      count(t.steps);
  EXPECT_GT(split, 0);
  ModelOptions full;
  full.sampleLow = 1000;
  full.sampleHigh = 2000;
  Expected<Prediction> fast = predict(*program, d), exact = predict(*program, d, full);
  ASSERT_TRUE(fast && exact) << (fast ? exact.error().message : fast.error().message);
  EXPECT_NEAR(fast->cycles / exact->cycles, 1.0, 0.02);
  EXPECT_GT(fast->simulations, 1);
}

// Classes come from the control values on each core, including those computed from ttl.core_x
// and ttl.core_y together: here every thread loops n = 2 times on the first 4 cores of the
// row-major order (index y * 3 + x) and once on the last 2, so (2,0) and (0,1) share a class
// although neither their column nor their row alone decides n.
TEST(CostModel, ClassesFollowControlValuesThatMixBothCoordinates) {
  const char* source = R"(#dram = #ttl.layout<dram, interleaved>
!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<1x1x!tile>
!cb = !ttl.cb<[1, 1], !tile, 2>
module {
  ttl.kernel @mixed(%a: tensor<64x96xbf16, #dram>, %c: tensor<64x96xbf16, #dram>)
      attributes {grid = [2, 3]} {
    %cb = ttl.create_cb : !cb
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %x = ttl.core_x : index
      %y = ttl.core_y : index
      %row = arith.muli %y, %c3 : index
      %i = arith.addi %row, %x : index
      %q = arith.divui %i, %c4 : index
      %late = arith.minui %q, %c1 : index
      %n = arith.subi %c2, %late : index
      scf.for %k = %c0 to %n step %c1 {
        %v = ttl.cb_reserve %cb : !cb -> !blk
        %s = ttl.tensor_slice %a[%y, %x] : tensor<64x96xbf16, #dram> -> !blk
        %r = ttl.copy %s, %v : (!blk, !blk) -> !ttl.transfer_handle<read>
        ttl.wait %r : !ttl.transfer_handle<read>
        ttl.cb_push %cb : !cb
      }
    }
    ttl.datamovement_thread {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %x = ttl.core_x : index
      %y = ttl.core_y : index
      %row = arith.muli %y, %c3 : index
      %i = arith.addi %row, %x : index
      %q = arith.divui %i, %c4 : index
      %late = arith.minui %q, %c1 : index
      %n = arith.subi %c2, %late : index
      scf.for %k = %c0 to %n step %c1 {
        %w = ttl.cb_wait %cb : !cb -> !blk
        %s = ttl.tensor_slice %c[%y, %x] : tensor<64x96xbf16, #dram> -> !blk
        %t = ttl.copy %w, %s : (!blk, !blk) -> !ttl.transfer_handle<write>
        ttl.wait %t : !ttl.transfer_handle<write>
        ttl.cb_pop %cb : !cb
      }
    }
  }
}
)";
  ir::Device d = wormhole();
  ir::DiagnosticEngine diags;
  auto module = ir::parseSource(source, "mixed.ttl", diags);
  ASSERT_TRUE(module && ir::verify(*module, diags));
  Expected<lower::ModulePlan> plan = lower::planModule(*module, d, {});
  ASSERT_TRUE(plan) << plan.error().message;
  Expected<Program> program = extractProgram(module->topLevel(ir::KernelOp::kName).at(0),
                                             plan->kernels[0], plan->binding.binding, d);
  ASSERT_TRUE(program) << program.error().message;
  std::map<std::pair<int, int>, std::pair<int, int64_t>> classes; // representative -> cores, n
  for (const CoreClass& c : program->classes) {
    ASSERT_EQ(c.threads.size(), 2u);
    ASSERT_EQ(c.threads[0].steps.size(), 1u);
    classes[{c.representativeX, c.representativeY}] = {c.cores, c.threads[0].steps[0].count};
  }
  std::map<std::pair<int, int>, std::pair<int, int64_t>> expected = {{{0, 0}, {4, 2}},
                                                                     {{1, 1}, {2, 1}}};
  EXPECT_EQ(classes, expected);
}

// The ranking uncertainty is measured from the predictions, not an input to them: changing it
// keeps every record's calibration current.
TEST(CostModel, RankUncertaintyIsNotPartOfTheCalibrationHash) {
  ir::Device d = *ir::builtinDevice("blackhole_p150");
  std::string hash = calibrationHash(d);
  d.cost.rankUncertainty = 0.5;
  EXPECT_EQ(calibrationHash(d), hash);
  d.cost.hostDispatchNs += 1; // a model input does change it
  EXPECT_NE(calibrationHash(d), hash);
}

TEST(CostModel, HostTimeIsDeviceTimeTimesTheFactorPlusDispatch) {
  ir::Device d = wormhole();
  ASSERT_NEAR(d.cost.hostTimeFactor, 1.104, 1e-12); // ir/devices/wormhole_b0.json
  Program p = pipeline(8, 2, 2, 2048, 100, 2048);
  Expected<Prediction> r = predict(p, d);
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->hostNs, r->deviceNs * 1.104 + d.cost.hostDispatchNs, 1e-6);
  // The factor scales host predictions only: the device time and the records' hash stay.
  std::string hash = calibrationHash(d);
  d.cost.hostTimeFactor = 2;
  Expected<Prediction> doubled = predict(p, d);
  ASSERT_TRUE(doubled);
  EXPECT_EQ(doubled->deviceNs, r->deviceNs);
  EXPECT_NEAR(doubled->hostNs, r->deviceNs * 2 + d.cost.hostDispatchNs, 1e-6);
  EXPECT_EQ(calibrationHash(d), hash);
  // Blackhole has no device times to separate a factor from.
  EXPECT_EQ(ir::builtinDevice("blackhole_p150")->cost.hostTimeFactor, 1);
}

} // namespace
} // namespace ttlplan::search::cost
