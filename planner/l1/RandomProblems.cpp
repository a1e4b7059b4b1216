#include "ttlplan/planner/l1/RandomProblems.h"

#include <algorithm>
#include <string>

namespace ttlplan::planner::l1 {

namespace {

/// splitmix64: small, fast, and fully specified.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi] (the tiny modulo bias is irrelevant here).
  int64_t uniform(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    return lo + int64_t(next() % uint64_t(hi - lo + 1));
  }

private:
  uint64_t state_;
};

} // namespace

Problem randomProblem(uint64_t seed, const RandomProblemParams& params) {
  Rng rng(seed);
  int count = std::max(0, params.buffers);
  int64_t horizon = params.horizon > 0 ? params.horizon : std::max<int64_t>(2, 2 * count);
  int64_t maxLifetime =
      params.maxLifetime > 0 ? params.maxLifetime : std::max<int64_t>(1, horizon / 2);
  int alignmentSteps = 0;
  while ((int64_t(1) << (alignmentSteps + 1)) <= std::max<int64_t>(1, params.maxAlignment))
    ++alignmentSteps;
  Problem problem;
  problem.capacity = params.capacity;
  for (int i = 0; i < count; ++i) {
    Buffer b;
    b.id = std::string("b").append(std::to_string(i));
    b.lower = rng.uniform(0, horizon - 1);
    b.upper = b.lower + rng.uniform(1, maxLifetime);
    b.size =
        rng.uniform(std::max<int64_t>(1, params.minSize), std::max<int64_t>(1, params.maxSize));
    b.alignment = int64_t(1) << rng.uniform(0, alignmentSteps);
    problem.buffers.push_back(std::move(b));
  }
  return problem;
}

} // namespace ttlplan::planner::l1
