// Do the planner's other sub-problem solvers stop at their time limit (issue 14)? Wall time of
// one solve per solver and limit on instances that take far longer without one:
//   - cb-index: the exact colouring of a random conflict graph (120 CBs, edge probability 1/2);
//   - multicast: exact rectangle covers of 24 random destination sets (half the cores of a 32 x 32
//     grid each) plus the semaphore ids: the limit holds for the whole solve, not per set;
//   - cores: the makespan search over 2 x 10^7 work items of random cost;
//   - dst: sub-blocks of a block of 2^30 x 2^30 tiles, which needs no limit (no search: at most
//     DST-capacity^2 candidates).
// Target: wall <= 1.1 x limit + 0.2 s. Prints a table; bench/time_limits.sh runs it after the L1
// back ends. A benchmark, not a test: machines are noisy; compare the columns of one run.
//
//   build/bench/time_limits_solvers [LIMIT_SECONDS...]   (default 0.1 1)
#include "ttlplan/planner/cbindex/Solve.h"
#include "ttlplan/planner/cores/Solve.h"
#include "ttlplan/planner/dst/Solve.h"
#include "ttlplan/planner/multicast/Solve.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace ttlplan::planner;
using Clock = std::chrono::steady_clock;

cbindex::Problem randomGraph() {
  std::mt19937 rng(14);
  cbindex::Problem p;
  p.source = cbindex::ConflictSource::List;
  p.limit = 32;
  const size_t n = 120;
  for (size_t i = 0; i < n; ++i)
    p.cbs.push_back({"cb" + std::to_string(i), 0, 1, -1});
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (rng() % 2) p.conflicts.push_back({i, j});
  return p;
}

multicast::Problem randomNets() {
  std::mt19937 rng(14);
  multicast::Problem p;
  p.rows = p.cols = 32;
  p.noc = multicast::NocMapping::translated(p.rows, p.cols);
  for (int n = 0; n < 24; ++n) {
    multicast::PipeNet net;
    net.id = "net" + std::to_string(n);
    net.location = "bench:" + std::to_string(n);
    net.sender = {n % p.cols, n / p.cols};
    for (int y = 0; y < p.rows; ++y)
      for (int x = 0; x < p.cols; ++x)
        if (rng() % 2) net.dests.push_back({x, y});
    net.dstAddress = 4096 * (n + 1);
    net.lower = n; // never live together: semaphore ids may be shared
    net.upper = n + 1;
    net.source = n;
    p.nets.push_back(std::move(net));
  }
  return p;
}

cores::Problem randomCosts() {
  std::mt19937 rng(14);
  cores::Problem p;
  p.items = 20'000'000;
  p.grid = {8, 8};
  p.costs.resize(size_t(p.items));
  for (int64_t& c : p.costs)
    c = 1 + rng() % 1000;
  return p;
}

template <typename F> double secondsOf(F&& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void row(const char* solver, const char* instance, double limit, double wall, const char* status) {
  const double target = 1.1 * limit + 0.2;
  std::printf("%-10s %-44s %7.2f %8.2f %8.2f %-4s %s\n", solver, instance, limit, wall, target,
              wall <= target ? "yes" : "NO", status);
}

} // namespace

int main(int argc, char** argv) {
  std::vector<double> limits;
  for (int i = 1; i < argc; ++i)
    limits.push_back(std::atof(argv[i]));
  if (limits.empty()) limits = {0.1, 1};
  const cbindex::Problem graph = randomGraph();
  const multicast::Problem nets = randomNets();
  const cores::Problem work = randomCosts();
  std::printf("%-10s %-44s %7s %8s %8s %-4s %s\n", "solver", "instance", "limit_s", "wall_s",
              "target", "ok", "status");
  for (double limit : limits) {
    SolveLimits l;
    l.timeLimitSeconds = limit;
    cbindex::Result c;
    double wall = secondsOf([&] { c = cbindex::solveExact(graph, {}, l); });
    row("cb-index", "120 CBs, random conflicts (p = 1/2)", limit, wall,
        std::string(toString(c.status)).c_str());

    multicast::Options o;
    o.limits = l;
    multicast::Result m;
    wall = secondsOf([&] { m = multicast::solve(nets, o); });
    row("multicast", "24 random half-grid nets on 32 x 32", limit, wall,
        std::string(toString(m.status)).c_str());

    cores::Result k;
    wall = secondsOf([&] { k = cores::solve(work, l); });
    row("cores", "2 x 10^7 items of random cost, 8 x 8", limit, wall,
        std::string(toString(k.status)).c_str());

    std::optional<dst::Subblock> s;
    wall =
        secondsOf([&] { s = dst::chooseSubblock(int64_t{1} << 30, int64_t{1} << 30, 16, true); });
    row("dst", "sub-block of a 2^30 x 2^30-tile block", limit, wall, s ? "chosen" : "none");
  }
  return 0;
}
