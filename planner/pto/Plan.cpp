// The pto planner (Plan.h): slot counts, then one placement per memory and one colouring per pipe
// pair. Every slot of a kernel is live for the whole kernel (the work loop uses each CB on every
// iteration), so a memory's need is the sum of its slots and a pipe pair's the count of its flags;
// the counts are chosen against those sums and the solvers then place and number exactly.
#include "ttlplan/planner/pto/Plan.h"

#include "ttlplan/planner/colouring/Colouring.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace ttlplan::planner::pto {

std::string_view toString(Resource resource) {
  switch (resource) {
  case Resource::Memory:
    return "memory";
  case Resource::Events:
    return "events";
  case Resource::Limit:
    return "limit";
  case Resource::Invalid:
    return "invalid";
  }
  return "?";
}

namespace {

using PipePair = std::pair<Pipe, Pipe>;

bool crossesPipes(const BufferSpec& b) {
  return b.producer != b.consumer;
}

/// Bytes the slots of `memory` need under `counts`: every slot rounded up to the alignment but
/// the one with the most padding, which goes last.
int64_t bytesNeeded(const Problem& problem, Memory memory, const std::vector<int64_t>& counts) {
  const int64_t align = problem.memories[size_t(memory)].alignment;
  int64_t sum = 0, padding = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferSpec& b = problem.buffers[i];
    if (b.memory != memory) continue;
    sum += alignedBytes(b.slotBytes, align) * counts[i];
    padding = std::max(padding, alignedBytes(b.slotBytes, align) - b.slotBytes);
  }
  return sum - padding;
}

/// True when `b`'s slots put a flag on the ordered pair: its ready flags go producer -> consumer,
/// its free flags consumer -> producer.
bool onPair(const BufferSpec& b, PipePair pair) {
  return crossesPipes(b) && ((b.producer == pair.first && b.consumer == pair.second) ||
                             (b.consumer == pair.first && b.producer == pair.second));
}

/// Flags on the ordered pair under `counts`: one per slot of each buffer on it.
int64_t flagsOn(const Problem& problem, PipePair pair, const std::vector<int64_t>& counts) {
  int64_t n = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    if (onPair(problem.buffers[i], pair)) n += counts[i];
  return n;
}

