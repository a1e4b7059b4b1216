// Speed of one cost evaluation (docs/cost-model.md, "Speed"): the 2-D multicast matmul at
// M = K = N = 8192 on Wormhole's 8x8 grid with ttnn's default config, priced from its config
// (program construction + prediction) and predicted from a prebuilt Program. The target is
// <= 50 us per evaluation.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"
#include "ttlplan/search/cost/Extract.h"
#include "ttlplan/search/cost/MatmulProgram.h"
#include "ttlplan/search/cost/Model.h"

#include <benchmark/benchmark.h>
#include <cctype>
#include <memory>

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

// Each iteration predicts `program`; the counter reports its simulated steps.
void predictEachIteration(benchmark::State& state, const cost::Program& program,
                          const ir::Device& device) {
  int64_t steps = 0;
  for (auto _ : state) {
    Expected<cost::Prediction> p = cost::predict(program, device);
    steps = p->simulatedSteps;
    benchmark::DoNotOptimize(p->cycles);
  }
  state.counters["simulated_steps"] = double(steps);
}

void BM_Predict2D8192(benchmark::State& state) {
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  Expected<cost::Program> program = cost::matmulProgram(run8192(device), device);
  predictEachIteration(state, *program, device);
}
BENCHMARK(BM_Predict2D8192)->Unit(benchmark::kMicrosecond);

// The template path: examples/matmul_2d_template.ttl bound to the same shape and ttnn's default
// knobs, parsed once; each iteration plans it (every sub-problem), extracts the Program and
// predicts. Extraction + prediction alone is the second benchmark.
const char* const kBinding[][2] = {
    {"M", "8192"},          {"K", "8192"},          {"N", "8192"},        {"DTYPE", "bf16"},
    {"FIDELITY", "HiFi4"},  {"FP32_DEST_ACC", "0"}, {"per_core_M", "32"}, {"per_core_N", "32"},
    {"in0_block_w", "4"},   {"out_block_h", "8"},   {"out_block_w", "8"}, {"out_subblock_h", "2"},
    {"out_subblock_w", "4"}};

struct Template {
  std::unique_ptr<ir::Module> module;
  lower::PlanOptions options;
};

Template loadTemplate() {
  Template t;
  ir::DiagnosticEngine diags;
  t.module =
      ir::parseFile(std::string(TTLPLAN_SOURCE_DIR) + "/examples/matmul_2d_template.ttl", diags);
  if (!t.module || !ir::verify(*t.module, diags)) std::abort();
  ir::Binding binding;
  for (const auto& [name, value] : kBinding) {
    std::string v = value;
    binding[name] =
        std::isdigit(v[0]) ? ir::KnobValue(int64_t(std::stoll(v))) : ir::KnobValue::symbol(v);
  }
  t.options.binding = binding;
  return t;
}

void BM_TemplatePlanAndCost2D8192(benchmark::State& state) {
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  Template t = loadTemplate();
  for (auto _ : state) {
    Expected<lower::ModulePlan> plan = lower::planModule(*t.module, device, t.options);
    Expected<cost::Program> program =
        cost::extractProgram(t.module->topLevel(ir::KernelOp::kName).at(0), plan->kernels[0],
                             plan->binding.binding, device);
    Expected<cost::Prediction> p = cost::predict(*program, device);
    benchmark::DoNotOptimize(p->cycles);
  }
}
BENCHMARK(BM_TemplatePlanAndCost2D8192)->Unit(benchmark::kMicrosecond);

void BM_TemplateExtractAndCost2D8192(benchmark::State& state) {
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  Template t = loadTemplate();
  Expected<lower::ModulePlan> plan = lower::planModule(*t.module, device, t.options);
  for (auto _ : state) {
    Expected<cost::Program> program =
        cost::extractProgram(t.module->topLevel(ir::KernelOp::kName).at(0), plan->kernels[0],
                             plan->binding.binding, device);
    Expected<cost::Prediction> p = cost::predict(*program, device);
    benchmark::DoNotOptimize(p->cycles);
  }
}
BENCHMARK(BM_TemplateExtractAndCost2D8192)->Unit(benchmark::kMicrosecond);

/// As the tuner does it: the extractor prepared once per kernel (cost::ProgramExtractor), then
/// per evaluation the Program extracted from the plan and predicted.
void BM_TemplatePreparedExtractAndCost2D8192(benchmark::State& state) {
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  Template t = loadTemplate();
  Expected<lower::ModulePlan> plan = lower::planModule(*t.module, device, t.options);
  cost::ProgramExtractor extractor(t.module->topLevel(ir::KernelOp::kName).at(0));
  for (auto _ : state) {
    Expected<cost::Program> program =
        extractor.extract(plan->kernels[0], plan->binding.binding, device);
    Expected<cost::Prediction> p = cost::predict(*program, device);
    benchmark::DoNotOptimize(p->cycles);
  }
}
BENCHMARK(BM_TemplatePreparedExtractAndCost2D8192)->Unit(benchmark::kMicrosecond);

/// What the tuner pays per block count of one knob binding: the template's Program, extracted
/// once, predicted (docs/tuning.md).
void BM_TemplatePredict2D8192(benchmark::State& state) {
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  Template t = loadTemplate();
  Expected<lower::ModulePlan> plan = lower::planModule(*t.module, device, t.options);
  Expected<cost::Program> program =
      cost::extractProgram(t.module->topLevel(ir::KernelOp::kName).at(0), plan->kernels[0],
                           plan->binding.binding, device);
  predictEachIteration(state, *program, device);
}
BENCHMARK(BM_TemplatePredict2D8192)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
