// Names of the pto planner's enums and the one input check every step relies on.
#include "ttlplan/planner/pto/Problem.h"

#include <fmt/format.h>

namespace ttlplan::planner::pto {

std::string_view toString(Pipe pipe) {
  switch (pipe) {
  case Pipe::Mte2:
    return "MTE2";
  case Pipe::Mte1:
    return "MTE1";
  case Pipe::V:
    return "V";
  case Pipe::M:
    return "M";
  case Pipe::Fix:
    return "FIX";
  case Pipe::Mte3:
    return "MTE3";
  }
  return "?";
}

std::string_view toString(Memory memory) {
  switch (memory) {
  case Memory::Ub:
    return "ub";
  case Memory::L1:
    return "l1";
  case Memory::L0a:
    return "l0a";
  case Memory::L0b:
    return "l0b";
  case Memory::L0c:
    return "l0c";
  }
  return "?";
}

std::string_view toString(BufferRole role) {
  switch (role) {
  case BufferRole::Cb:
    return "cb";
  case BufferRole::Staging:
    return "staging";
  case BufferRole::Temporary:
    return "temporary";
  }
  return "?";
}

int64_t alignedBytes(int64_t slotBytes, int64_t alignment) {
  if (alignment < 1) return slotBytes;
  return (slotBytes + alignment - 1) / alignment * alignment;
}

std::string problemError(const Problem& problem) {
  // Slots of up to 2^40 B, at most 2^10 of them per buffer: sums stay far from overflow.
  constexpr int64_t kMaxSlotBytes = int64_t(1) << 40;
  constexpr int64_t kMaxSlots = 1024;
  for (int m = 0; m < kMemoryCount; ++m) {
    const MemoryLimit& limit = problem.memories[size_t(m)];
    if (limit.capacity < 0 || limit.alignment < 1 || limit.alignment > kMaxSlotBytes)
      return fmt::format("memory {}: capacity {} or alignment {} out of range", toString(Memory(m)),
                         limit.capacity, limit.alignment);
  }
  if (problem.eventIds < 1) return fmt::format("{} event ids per pipe pair", problem.eventIds);
  for (const BufferSpec& b : problem.buffers) {
    if (b.slotBytes <= 0 || b.slotBytes > kMaxSlotBytes)
      return fmt::format("buffer {}: slot size {} B out of (0, 2^40]", b.name, b.slotBytes);
    if (b.slots && (*b.slots < 1 || *b.slots > kMaxSlots))
      return fmt::format("buffer {}: {} slots, outside 1..{}", b.name, *b.slots, kMaxSlots);
    if (b.maxSlots < 1 || b.maxSlots > kMaxSlots)
      return fmt::format("buffer {}: at most {} slots, outside 1..{}", b.name, b.maxSlots,
                         kMaxSlots);
    if (int(b.memory) >= kMemoryCount || int(b.producer) >= kPipeCount ||
        int(b.consumer) >= kPipeCount)
      return fmt::format("buffer {}: memory or pipe out of range", b.name);
  }
  return "";
}

} // namespace ttlplan::planner::pto
