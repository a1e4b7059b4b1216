// Parse and print speed on a generated kernel with about N ops (the issue asks for a 10,000-op
// file to parse "well under 50 ms"). Run: ./build/bench/parse_bench
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

using namespace ttlplan::ir;

namespace {

/// A valid eltwise kernel whose compute thread holds `blocks` unrolled add chains (5 ops each)
/// inside a work loop, plus the reader and writer. Roughly 5 * blocks + 40 ops.
std::string generateKernel(int blocks) {
  std::string body;
  for (int i = 0; i < blocks; ++i)
    body += fmt::format("        %x{0} = ttl.cb_wait %cba : !cb -> !blk\n"
                        "        %o{0} = ttl.cb_reserve %cbc : !cb -> !blk\n"
                        "        %s{0} = ttl.add %x{0}, %x{0} : !blk\n"
                        "        ttl.store %s{0}, %o{0} : !blk\n"
                        "        ttl.cb_push %cbc : !cb\n"
                        "        ttl.cb_pop %cba : !cb\n",
                        i);
  return fmt::format(R"(!tile = !ttcore.tile<32x32, bf16>
!blk = tensor<2x1x!tile>
!cb = !ttl.cb<[2, 1], !tile, 2>
#dram = #ttl.layout<dram, interleaved>
module {{
  ttl.kernel @big(%a: tensor<256x256xbf16, #dram>, %c: tensor<256x256xbf16, #dram>) attributes {{grid = [1, 1], work = [1]}} {{
    %cba = ttl.create_cb : !cb
    %cbc = ttl.create_cb : !cb
    ttl.compute_thread {{
      ttl.work_loop (%i) {{
{}      }}
    }}
  }}
}}
)",
                     body);
}

size_t countOps(Module& module) {
  size_t n = 0;
  module.op->walk([&](Operation*) { ++n; });
  return n;
}

void BM_Parse(benchmark::State& state) {
  std::string text = generateKernel(static_cast<int>(state.range(0)));
  size_t ops = 0;
  for (auto _ : state) {
    DiagnosticEngine diags;
    auto module = parseSource(text, "generated.ttl", diags);
    if (!module)
      state.SkipWithError("parse failed");
    else
      ops = countOps(*module);
    benchmark::DoNotOptimize(module);
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["ops/s"] = benchmark::Counter(static_cast<double>(ops) * state.iterations(),
                                               benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Parse)->Arg(200)->Arg(2000)->Unit(benchmark::kMillisecond);

void BM_PrintCustom(benchmark::State& state) {
  DiagnosticEngine diags;
  auto module = parseSource(generateKernel(static_cast<int>(state.range(0))), "g.ttl", diags);
  for (auto _ : state)
    benchmark::DoNotOptimize(print(*module));
}
BENCHMARK(BM_PrintCustom)->Arg(2000)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
