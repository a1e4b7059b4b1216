// Tuner speed (issue 10, "Speed"): evaluations (require check, plan, cost) per second on the 2-D
// matmul template at 1 and 2 threads (and 4, 8, 16 where the machine has them), and the latency
// of one feasible point. Compare the thread counts within one run (machines are noisy): the ratio
// is the scaling.
//   build/bench/tune_bench --benchmark_counters_tabular=true
// TTLPLAN_TUNE_BENCH_TEMPLATE=FILE times another template text with the same fixed knobs.
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/search/Tuner.h"

#include <benchmark/benchmark.h>
#include <cstdlib>
#include <thread>

namespace ttlplan {
namespace {

/// The shipped 2-D template, or the file TTLPLAN_TUNE_BENCH_TEMPLATE names: an older template
/// text, so that two builds can be timed on the same space (docs/tuning.md, Measurements).
std::unique_ptr<ir::Module> loadTemplate() {
  ir::DiagnosticEngine diags;
  const char* path = std::getenv("TTLPLAN_TUNE_BENCH_TEMPLATE");
  auto module =
      ir::parseFile(path ? std::string(path)
                         : std::string(TTLPLAN_SOURCE_DIR) + "/examples/matmul_2d_template.ttl",
                    diags);
  if (!module || !ir::verify(*module, diags)) std::abort();
  return module;
}

/// The 2048^3 bf16 problem with the sub-block knobs fixed: per_core_M+out_block_h and
/// per_core_N+out_block_w (every per-core split of the 64 tiles and its divisors), in0_block_w
/// (the divisors of 64) and the output CB's block count.
ir::Binding fixedKnobs() {
  return {{"M", 2048},
          {"K", 2048},
          {"N", 2048},
          {"DTYPE", ir::KnobValue::symbol("bf16")},
          {"FIDELITY", ir::KnobValue::symbol("HiFi2")},
          {"FP32_DEST_ACC", 0},
          {"out_subblock_h", 1},
          {"out_subblock_w", 1}};
}

void BM_TuneExhaustive2D(benchmark::State& state) {
  auto module = loadTemplate();
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  search::TuneOptions options;
  options.threads = int(state.range(0));
  uint64_t evaluated = 0, feasible = 0;
  for (auto _ : state) {
    Expected<search::TuneResult> r = search::tune(*module, device, fixedKnobs(), options);
    if (!r) std::abort();
    evaluated += r->evaluated;
    feasible += r->feasible;
  }
  state.counters["evals/s"] = benchmark::Counter(double(evaluated), benchmark::Counter::kIsRate);
  state.counters["fit/s"] = benchmark::Counter(double(feasible), benchmark::Counter::kIsRate);
}
/// 1 and 2 threads (the ratio), and 4, 8, 16 where the machine has that many.
void threadCounts(benchmark::internal::Benchmark* b) {
  unsigned hardware = std::thread::hardware_concurrency();
  for (int threads : {1, 2, 4, 8, 16})
    if (threads <= 2 || unsigned(threads) <= hardware) b->Arg(threads);
}
BENCHMARK(BM_TuneExhaustive2D)->Apply(threadCounts)->UseRealTime()->Unit(benchmark::kMillisecond);

/// One feasible point alone (plan through a warm cache, extract the cost program, predict).
void BM_EvaluateFeasiblePoint2D(benchmark::State& state) {
  auto module = loadTemplate();
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  planner::kernel::PlanCache cache;
  ir::Binding point{{"in0_block_w", 4}, {"out_block_h", 4}, {"out_block_w", 4},
                    {"per_core_M", 8},  {"per_core_N", 8},  {"block_count(%cbc)", 2}};
  search::PointEvaluator evaluator(*module, device, fixedKnobs(), {}, &cache);
  for (auto _ : state) {
    search::Record r = evaluator.evaluate(point);
    if (!r.ok()) std::abort();
    benchmark::DoNotOptimize(r.predictedNs);
  }
}
BENCHMARK(BM_EvaluateFeasiblePoint2D)->Unit(benchmark::kMicrosecond);

/// The four block counts of that point's knobs as the search evaluates them: one group sharing
/// the extraction and the cost program (time per point = time / 4).
void BM_EvaluateFeasibleGroup2D(benchmark::State& state) {
  auto module = loadTemplate();
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  planner::kernel::PlanCache cache;
  std::vector<ir::Binding> points;
  for (int64_t count = 1; count <= 4; ++count)
    points.push_back({{"in0_block_w", 4},
                      {"out_block_h", 4},
                      {"out_block_w", 4},
                      {"per_core_M", 8},
                      {"per_core_N", 8},
                      {"block_count(%cbc)", count}});
  search::PointEvaluator evaluator(*module, device, fixedKnobs(), {}, &cache);
  for (auto _ : state) {
    std::vector<search::Record> records = evaluator.evaluateGroup(points);
    if (!records.back().ok()) std::abort();
    benchmark::DoNotOptimize(records.back().predictedNs);
  }
  state.counters["points/s"] =
      benchmark::Counter(double(state.iterations() * points.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EvaluateFeasibleGroup2D)->Unit(benchmark::kMicrosecond);

/// One point the ttl.requires reject (the common case in a template's space): per_core_M 64 puts
/// the 64 rows of tiles on one row of cores, and the 2-D multicast needs two.
void BM_EvaluateRequireRejected2D(benchmark::State& state) {
  auto module = loadTemplate();
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  ir::Binding point{{"in0_block_w", 4}, {"out_block_h", 4}, {"out_block_w", 4},
                    {"per_core_M", 64}, {"per_core_N", 8},  {"block_count(%cbc)", 2}};
  search::PointEvaluator evaluator(*module, device, fixedKnobs(), {}, nullptr);
  for (auto _ : state) {
    search::Record r = evaluator.evaluate(point);
    if (r.reason != "require") std::abort();
    benchmark::DoNotOptimize(r.detail);
  }
}
BENCHMARK(BM_EvaluateRequireRejected2D)->Unit(benchmark::kMicrosecond);

} // namespace
} // namespace ttlplan

BENCHMARK_MAIN();
