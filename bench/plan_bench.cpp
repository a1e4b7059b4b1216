// Solve time of `ttlplan plan` per example kernel (issue item 9): parse + verify once, then time
// planModule (binding, extraction, every sub-problem solve) on wormhole_b0 with the default
// options. Run: build/bench/plan_bench [--benchmark_filter=matmul].
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/KernelPlanner.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <filesystem>
#include <memory>

namespace {

using namespace ttlplan;

std::filesystem::path examplesDir() {
  return std::filesystem::path(__FILE__).parent_path().parent_path() / "examples";
}

void planExample(benchmark::State& state, const std::string& path, lower::PlanOptions options) {
  ir::DiagnosticEngine diags;
  std::unique_ptr<ir::Module> module = ir::parseFile(path, diags);
  if (!module || !ir::verify(*module, diags)) {
    state.SkipWithError("example does not parse or verify");
    return;
  }
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  for (auto _ : state) {
    Expected<lower::ModulePlan> plan = lower::planModule(*module, device, options);
    if (!plan) {
      state.SkipWithError(plan.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(plan->kernels.data());
  }
}

int registerAll() {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(examplesDir(), ec))
    if (e.path().extension() == ".ttl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    lower::PlanOptions exact;
    benchmark::RegisterBenchmark(("plan/" + f.stem().string()).c_str(), planExample, f.string(),
                                 exact)
        ->Unit(benchmark::kMicrosecond);
    lower::PlanOptions cbc;
    cbc.solver = planner::l1::L1Solver::Cbc;
    benchmark::RegisterBenchmark(("plan_cbc/" + f.stem().string()).c_str(), planExample, f.string(),
                                 cbc)
        ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}

const int registered = registerAll();

} // namespace

BENCHMARK_MAIN();
