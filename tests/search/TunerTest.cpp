// The autotuner (search/Tuner.h): exhaustive search against brute force, the same result at any
// thread count, resume after a crash, shards that merge into the single run, rejection reasons.
#include "ttlplan/search/Tuner.h"

#include "tests/support/LoadModule.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/cost/Extract.h"
#include "ttlplan/support/ReadFile.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace ttlplan::search {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;

std::unique_ptr<ir::Module> load(const std::string& path) {
  return testing::loadVerified(path);
}

std::unique_ptr<ir::Module> parseText(const std::string& text) {
  return testing::parseVerified(text);
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string tempPath(const std::string& name) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path();
  std::string path = (dir / ("ttlplan_tuner_" + std::to_string(getpid()) + "_" +
                             std::to_string(counter++) + "_" + name))
                         .string();
  std::filesystem::remove(path);
  return path;
}

ir::Device wormhole() {
  return *ir::builtinDevice("wormhole_b0");
}

/// Records compared without their wall-clock field.
std::vector<Record> withoutTiming(std::vector<Record> records) {
  for (Record& r : records)
    r.timingMs = 0;
  return records;
}

/// matmul_template: 4^5 knob points times 4 block counts of its `?` CB.
TuneOptions exhaustive(int threads) {
  TuneOptions o;
  o.threads = threads;
  o.top = 5;
  return o;
}

