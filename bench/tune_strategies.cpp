// bench/tune_strategies: the search strategies compared on the matmul templates (issue 10,
// "docs/tuning.md compares the strategies on the templates"). For each case it finds the true
// optimum of the space by an exhaustive search, then runs random, anneal and evolve (and the first
// N ids of the exhaustive order, for reference) at growing --budget-evals over several seeds and
// prints, per strategy and budget, how far the best point found is from the optimum (median and
// worst over the seeds, in % of predicted time) and on how many seeds it is the optimum. The
// numbers are predictions of the cost model: this measures the search, not the model.
//
// Usage: tune_strategies [--seeds N] [--threads T] [--only TEXT]
//   --only  run only the cases whose name contains TEXT
// Every figure is a function of the space, the seed and the budget (docs/tuning.md,
// "Determinism"), so the output is the same on every machine except the timing lines.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/search/Tuner.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <vector>

using namespace ttlplan;

namespace {

/// One space to search: a template with some knobs bound.
struct Case {
  std::string name;     ///< shown in the output
  std::string file;     ///< under examples/
  ir::Binding bound;    ///< the --bind knobs
  std::string describe; ///< what is searched, for the reader
};

std::vector<Case> cases() {
  auto problem = [](int64_t m, int64_t k, int64_t n) {
    return ir::Binding{{"M", m},
                       {"K", k},
                       {"N", n},
                       {"DTYPE", ir::KnobValue::symbol("bf16")},
                       {"FIDELITY", ir::KnobValue::symbol("HiFi2")},
                       {"FP32_DEST_ACC", 0}};
  };
  ir::Binding fixedSubblock = problem(2048, 2048, 2048);
  fixedSubblock.emplace("out_subblock_h", 1);
  fixedSubblock.emplace("out_subblock_w", 1);
  return {
      {"2d-2048-subblock-bound", "matmul_2d_template.ttl", fixedSubblock,
       "2-D template, M=K=N=2048 bf16 HiFi2, sub-block bound to 1x1 (tune_bench's space)"},
      {"2d-1024-all-config-knobs", "matmul_2d_template.ttl", problem(1024, 1024, 1024),
       "2-D template, M=K=N=1024 bf16 HiFi2, every config knob free (docs/tuning.md's example)"},
      {"1d-256x1024x2048", "matmul_1d_template.ttl", problem(256, 1024, 2048),
       "1-D template, M=256 K=1024 N=2048 bf16 HiFi2, every config knob free"},
  };
}

std::unique_ptr<ir::Module> load(const std::string& file) {
  ir::DiagnosticEngine diags;
  auto module = ir::parseFile(std::string(TTLPLAN_SOURCE_DIR) + "/examples/" + file, diags);
  if (!module || !ir::verify(*module, diags)) {
    fmt::print(stderr, "tune_strategies: cannot load examples/{}\n", file);
    std::exit(1);
  }
  return module;
}

/// The best predicted time of one run (nullopt when nothing fit).
std::optional<double> bestOf(const ir::Module& module, const ir::Device& device,
                             const ir::Binding& bound, search::StrategyKind kind, uint64_t budget,
                             uint64_t seed, int threads, uint64_t* evaluated = nullptr) {
  search::TuneOptions options;
  options.strategy.kind = kind;
  options.strategy.budgetEvals = budget;
  options.strategy.seed = seed;
  options.threads = threads;
  options.top = 1;
  Expected<search::TuneResult> r = search::tune(module, device, bound, options);
  if (!r) {
    fmt::print(stderr, "tune_strategies: {}\n", r.error().message);
    std::exit(1);
  }
  if (evaluated) *evaluated = r->evaluated;
  if (r->top.empty()) return std::nullopt;
  return r->top.front().predictedNs;
}

/// "+1.2 %" (or "none" when a run found no feasible point).
std::string gapText(std::optional<double> gap) {
  if (!gap) return "none";
  return *gap < 5e-7 ? "0" : fmt::format("+{:.1f} %", *gap * 100);
}

/// One table cell: `kind` at `budget` on seeds 1..runs, as "median / worst (hits/runs)" of the
/// best point's distance from `optimum` ("gap" alone for one run).
std::string cellText(const ir::Module& module, const ir::Device& device, const ir::Binding& bound,
                     search::StrategyKind kind, uint64_t budget, int runs, int threads,
                     double optimum) {
  std::vector<std::optional<double>> gaps;
  int hits = 0;
  for (int seed = 1; seed <= runs; ++seed) {
    std::optional<double> best =
        bestOf(module, device, bound, kind, budget, uint64_t(seed), threads);
    std::optional<double> gap;
    if (best) gap = *best / optimum - 1;
    if (gap && *gap < 5e-7) ++hits;
    gaps.push_back(gap);
  }
  // nullopt (nothing fit) sorts last: worse than any gap.
  std::sort(gaps.begin(), gaps.end(),
            [](const auto& a, const auto& b) { return a && (!b || *a < *b); });
  if (runs == 1) return gapText(gaps.front());
  return fmt::format("{} / {} ({}/{})", gapText(gaps[gaps.size() / 2]), gapText(gaps.back()), hits,
                     runs);
}

void runCase(const Case& c, int seeds, int threads) {
  using Clock = std::chrono::steady_clock;
  std::unique_ptr<ir::Module> module = load(c.file);
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  Clock::time_point start = Clock::now();
  uint64_t size = 0;
  std::optional<double> optimum =
      bestOf(*module, device, c.bound, search::StrategyKind::Exhaustive, 0, 1, threads, &size);
  double exhaustiveSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  fmt::print("\n### {}\n\n{}: {} points; exhaustive optimum {:.2f} us ({:.1f} s)\n\n", c.name,
             c.describe, size, optimum.value_or(0) / 1000, exhaustiveSeconds);
  if (!optimum) return;
  const std::vector<uint64_t> budgets{100, 300, 1000, 3000, 10000};
  fmt::print("| strategy |");
  for (uint64_t b : budgets)
    fmt::print(" {} evals |", b);
  fmt::print("\n|---|");
  for (size_t i = 0; i < budgets.size(); ++i)
    fmt::print("---|");
  fmt::print("\n");
  using K = search::StrategyKind;
  for (K kind : {K::Exhaustive, K::Random, K::Anneal, K::Evolve}) {
    fmt::print("| {} |", kind == K::Exhaustive ? "first ids (exhaustive order)" : toString(kind));
    for (uint64_t budget : budgets) {
      fmt::print(" {} |", cellText(*module, device, c.bound, kind, budget,
                                   kind == K::Exhaustive ? 1 : seeds, threads, *optimum));
    }
    fmt::print("\n");
  }
  fmt::print("\n(timing: case took {:.1f} s)\n",
             std::chrono::duration<double>(Clock::now() - start).count());
}

} // namespace

int main(int argc, char** argv) {
  int seeds = 5, threads = 2;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        fmt::print(stderr, "tune_strategies: {} needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--seeds"))
      seeds = std::max(1, std::atoi(value()));
    else if (!std::strcmp(argv[i], "--threads"))
      threads = std::max(1, std::atoi(value()));
    else if (!std::strcmp(argv[i], "--only"))
      only = value();
    else {
      fmt::print(stderr, "usage: tune_strategies [--seeds N] [--threads T] [--only TEXT]\n");
      return 2;
    }
  }
  fmt::print("Cells: best predicted time found, relative to the exhaustive optimum: median / worst "
             "over seeds 1..{} (seeds that found the optimum). Budgets count every evaluated "
             "point, rejected ones included.\n",
             seeds);
  for (const Case& c : cases())
    if (only.empty() || c.name.find(only) != std::string::npos) runCase(c, seeds, threads);
  return 0;
}
