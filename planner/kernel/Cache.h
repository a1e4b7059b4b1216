#pragma once
// PlanCache's inside (planner/kernel/Plan.h): one table per solver, keyed by a signature string
// that serialises every field of the sub-problem and the limits it is solved under, so a hit
// returns exactly what a fresh solve would (solvers are deterministic under node limits; results
// under a time limit are never stored).
#include "ttlplan/planner/cbindex/Solve.h"
#include "ttlplan/planner/cores/Solve.h"
#include "ttlplan/planner/dst/Solve.h"
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/planner/l1/Solve.h"
#include "ttlplan/planner/multicast/Solve.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ttlplan::planner::kernel {

/// A thread-safe map from signature to solver result. The key is hashed before the lock, the
/// tables are split in shards by hash (threads rarely wait for one another), and a stored result
/// is shared: under the lock only the bucket look-up and a reference count change, and the
/// result is copied after it.
template <typename Result> class SolveTable {
public:
  /// The stored result for `key`, or the result of `solve()` (stored when `store`).
  template <typename Solve>
  Result get(const std::string& key, bool store, Solve&& solve, std::atomic<int64_t>& hits,
             std::atomic<int64_t>& misses, bool& hit) {
    const size_t hash = std::hash<std::string>{}(key);
    Shard& shard = shards_[hash % kShards];
    std::shared_ptr<const Result> found;
    {
      std::lock_guard lock(shard.mutex);
      if (auto it = shard.table.find(Key{hash, key}); it != shard.table.end()) found = it->second;
    }
    if (found) {
      hits.fetch_add(1, std::memory_order_relaxed);
      hit = true;
      return *found;
    }
    misses.fetch_add(1, std::memory_order_relaxed);
    hit = false;
    Result result = solve(); // outside the lock: solves run in parallel
    if (store) {
      auto stored = std::make_shared<const Result>(result);
      std::lock_guard lock(shard.mutex);
      shard.table.emplace(Key{hash, key}, std::move(stored)); // a racing thread's is kept
    }
    return result;
  }

private:
  struct Key {
    size_t hash;
    std::string text;
    bool operator==(const Key& other) const { return hash == other.hash && text == other.text; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return k.hash; }
  };
  struct alignas(64) Shard {
    std::mutex mutex;
    std::unordered_map<Key, std::shared_ptr<const Result>, KeyHash> table;
  };
  static constexpr size_t kShards = 16;
  std::array<Shard, kShards> shards_;
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
