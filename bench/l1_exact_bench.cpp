// The exact L1 placement solver on the challenging minimalloc instances (A..K.1048576.csv):
// prints one table row per instance (buffers, solved, peak, nodes, seconds) under a time limit.
//
//   build-exact/bench/l1_exact_bench [DIR] [SECONDS] [INSTANCES]
//
// DIR defaults to data/minimalloc of the source tree, SECONDS to 60,
// INSTANCES (letters, e.g. "HI") to all of A..K.
// Each placement is re-checked (offsets, alignment, capacity, overlap) by code here.
#include "ttlplan/planner/l1/ExactSolver.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace ttlplan::planner;

/// A small reader for `id,lower,upper,size[,alignment]` until the shared CSV reader lands.
bool readCsv(const std::string& path, l1::Problem& problem) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  if (!std::getline(in, line)) return false;
  const bool hasAlignment = line.find("alignment") != std::string::npos;
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    std::stringstream row(line);
    std::string cell;
    std::vector<std::string> cells;
    while (std::getline(row, cell, ','))
      cells.push_back(cell);
    if (cells.size() < (hasAlignment ? 5u : 4u)) return false;
    l1::Buffer b;
    b.id = cells[0];
    b.lower = std::stoll(cells[1]);
    b.upper = std::stoll(cells[2]);
    b.size = std::stoll(cells[3]);
    if (hasAlignment) b.alignment = std::stoll(cells[4]);
    problem.buffers.push_back(b);
  }
  return true;
}

bool placementOk(const l1::Problem& p, const l1::Solution& s) {
  if (s.offsets.size() != p.buffers.size()) return false;
  int64_t peak = 0;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const l1::Buffer& a = p.buffers[i];
    const int64_t o = s.offsets[i];
    if (o < 0 || o % a.alignment != 0) return false;
    if (p.capacity > 0 && o + a.size > p.capacity) return false;
    peak = std::max(peak, o + a.size);
    for (size_t j = i + 1; j < p.buffers.size(); ++j) {
      const l1::Buffer& b = p.buffers[j];
      const bool liveTogether = a.lower < b.upper && b.lower < a.upper;
      const bool shareBytes = o < s.offsets[j] + b.size && s.offsets[j] < o + a.size;
      if (liveTogether && shareBytes) return false;
    }
  }
  return peak == s.peak;
}

} // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : std::string(TTLPLAN_SOURCE_DIR) + "/data/minimalloc";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 60.0;
  const std::string names = argc > 3 ? argv[3] : "ABCDEFGHIJK";
  std::printf("| instance | buffers | solved | peak | nodes | seconds |\n");
  std::printf("|---|---:|---|---:|---:|---:|\n");
  int solved = 0;
  for (char name : names) {
    l1::Problem problem;
    const std::string path = dir + "/" + name + ".1048576.csv";
    if (!readCsv(path, problem)) {
      std::printf("| %c | cannot read %s |\n", name, path.c_str());
      return 1;
    }
    problem.capacity = 1048576;
    const l1::Result r = l1::solveExact(problem, {}, SolveLimits{seconds, 0});
    const bool ok =
        r.status == SolveStatus::Optimal && r.solution && placementOk(problem, *r.solution);
    solved += ok;
    std::printf("| %c | %zu | %s | %lld | %lld | %.3f |\n", name, problem.buffers.size(),
                ok ? "yes" : "no", r.solution ? static_cast<long long>(r.solution->peak) : -1LL,
                static_cast<long long>(r.stats.nodes), r.stats.seconds);
    std::fflush(stdout);
  }
  std::printf("\nsolved %d of %zu (limit %.0f s each)\n", solved, names.size(), seconds);
  return solved == static_cast<int>(names.size()) ? 0 : 1;
}
