// L1 placement: exact vs cbc vs glpk vs the two baselines, on seeded random instances of growing
// size and on the 11 challenging google/minimalloc instances (data/minimalloc).
// Prints one Markdown table; docs/alloc.md records a run. Not a Google Benchmark (each solve is
// slow and the interesting numbers are quality, not nanoseconds).
//   ./build/bench/l1_compare_bench [--random-limit S] [--csv-limit S] [--instances N]
#include "ttlplan/planner/l1/Csv.h"
#include "ttlplan/planner/l1/RandomProblems.h"
#include "ttlplan/planner/l1/Solve.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <map>

using namespace ttlplan::planner;
using namespace ttlplan::planner::l1;

namespace {

struct Instance {
  std::string name;
  Problem problem;
};

struct Suite {
  std::string name;
  std::vector<Instance> instances;
  double limitSeconds;
};

struct Run {
  SolveStatus status;
  int64_t peak; ///< -1 without a plan
  double seconds;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<Suite> makeSuites(double randomLimit, double csvLimit, int instances) {
  std::vector<Suite> suites;
  for (int n : {10, 20, 40, 80}) {
    Suite suite{fmt::format("random n={}", n), {}, randomLimit};
    RandomProblemParams params;
    params.buffers = n;
    params.maxLifetime = std::max(2, n / 4);
    params.minSize = 64;
    params.maxSize = 65536;
    params.maxAlignment = 32;
    for (int k = 0; k < instances; ++k)
      suite.instances.push_back(
          {fmt::format("n{}s{}", n, k), randomProblem(uint64_t(n) * 1000 + uint64_t(k), params)});
    suites.push_back(std::move(suite));
  }
  Suite csv{"minimalloc A-K (cap 1 MiB)", {}, csvLimit};
  std::string dir = std::string(TTLPLAN_SOURCE_DIR) + "/data/minimalloc";
  for (char letter = 'A'; letter <= 'K'; ++letter) {
    std::string path = fmt::format("{}/{}.1048576.csv", dir, letter);
    auto file = readCsv(path);
    if (!file) {
      std::cerr << "skipping: " << file.error().message << "\n";
      continue;
    }
    file->problem.capacity = 1048576;
    csv.instances.push_back({std::string(1, letter), std::move(file->problem)});
  }
  suites.push_back(std::move(csv));
  return suites;
}

} // namespace

int main(int argc, char** argv) {
  double randomLimit = 2, csvLimit = 10;
  int instances = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--random-limit"))
      randomLimit = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--csv-limit"))
      csvLimit = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--instances"))
      instances = std::atoi(argv[i + 1]);
    else {
      std::cerr << "usage: l1_compare_bench [--random-limit S] [--csv-limit S] [--instances N]\n";
      return 2;
    }
  }
  std::vector<Suite> suites = makeSuites(randomLimit, csvLimit, instances);
  std::cout << fmt::format("random limit {} s, minimalloc limit {} s, {} random instances per "
                           "size; peak/best: mean and worst over the instances a solver placed\n\n",
                           randomLimit, csvLimit, instances);
  std::cout << "| instances | solver | placed | optimal | median s | worst s | peak/best mean | "
               "peak/best worst |\n|---|---|---|---|---|---|---|---|\n";
  for (const Suite& suite : suites) {
    SolveLimits limits;
    limits.timeLimitSeconds = suite.limitSeconds;
    std::map<L1Solver, std::vector<Run>> runs;
    std::vector<int64_t> best(suite.instances.size(), -1);
    for (L1Solver solver : allL1Solvers())
      for (size_t k = 0; k < suite.instances.size(); ++k) {
        const Problem& p = suite.instances[k].problem;
        Result r = solve(p, solver, limits);
        int64_t peak = -1;
        if (r.solution && validate(p, *r.solution) == Validity::Valid) peak = r.solution->peak;
        if (peak >= 0 && (best[k] < 0 || peak < best[k])) best[k] = peak;
        runs[solver].push_back({r.status, peak, r.stats.seconds});
        std::cerr << fmt::format("{} {} {}: {} peak {} in {:.2f} s{}\n", suite.name,
                                 suite.instances[k].name, toString(solver), toString(r.status),
                                 peak, r.stats.seconds,
                                 r.status == SolveStatus::Error ? " (" + r.message + ")" : "");
      }
    for (L1Solver solver : allL1Solvers()) {
      const std::vector<Run>& rs = runs[solver];
      int placed = 0, optimal = 0;
      std::vector<double> times;
      double ratioSum = 0, ratioWorst = 0;
      for (size_t k = 0; k < rs.size(); ++k) {
        times.push_back(rs[k].seconds);
        if (rs[k].status == SolveStatus::Optimal) ++optimal;
        if (rs[k].peak < 0) continue;
        ++placed;
        double ratio = double(rs[k].peak) / double(best[k]);
        ratioSum += ratio;
        ratioWorst = std::max(ratioWorst, ratio);
      }
      std::cout << fmt::format("| {} | {} | {}/{} | {} | {:.3f} | {:.3f} | {} | {} |\n", suite.name,
                               toString(solver), placed, rs.size(), optimal, median(times),
                               times.empty() ? 0.0 : *std::max_element(times.begin(), times.end()),
                               placed ? fmt::format("{:.4f}", ratioSum / placed) : "-",
                               placed ? fmt::format("{:.4f}", ratioWorst) : "-");
    }
  }
  return 0;
}
