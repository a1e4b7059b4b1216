// Speed of one cost evaluation (docs/cost-model.md, "Speed"): the 2-D multicast matmul at
// M = K = N = 8192 on Wormhole's 8x8 grid with ttnn's default config, priced from its config
// (program construction + prediction) and predicted from a prebuilt Program. The target is
// <= 50 us per evaluation.
#include "search/baselines/TtnnMatmulConfig.h"
#include "search/cost/MatmulProgram.h"
#include "search/cost/Model.h"

#include <benchmark/benchmark.h>

using namespace ttlplan;
using namespace ttlplan::search;

namespace {

cost::MatmulRun run8192(const ir::Device& device) {
  cost::MatmulRun run;
  run.problem.m = run.problem.k = run.problem.n = 8192;
  run.problem.gridRows = uint32_t(device.grid.compute.rows);
  run.problem.gridCols = uint32_t(device.grid.compute.columns);
  run.config = *baselines::ttnnDefaultMatmulConfig(run.problem);
  run.fidelity = "HiFi4";
  return run;
}

void BM_CostEvaluation2D8192(benchmark::State& state) {
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  cost::MatmulRun run = run8192(device);
  for (auto _ : state) {
    Expected<cost::Program> program = cost::matmulProgram(run, device);
    Expected<cost::Prediction> p = cost::predict(*program, device);
    benchmark::DoNotOptimize(p->cycles);
  }
}
BENCHMARK(BM_CostEvaluation2D8192)->Unit(benchmark::kMicrosecond);

void BM_Predict2D8192(benchmark::State& state) {
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  Expected<cost::Program> program = cost::matmulProgram(run8192(device), device);
  int64_t steps = 0;
  for (auto _ : state) {
    Expected<cost::Prediction> p = cost::predict(*program, device);
    steps = p->simulatedSteps;
    benchmark::DoNotOptimize(p->cycles);
  }
  state.counters["simulated_steps"] = double(steps);
}
BENCHMARK(BM_Predict2D8192)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