std::vector<PipePair> pairsUsed(const Problem& problem) {
  std::vector<PipePair> pairs;
  for (const BufferSpec& b : problem.buffers)
    if (crossesPipes(b)) {
      pairs.emplace_back(b.producer, b.consumer);
      pairs.emplace_back(b.consumer, b.producer);
    }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

std::string pairName(PipePair pair) {
  return fmt::format("{}->{}", toString(pair.first), toString(pair.second));
}

class Planner {
public:
  Planner(const Problem& problem, const PlanOptions& options)
      : problem_(problem), options_(options) {}
  PlanResult run();

private:
  /// Shrinks the largest `?` buffer that `involved` accepts; false when none can shrink.
  template <typename Involved> bool shrink(Involved involved, int64_t weightPerSlot);
  std::optional<Rejection> chooseCounts();
  Rejection memoryRejection(Memory memory, int64_t needed) const;
  Rejection eventRejection(PipePair pair, int64_t needed) const;
  std::optional<Rejection> place();
  void numberEvents();
  void noteDepths();
  std::string describe(size_t buffer) const;

  const Problem& problem_;
  const PlanOptions& options_;
  std::vector<int64_t> counts_;
  Plan plan_;
};

std::string Planner::describe(size_t i) const {
  const BufferSpec& b = problem_.buffers[i];
  return fmt::format("{} ({}, {} slot{} of {} B)", b.name, b.location, counts_[i],
                     counts_[i] == 1 ? "" : "s", l1::withThousands(b.slotBytes));
}

template <typename Involved> bool Planner::shrink(Involved involved, int64_t bytesWeight) {
  std::optional<size_t> best;
  auto weight = [&](size_t i) {
    return bytesWeight ? counts_[i] * problem_.buffers[i].slotBytes : counts_[i];
  };
  for (size_t i = 0; i < problem_.buffers.size(); ++i) {
    const BufferSpec& b = problem_.buffers[i];
    if (b.slots || counts_[i] <= 1 || !involved(b)) continue;
    if (!best || weight(i) > weight(*best)) best = i;
  }
  if (!best) return false;
  --counts_[*best];
  return true;
}

std::optional<Rejection> Planner::chooseCounts() {
  counts_.clear();
  for (const BufferSpec& b : problem_.buffers)
    counts_.push_back(b.slots ? *b.slots : b.maxSlots);
  const std::vector<PipePair> pairs = pairsUsed(problem_);
  for (bool changed = true; changed;) {
    changed = false;
    for (int m = 0; m < kMemoryCount && !changed; ++m) {
      const Memory memory = Memory(m);
      const int64_t needed = bytesNeeded(problem_, memory, counts_);
      if (needed <= problem_.memories[size_t(m)].capacity) continue;
      if (!shrink([&](const BufferSpec& b) { return b.memory == memory; }, 1))
        return memoryRejection(memory, needed);
      changed = true;
    }
    for (size_t p = 0; p < pairs.size() && !changed; ++p) {
      const int64_t needed = flagsOn(problem_, pairs[p], counts_);
      if (needed <= problem_.eventIds) continue;
      if (!shrink([&](const BufferSpec& b) { return onPair(b, pairs[p]); }, 0))
        return eventRejection(pairs[p], needed);
      changed = true;
    }
  }
  return std::nullopt;
}

Rejection Planner::memoryRejection(Memory memory, int64_t needed) const {
  Rejection out;
  out.resource = Resource::Memory;
  out.memory = memory;
  out.needed = needed;
  out.available = problem_.memories[size_t(memory)].capacity;
  const int64_t align = problem_.memories[size_t(memory)].alignment;
  for (size_t i = 0; i < problem_.buffers.size(); ++i)
    if (problem_.buffers[i].memory == memory) out.buffers.push_back(i);
  auto bytes = [&](size_t i) {
    return alignedBytes(problem_.buffers[i].slotBytes, align) * counts_[i];
  };
  std::stable_sort(out.buffers.begin(), out.buffers.end(),
                   [&](size_t a, size_t b) { return bytes(a) > bytes(b); });
  // The cheapest fix: the fewest slots taken from one buffer that close the gap.
  const int64_t short_ = needed - out.available;
  std::optional<std::pair<int64_t, size_t>> best; // (slots removed, buffer)
  for (size_t i : out.buffers) {
    const int64_t slot = alignedBytes(problem_.buffers[i].slotBytes, align);
    const int64_t k = (short_ + slot - 1) / slot;
    if (k < counts_[i] && (!best || k < best->first)) best = {k, i};
  }
  if (best)
    out.fix = fmt::format(
        "give {} block count {} instead of {} (saves {} B)", problem_.buffers[best->second].name,
        counts_[best->second] - best->first, counts_[best->second],
        l1::withThousands(best->first *
                          alignedBytes(problem_.buffers[best->second].slotBytes, align)));
  else if (!out.buffers.empty())
    out.fix = fmt::format("use a smaller block for {} (one slot is {} B)",
                          problem_.buffers[out.buffers.front()].name,
                          l1::withThousands(problem_.buffers[out.buffers.front()].slotBytes));
  std::vector<std::string> listed;
  for (size_t i : out.buffers)
    listed.push_back(describe(i));
  out.message = fmt::format(
      "{}: the {} tiles need {} B and {} has {} B of {} for tiles (short by {} B): {}{}",
      problem_.kernel, toString(memory), l1::withThousands(needed), problem_.device,
      l1::withThousands(out.available), toString(memory), l1::withThousands(short_),
      fmt::join(listed, ", "), out.fix.empty() ? "" : "; " + out.fix);
  return out;
}

Rejection Planner::eventRejection(PipePair pair, int64_t needed) const {
  Rejection out;
  out.resource = Resource::Events;
  out.src = pair.first;
  out.dst = pair.second;
  out.needed = needed;
  out.available = problem_.eventIds;
  for (size_t i = 0; i < problem_.buffers.size(); ++i)
    if (onPair(problem_.buffers[i], pair)) out.buffers.push_back(i);
  std::stable_sort(out.buffers.begin(), out.buffers.end(),
                   [&](size_t a, size_t b) { return counts_[a] > counts_[b]; });
  const int64_t excess = needed - out.available;
  std::optional<size_t> best;
  for (size_t i : out.buffers)
    if (counts_[i] - excess >= 1 && (!best || counts_[i] < counts_[*best])) best = i;
  if (best)
    out.fix = fmt::format("give {} block count {} instead of {}", problem_.buffers[*best].name,
                          counts_[*best] - excess, counts_[*best]);
  else
    out.fix =
        fmt::format("lower the block counts on {} by {} slots in all", pairName(pair), excess);
  std::vector<std::string> listed;
  for (size_t i : out.buffers)
    listed.push_back(describe(i));
  out.message = fmt::format(
      "{}: the flags between pipes {} need {} event ids, and {} has {} per pipe pair (a flag per "
      "slot each way): {}; {}",
      problem_.kernel, pairName(pair), needed, problem_.device, out.available,
      fmt::join(listed, ", "), out.fix);
  return out;
}

std::optional<Rejection> Planner::place() {
  for (int m = 0; m < kMemoryCount; ++m) {
    MemoryPlan mp;
    mp.memory = Memory(m);
    mp.capacity = problem_.memories[size_t(m)].capacity;
    for (size_t i = 0; i < problem_.buffers.size(); ++i) {
      const BufferSpec& b = problem_.buffers[i];
      if (b.memory != mp.memory) continue;
      for (int64_t s = 0; s < counts_[i]; ++s) {
        mp.problem.buffers.push_back({fmt::format("{}[{}]", b.name, s), 0, 1, b.slotBytes,
                                      problem_.memories[size_t(m)].alignment});
        mp.slots.emplace_back(i, s);
      }
    }
    if (mp.slots.empty()) continue;
    mp.problem.capacity = mp.capacity;
    l1::Result r = l1::solve(mp.problem, options_.solver, options_.limits, options_.exact);
    plan_.runs.push_back({std::string(toString(mp.memory)), r.status, r.stats.seconds * 1e3,
                          r.stats.solver, r.stats.nodes});
    if (!r.solution) {
      Rejection out;
      out.resource = r.status == SolveStatus::Infeasible   ? Resource::Memory
                     : r.status == SolveStatus::NoSolution ? Resource::Limit
                                                           : Resource::Invalid;
      out.memory = mp.memory;
      out.needed = r.infeasibility ? r.infeasibility->smallestCapacity : 0;
      out.available = mp.capacity;
      out.message = fmt::format("{}: placing {} on {}: {}", problem_.kernel, toString(mp.memory),
                                problem_.device, r.message);
      return out;
    }
    mp.solution = *r.solution;
    mp.used = mp.solution.peak;
    for (size_t k = 0; k < mp.slots.size(); ++k)
      plan_.buffers[mp.slots[k].first].offsets[size_t(mp.slots[k].second)] = mp.solution.offsets[k];
    plan_.memories.push_back(std::move(mp));
  }
  return std::nullopt;
}

void Planner::numberEvents() {
  for (PipePair pair : pairsUsed(problem_)) {
    const auto start = std::chrono::steady_clock::now();
    // Every flag is live for the whole kernel: one interval each, coloured optimally.
    std::vector<std::pair<size_t, bool>> flags; // (buffer, ready?)
    std::vector<colouring::Interval> intervals;
    for (size_t i = 0; i < problem_.buffers.size(); ++i) {
      const BufferSpec& b = problem_.buffers[i];
      if (!crossesPipes(b)) continue;
      const bool ready = b.producer == pair.first && b.consumer == pair.second;
      const bool free = b.consumer == pair.first && b.producer == pair.second;
      if (!ready && !free) continue;
      for (int64_t s = 0; s < counts_[i]; ++s) {
        flags.emplace_back(i, ready);
        intervals.push_back({0, 1});
      }
    }
    std::vector<int> ids = colouring::colourIntervals(intervals);
    for (size_t k = 0; k < flags.size(); ++k) {
      BufferPlan& bp = plan_.buffers[flags[k].first];
      (flags[k].second ? bp.readyEvents : bp.freeEvents).push_back(ids[k]);
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    plan_.events.push_back({pair.first, pair.second, colouring::span(ids), problem_.eventIds});
    plan_.runs.push_back({"events " + pairName(pair), SolveStatus::Optimal, ms, "interval", 0});
  }
}

void Planner::noteDepths() {
  for (size_t i = 0; i < problem_.buffers.size(); ++i) {
    const BufferSpec& b = problem_.buffers[i];
    if (b.slots) continue;
    if (counts_[i] == b.maxSlots)
      plan_.depthNotes.push_back(
          fmt::format("{}: block_count ? -> {} (the deepest allowed)", b.name, counts_[i]));
    else
      plan_.depthNotes.push_back(
          fmt::format("{}: block_count ? -> {} (reduced from {}, largest `?` buffer first, until "
                      "its memory and its pipe pairs fit)",
                      b.name, counts_[i], b.maxSlots));
  }
}

PlanResult Planner::run() {
  if (std::string why = problemError(problem_); !why.empty()) {
    Rejection out;
    out.message = fmt::format("{}: malformed pto problem: {}", problem_.kernel, why);
    return {std::nullopt, out};
  }
  if (auto rejection = chooseCounts()) return {std::nullopt, std::move(rejection)};
  for (size_t i = 0; i < problem_.buffers.size(); ++i) {
    BufferPlan bp;
    bp.slots = counts_[i];
    bp.chosenByPlanner = !problem_.buffers[i].slots;
    bp.offsets.assign(size_t(counts_[i]), 0);
    plan_.buffers.push_back(std::move(bp));
  }
  if (auto rejection = place()) return {std::nullopt, std::move(rejection)};
  numberEvents();
  noteDepths();
  if (Validity v = validate(problem_, plan_); v != Validity::Valid) {
    Rejection out;
    out.message =
        fmt::format("{}: the pto plan fails its validator: {}", problem_.kernel, toString(v));
    return {std::nullopt, out};
  }
  return {std::move(plan_), std::nullopt};
}

} // namespace

PlanResult plan(const Problem& problem, const PlanOptions& options) {
  try {
    return Planner(problem, options).run();
  } catch (const std::exception& e) {
    Rejection out;
    out.message = fmt::format("{}: the pto planner failed: {}", problem.kernel, e.what());
    return {std::nullopt, out};
  }
}

} // namespace ttlplan::planner::pto
