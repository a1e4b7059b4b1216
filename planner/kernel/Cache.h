#pragma once
// PlanCache's inside (planner/kernel/Plan.h): one table per solver, keyed by a signature string
// that serialises every field of the sub-problem and the limits it is solved under, so a hit
// returns exactly what a fresh solve would (solvers are deterministic under node limits; results
// under a time limit are never stored).
#include "planner/cbindex/Solve.h"
#include "planner/cores/Solve.h"
#include "planner/dst/Solve.h"
#include "planner/kernel/Plan.h"
#include "planner/l1/Solve.h"
#include "planner/multicast/Solve.h"

#include <atomic>
#include <string>
#include <tbb/concurrent_unordered_map.h>

namespace ttlplan::planner::kernel {

/// A thread-safe map from signature to solver result. TBB's concurrent map: look-ups and
/// insertions run in parallel without a lock, and a stored result is never changed or moved, so a
/// hit is copied while other threads insert (under a mutex, the look-up, the key's hashing and
/// the copy of the result were one thread at a time).
template <typename Result> class SolveTable {
public:
  /// The stored result for `key`, or the result of `solve()` (stored when `store`).
  template <typename Solve>
  Result get(const std::string& key, bool store, Solve&& solve, std::atomic<int64_t>& hits,
             std::atomic<int64_t>& misses, bool& hit) {
    if (auto it = table_.find(key); it != table_.end()) {
      hits.fetch_add(1, std::memory_order_relaxed);
      hit = true;
      return it->second;
    }
    misses.fetch_add(1, std::memory_order_relaxed);
    hit = false;
    Result result = solve();                // solves run in parallel
    if (store) table_.emplace(key, result); // a racing thread stored the same result: keep either
    return result;
  }

private:
  tbb::concurrent_unordered_map<std::string, Result> table_;
};

struct PlanCache::Impl {
  SolveTable<dst::Result> dst;
  SolveTable<cbindex::Result> cbIndex;
  SolveTable<l1::Result> l1;
  SolveTable<cores::Result> cores;
  SolveTable<multicast::Result> multicast;
  std::atomic<int64_t> hits{0};
  std::atomic<int64_t> misses{0};
};

/// Signatures: every field that the solver reads, and the limits.
std::string signature(const dst::Problem& problem, const SolveLimits& limits);
std::string signature(const cbindex::Problem& problem, const SolveLimits& limits);
std::string signature(const l1::Problem& problem, l1::L1Solver solver, const SolveLimits& limits);
std::string signature(const cores::Problem& problem, const SolveLimits& limits);
std::string signature(const multicast::Problem& problem, const SolveLimits& limits);

} // namespace ttlplan::planner::kernel
