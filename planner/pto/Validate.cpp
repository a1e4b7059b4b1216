// The independent validator for pto plans (docs/architecture.md, contracts): plain checks over the
// problem and the plan that share no code with the planner (not its sums, not the l1 validator).
// The checks run in the order of the Validity enum.
#include "ttlplan/planner/pto/Plan.h"

#include <map>
#include <set>

namespace ttlplan::planner::pto {

std::string_view toString(Validity validity) {
  switch (validity) {
  case Validity::Valid:
    return "valid";
  case Validity::WrongBufferCount:
    return "wrong buffer count";
  case Validity::WrongSlots:
    return "wrong slot count";
  case Validity::Misplaced:
    return "misplaced slot";
  case Validity::Overlap:
    return "overlapping slots";
  case Validity::MissingEvents:
    return "missing or extra event ids";
  case Validity::EventOutOfRange:
    return "event id out of range";
  case Validity::SharedEvent:
    return "shared event id";
  case Validity::WrongSummary:
    return "wrong summary";
  case Validity::InvalidProblem:
    return "invalid problem";
  }
  return "?";
}

namespace {

struct Span {
  __int128 begin, end;
};

Validity checkSlots(const Problem& problem, const Plan& plan) {
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferSpec& b = problem.buffers[i];
    const BufferPlan& p = plan.buffers[i];
    if (b.slots ? p.slots != *b.slots : (p.slots < 1 || p.slots > b.maxSlots))
      return Validity::WrongSlots;
    if (p.offsets.size() != size_t(p.slots)) return Validity::WrongSlots;
  }
  return Validity::Valid;
}

Validity checkPlacement(const Problem& problem, const Plan& plan) {
  std::map<int, std::vector<Span>> byMemory;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferSpec& b = problem.buffers[i];
    const MemoryLimit& limit = problem.memories[size_t(b.memory)];
    for (int64_t offset : plan.buffers[i].offsets) {
      if (offset < 0 || offset % limit.alignment != 0 ||
          __int128(offset) + b.slotBytes > limit.capacity)
        return Validity::Misplaced;
      byMemory[int(b.memory)].push_back({offset, __int128(offset) + b.slotBytes});
    }
  }
  for (const auto& [memory, spans] : byMemory)
    for (size_t a = 0; a < spans.size(); ++a)
      for (size_t c = a + 1; c < spans.size(); ++c)
        if (spans[a].begin < spans[c].end && spans[c].begin < spans[a].end)
          return Validity::Overlap;
  return Validity::Valid;
}

Validity checkEvents(const Problem& problem, const Plan& plan) {
  // (src, dst) -> ids in use.
  std::map<std::pair<int, int>, std::set<int>> used;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferSpec& b = problem.buffers[i];
    const BufferPlan& p = plan.buffers[i];
    const size_t want = b.producer == b.consumer ? 0 : size_t(p.slots);
    if (p.readyEvents.size() != want || p.freeEvents.size() != want) return Validity::MissingEvents;
    auto take = [&](Pipe src, Pipe dst, int id) {
      if (id < 0 || id >= problem.eventIds) return Validity::EventOutOfRange;
      if (!used[{int(src), int(dst)}].insert(id).second) return Validity::SharedEvent;
      return Validity::Valid;
    };
    for (int id : p.readyEvents)
      if (Validity v = take(b.producer, b.consumer, id); v != Validity::Valid) return v;
    for (int id : p.freeEvents)
      if (Validity v = take(b.consumer, b.producer, id); v != Validity::Valid) return v;
  }
  for (const EventPlan& e : plan.events) {
    auto it = used.find({int(e.src), int(e.dst)});
    int highest = it == used.end() || it->second.empty() ? -1 : *it->second.rbegin();
    if (e.used != highest + 1) return Validity::WrongSummary;
  }
  return Validity::Valid;
}

Validity checkMemorySummaries(const Problem& problem, const Plan& plan) {
  for (const MemoryPlan& m : plan.memories) {
    __int128 peak = 0;
    for (size_t i = 0; i < problem.buffers.size(); ++i) {
      if (problem.buffers[i].memory != m.memory) continue;
      for (int64_t offset : plan.buffers[i].offsets)
        peak = std::max(peak, __int128(offset) + problem.buffers[i].slotBytes);
    }
    if (peak != m.used) return Validity::WrongSummary;
  }
  return Validity::Valid;
}

} // namespace

Validity validate(const Problem& problem, const Plan& plan) {
  if (!problemError(problem).empty()) return Validity::InvalidProblem;
  if (plan.buffers.size() != problem.buffers.size()) return Validity::WrongBufferCount;
  for (auto check : {checkSlots, checkPlacement, checkEvents, checkMemorySummaries})
    if (Validity v = check(problem, plan); v != Validity::Valid) return v;
  return Validity::Valid;
}

} // namespace ttlplan::planner::pto