TEST(Tuner, ExhaustiveFindsTheBruteForceOptimum) {
  auto module = load(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  Expected<TuneResult> result = tune(*module, d, {}, exhaustive(2));
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_FALSE(result->top.empty());
  EXPECT_EQ(result->space.size(), 4096u);
  EXPECT_EQ(result->evaluated, 4096u);
  // Brute force: every point evaluated on its own, the least predicted time, ties by point text.
  std::optional<Record> best;
  uint64_t feasible = 0;
  for (uint64_t id = 0; id < result->space.size(); ++id) {
    Record r = evaluatePoint(*module, d, result->space.point(id), {}, {}, nullptr);
    if (!r.ok()) continue;
    ++feasible;
    if (!best || *r.predictedNs < *best->predictedNs ||
        (*r.predictedNs == *best->predictedNs && ir::str(r.point) < ir::str(best->point)))
      best = r;
  }
  ASSERT_TRUE(best);
  EXPECT_EQ(result->feasible, feasible);
  EXPECT_EQ(result->top.front().point, best->point);
  EXPECT_EQ(result->top.front().predictedNs, best->predictedNs);
  for (size_t i = 1; i < result->top.size(); ++i)
    EXPECT_LE(*result->top[i - 1].predictedNs, *result->top[i].predictedNs);
}

/// The 2-D template's knobs bound to size^3, bf16, HiFi2, 1 x 1 sub-blocks.
ir::Binding fixed2D(int64_t size = 1024) {
  return {{"M", size},
          {"K", size},
          {"N", size},
          {"DTYPE", ir::KnobValue::symbol("bf16")},
          {"FIDELITY", ir::KnobValue::symbol("HiFi2")},
          {"FP32_DEST_ACC", 0},
          {"out_subblock_h", 1},
          {"out_subblock_w", 1}};
}

TEST(Tuner, OneAndTwoThreadsGiveTheSameResultAndRecords) {
  auto module = load(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  for (StrategyKind kind : {StrategyKind::Exhaustive, StrategyKind::Random, StrategyKind::Anneal}) {
    std::vector<std::string> texts;
    std::vector<std::vector<Record>> tops;
    for (int threads : {1, 2}) {
      std::string path = tempPath("threads.jsonl");
      Expected<TuningDb> db = TuningDb::create(path, tuningHeader(*module, d, {}));
      ASSERT_TRUE(db) << db.error().message;
      TuneOptions o = exhaustive(threads);
      o.strategy.kind = kind;
      o.strategy.budgetEvals = kind == StrategyKind::Exhaustive ? 0 : 700;
      o.strategy.seed = 7;
      o.db = &*db;
      Expected<TuneResult> r = tune(*module, d, {}, o);
      ASSERT_TRUE(r) << r.error().message;
      tops.push_back(withoutTiming(r->top));
      texts.push_back(stripTiming(readText(path)));
    }
    EXPECT_EQ(tops[0], tops[1]) << toString(kind);
    EXPECT_EQ(texts[0], texts[1]) << toString(kind);
    EXPECT_GT(texts[0].size(), 1000u);
  }
}

TEST(Tuner, WithoutADbTheCountsAndTopAreThoseOfARunWithOne) {
  // Without a db the threads count the rejected points themselves (per-thread maps merged at the
  // end) and drop their records; the result must not depend on that or on the thread count.
  // 5,600 points (per_core_N+out_block_w 50, out_block_h 4, in0_block_w 7, block count 4),
  // rejected for three reasons (require: one column of cores; cores: more than 8; l1).
  auto module = load(kSource + "/examples/matmul_2d_template.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  ir::Binding fixed = fixed2D(2048);
  fixed["N"] = 512;
  fixed["per_core_M"] = 8;
  std::vector<TuneResult> runs;
  for (bool withDb : {true, false})
    for (int threads : {1, 2}) {
      std::string path = tempPath("nodb.jsonl");
      Expected<TuningDb> db = TuningDb::create(path, tuningHeader(*module, d, fixed));
      ASSERT_TRUE(db) << db.error().message;
      TuneOptions o = exhaustive(threads);
      if (withDb) o.db = &*db;
      Expected<TuneResult> r = tune(*module, d, fixed, o);
      ASSERT_TRUE(r) << r.error().message;
      runs.push_back(std::move(*r));
    }
  EXPECT_EQ(runs[0].space.size(), 5600u);
  ASSERT_EQ(runs[0].rejected.size(), 3u); // several reasons, so the merge has keys to join
  for (size_t i = 1; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].evaluated, runs[0].evaluated) << i;
    EXPECT_EQ(runs[i].feasible, runs[0].feasible) << i;
    EXPECT_EQ(runs[i].rejected, runs[0].rejected) << i;
    // A run with a db keeps each record's plans (for `db rerank`); nothing else may differ.
    auto withoutPlans = [](std::vector<Record> top) {
      for (Record& r : top)
        r.plans.clear();
      return withoutTiming(std::move(top));
    };
    EXPECT_EQ(withoutPlans(runs[i].top), withoutPlans(runs[0].top)) << i;
  }
}

TEST(Tuner, ResumeAfterACrashEndsWithTheUninterruptedResult) {
  auto module = load(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  DbHeader header = tuningHeader(*module, d, {});
  std::string full = tempPath("full.jsonl");
  Expected<TuningDb> db = TuningDb::create(full, header);
  ASSERT_TRUE(db);
  TuneOptions o = exhaustive(2);
  o.db = &*db;
  Expected<TuneResult> uninterrupted = tune(*module, d, {}, o);
  ASSERT_TRUE(uninterrupted);
  // A crash: keep the first 60% of the file and tear the last line in half.
  std::string text = readText(full);
  size_t cut = text.find('\n', text.size() * 6 / 10);
  ASSERT_NE(cut, std::string::npos);
  size_t torn = cut + (text.find('\n', cut + 1) - cut) / 2;
  std::string crashed = tempPath("crashed.jsonl");
  std::ofstream(crashed) << text.substr(0, torn);
  Expected<TuningDb> resumed = TuningDb::open(crashed, header);
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_FALSE(resumed->warnings().empty());
  o.db = &*resumed;
  Expected<TuneResult> second = tune(*module, d, {}, o);
  ASSERT_TRUE(second);
  EXPECT_GT(second->reused, 1000u);
  EXPECT_EQ(second->reused + second->evaluated, uninterrupted->evaluated);
  EXPECT_EQ(withoutTiming(second->top), withoutTiming(uninterrupted->top));
  // The repaired file holds every point once, like the uninterrupted one.
  Expected<DbFile> a = read(full), b = read(crashed);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->records.size(), b->records.size());
}

TEST(Tuner, ShardsMergeIntoTheSingleRun) {
  auto module = load(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  DbHeader header = tuningHeader(*module, d, {});
  for (StrategyKind kind : {StrategyKind::Exhaustive, StrategyKind::Random}) {
    auto run = [&](Shard shard, const std::string& path) {
      Expected<TuningDb> db = TuningDb::create(path, header);
      EXPECT_TRUE(db);
      TuneOptions o = exhaustive(2);
      o.strategy = {kind, kind == StrategyKind::Random ? 900u : 0u, 3, shard};
      o.db = &*db;
      return tune(*module, d, {}, o);
    };
    std::string single = tempPath("single.jsonl"), s0 = tempPath("s0.jsonl"),
                s1 = tempPath("s1.jsonl"), merged = tempPath("merged.jsonl"),
                sortedSingle = tempPath("sorted.jsonl");
    Expected<TuneResult> whole = run({0, 1}, single);
    ASSERT_TRUE(whole);
    ASSERT_TRUE(run({0, 2}, s0));
    ASSERT_TRUE(run({1, 2}, s1));
    Expected<DbFile> m = merge({s0, s1}, merged);
    ASSERT_TRUE(m) << m.error().message;
    Expected<DbFile> w = merge({single}, sortedSingle); // the same canonical order
    ASSERT_TRUE(w);
    EXPECT_EQ(stripTiming(readText(merged)), stripTiming(readText(sortedSingle)));
    const Record* best = search::best(m->records);
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(best->point, whole->top.front().point);
  }
}

TEST(Tuner, KnobValuesAddedToTheDomainReuseTheRecords) {
  std::string text = readText(kSource + "/examples/matmul_template.ttl");
  auto narrow = parseText(text);
  std::string wider = text;
  size_t at = wider.find("ttl.param @BM = [1, 2, 4, 8]");
  ASSERT_NE(at, std::string::npos);
  wider.replace(at, 28, "ttl.param @BM = [1, 2, 4, 8, 16]");
  auto wide = parseText(wider);
  ASSERT_TRUE(narrow && wide);
  EXPECT_EQ(kernelSourceHash(*narrow), kernelSourceHash(*wide));
  wider.replace(wider.find("%tiles = arith.constant 8"), 25, "%tiles = arith.constant 4");
  auto other = parseText(wider);
  ASSERT_TRUE(other);
  EXPECT_NE(kernelSourceHash(*narrow), kernelSourceHash(*other));
}

TEST(Tuner, JointDimensionsShardResumeAndRejectOutsideTheirDomains) {
  // The 2-D template at 128^3 with out_subblock_h bound to 2: its domain divisors(@out_block_h)
  // reads a searched knob, so each point with an odd out_block_h is rejected, reason "domain".
  auto module = load(kSource + "/examples/matmul_2d_template.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  ir::Binding fixed = fixed2D(128);
  fixed.erase("out_subblock_w");
  fixed["out_subblock_h"] = 2;
  Expected<Space> space = tuningSpace(*module, fixed, true, 4);
  ASSERT_TRUE(space) << space.error().message;
  // Dimensions: per_core_M+out_block_h (8 combinations), per_core_N+out_block_w+out_subblock_w
  // (13), in0_block_w (3) and the output CB's block count (4): 1,248 points.
  EXPECT_EQ(space->size(), 8u * 13u * 3u * 4u);
  uint64_t odd = 0;
  for (uint64_t id = 0; id < space->size(); ++id)
    odd += space->binding(id).at("out_block_h").integer() % 2;
  ASSERT_GT(odd, 0u);
  std::string single = tempPath("joint.jsonl");
  DbHeader header = tuningHeader(*module, d, fixed);
  Expected<TuningDb> db = TuningDb::create(single, header);
  ASSERT_TRUE(db);
  TuneOptions o = exhaustive(2);
  o.db = &*db;
  Expected<TuneResult> whole = tune(*module, d, fixed, o);
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(whole->evaluated, space->size());
  EXPECT_EQ(whole->rejected["domain"], odd);
  ASSERT_FALSE(whole->top.empty());
  EXPECT_EQ(whole->top.front().point.at("out_block_h").integer() % 2, 0);
  // Shards merge into the single run.
  std::string s0 = tempPath("j0.jsonl"), s1 = tempPath("j1.jsonl"), merged = tempPath("jm.jsonl"),
              sorted = tempPath("js.jsonl");
  for (auto [index, path] : {std::pair{0, s0}, std::pair{1, s1}}) {
    Expected<TuningDb> part = TuningDb::create(path, header);
    ASSERT_TRUE(part);
    TuneOptions po = exhaustive(1);
    po.strategy.shard = {uint64_t(index), 2};
    po.db = &*part;
    ASSERT_TRUE(tune(*module, d, fixed, po));
  }
  ASSERT_TRUE(merge({s0, s1}, merged));
  ASSERT_TRUE(merge({single}, sorted));
  EXPECT_EQ(stripTiming(readText(merged)), stripTiming(readText(sorted)));
  // Resume from the first shard's records: they are reused, the rest evaluated, same result.
  Expected<TuningDb> resumed = TuningDb::open(s0, header);
  ASSERT_TRUE(resumed) << resumed.error().message;
  o.db = &*resumed;
  Expected<TuneResult> second = tune(*module, d, fixed, o);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->reused, (space->size() + 1) / 2);
  EXPECT_EQ(second->reused + second->evaluated, space->size());
  EXPECT_EQ(withoutTiming(second->top), withoutTiming(whole->top));
}

/// The reason `point` of the 2-D template (under fixed2D()) is rejected, or "ok".
std::string reasonOf(const ir::Module& module, const ir::Device& d, ir::Binding point) {
  Record r = evaluatePoint(module, d, point, fixed2D(), {}, nullptr);
  EXPECT_EQ(r.ok(), r.reason.empty());
  EXPECT_EQ(r.ok(), r.predictedNs.has_value()) << r.detail;
  return r.ok() ? "ok" : r.reason;
}

TEST(Tuner, RejectionReasonsNameTheResource) {
  auto module = load(kSource + "/examples/matmul_2d_template.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  auto point = [](int64_t ibw, int64_t block, int64_t perCore) {
    return ir::Binding{{"in0_block_w", ibw},
                       {"out_block_h", block},
                       {"out_block_w", block},
                       {"per_core_M", perCore},
                       {"per_core_N", perCore}};
  };
  EXPECT_EQ(reasonOf(*module, d, point(4, 4, 4)), "ok");
  EXPECT_EQ(reasonOf(*module, d, point(4, 4, 5)), "domain"); // out_block 4 does not divide 5
  EXPECT_EQ(reasonOf(*module, d, point(4, 1, 1)), "cores");  // a 32 x 32 grid on 8 x 8
  ir::Binding big = point(16, 16, 16);
  big["block_count(%cbc)"] = 3;
  EXPECT_EQ(reasonOf(*module, d, big), "l1"); // 3 x 512 KiB of output blocks
  Record r = evaluatePoint(*module, d, big, fixed2D(), {}, nullptr);
  EXPECT_NE(r.detail.find("knobs DTYPE, in0_block_w, out_block_h, out_block_w"), std::string::npos)
      << r.detail;
}

TEST(Tuner, CbIndexAndKnobExpressionRejections) {
  // 33 CBs live together: Wormhole has 32 indices, so every point is a cb-index rejection.
  std::string many = "!tile = !ttcore.tile<32x32, bf16>\nmodule {\n  ttl.param @D = [1, 2]\n"
                     "  ttl.kernel @many() attributes {grid = [1, 1]} {\n";
  for (int i = 0; i < 33; ++i)
    many += "    %cb" + std::to_string(i) + " = ttl.create_cb : !ttl.cb<[1, 1], !tile, @D>\n";
  many += "  }\n}\n";
  ir::DiagnosticEngine diags;
  auto module = ir::parseSource(many, "many.ttl", diags); // unused CBs: not verified
  ASSERT_TRUE(module);
  Expected<TuneResult> r = tune(*module, wormhole(), {}, exhaustive(1));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->rejected["cb-index"], 2u);
  EXPECT_TRUE(r->top.empty());
  // An inexact knob division: work = [@W * 3 / 4] holds for W = 4 only.
  std::string text = readText(kSource + "/tests/run/eltwise_grid.ttl");
  size_t at = text.find("work = [@WM, @WN]");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 17, "work = [@WM, @WN * 3 / 4]");
  auto expr = parseText(text);
  ASSERT_TRUE(expr);
  Record bad = evaluatePoint(*expr, wormhole(),
                             {{"GY", 1}, {"GX", 1}, {"BR", 4}, {"BC", 4}, {"WM", 2}, {"WN", 2}}, {},
                             {}, nullptr);
  EXPECT_EQ(bad.reason, "knob-expression") << bad.detail;
  EXPECT_NE(bad.detail.find("WN"), std::string::npos) << bad.detail;
}

TEST(Tuner, ACostProgramReusedAcrossBlockCountsEqualsAFreshOne) {
  // The tuner extracts one cost Program per knob binding and sets its CB depths for each block
  // count (cost::setCbDepths): it must equal the Program extracted from that block count's plan.
  auto module = load(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  ir::Device d = wormhole();
  ir::Binding knobs{{"BK", 8}, {"BM", 1}, {"BN", 2}, {"WM", 8}, {"WN", 4}};
  ir::Operation* kernel = module->topLevel(ir::KernelOp::kName).front();
  std::vector<std::pair<size_t, std::string>> dynamic = dynamicCbs(kernel);
  ASSERT_EQ(dynamic.size(), 1u);
  Expected<planner::kernel::KernelProblem> problem = lower::extractKernelProblem(kernel, knobs, d);
  ASSERT_TRUE(problem) << problem.error().message;
  auto planWith = [&](int64_t count) {
    planner::kernel::PlanOptions o;
    o.blockCounts[dynamic[0].first] = count;
    return lower::planKernel(kernel, *problem, knobs, d, o, nullptr);
  };
  planner::kernel::PlanResult one = planWith(1);
  ASSERT_TRUE(one.plan);
  Expected<cost::Program> reused = cost::extractProgram(kernel, *one.plan, knobs, d);
  ASSERT_TRUE(reused) << reused.error().message;
  for (int64_t count : {3, 2, 4, 1}) {
    planner::kernel::PlanResult plan = planWith(count);
    ASSERT_TRUE(plan.plan);
    Expected<cost::Program> fresh = cost::extractProgram(kernel, *plan.plan, knobs, d);
    ASSERT_TRUE(fresh) << fresh.error().message;
    cost::setCbDepths(*reused, *plan.plan);
    EXPECT_TRUE(*reused == *fresh) << "block count " << count;
    // The depth really changed (the comparison is not of two unchanged Programs).
    bool found = false;
    for (const cost::Cb& cb : fresh->classes.front().cbs)
      found = found || (cb.name == dynamic[0].second && cb.depth == count);
    EXPECT_TRUE(found) << "block count " << count;
  }
  // The grouped evaluation gives each point's record evaluated alone.
  PointEvaluator evaluator(*module, d, {}, {}, nullptr);
  std::vector<ir::Binding> points;
  for (int64_t count : {1, 2, 3, 4}) {
    ir::Binding p = knobs;
    p["block_count(%cbc)"] = count;
    points.push_back(p);
  }
  std::vector<Record> grouped = evaluator.evaluateGroup(points);
  ASSERT_EQ(grouped.size(), points.size());
  for (size_t i = 0; i < points.size(); ++i)
    EXPECT_EQ(withoutTiming({grouped[i]}), withoutTiming({evaluator.evaluate(points[i])}));
}

TEST(Tuner, TimeLimitStopsWithTheBestSoFar) {
  auto module = load(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  TuneOptions o = exhaustive(1);
  o.roundSize = 8;
  o.timeLimitSeconds = 1e-9; // stops after the first round
  Expected<TuneResult> r = tune(*module, wormhole(), {}, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stop, "time limit");
  EXPECT_EQ(r->evaluated, 8u);
}

} // namespace
} // namespace ttlplan::search
