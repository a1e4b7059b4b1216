// The independent validator for L1 placements (docs/architecture.md, contracts): plain O(n^2)
// checks that share no code with any solver. A malformed problem is reported first (nothing else is
// meaningful then); the other checks run in the order of the Validity enum.
#include "ttlplan/planner/l1/Problem.h"

namespace ttlplan::planner::l1 {

std::string_view toString(Validity validity) {
  switch (validity) {
  case Validity::Valid:
    return "valid";
  case Validity::WrongOffsetCount:
    return "wrong offset count";
  case Validity::NegativeOffset:
    return "negative offset";
  case Validity::Misaligned:
    return "misaligned offset";
  case Validity::OverCapacity:
    return "over capacity";
  case Validity::Overlap:
    return "overlap";
  case Validity::WrongPeak:
    return "wrong peak";
  case Validity::InvalidProblem:
    return "invalid problem";
  }
  return "?";
}

Validity validate(const Problem& problem, const Solution& solution) {
  // 128-bit ends: a corrupt offset near INT64_MAX must not overflow into a "valid" answer.
  using Wide = __int128;
  const std::vector<Buffer>& buffers = problem.buffers;
  if (problem.capacity < 0) return Validity::InvalidProblem;
  for (const Buffer& b : buffers)
    if (b.size <= 0 || b.upper <= b.lower || b.alignment < 1) return Validity::InvalidProblem;

  if (solution.offsets.size() != buffers.size()) return Validity::WrongOffsetCount;
  for (int64_t offset : solution.offsets)
    if (offset < 0) return Validity::NegativeOffset;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (solution.offsets[i] % buffers[i].alignment != 0) return Validity::Misaligned;
  if (problem.capacity > 0)
    for (size_t i = 0; i < buffers.size(); ++i)
      if (Wide(solution.offsets[i]) + buffers[i].size > problem.capacity)
        return Validity::OverCapacity;
  for (size_t i = 0; i < buffers.size(); ++i)
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const Buffer& a = buffers[i];
      const Buffer& b = buffers[j];
      bool liveTogether = a.lower < b.upper && b.lower < a.upper;
      Wide aBegin = solution.offsets[i], bBegin = solution.offsets[j];
      bool shareBytes = aBegin < bBegin + b.size && bBegin < aBegin + a.size;
      if (liveTogether && shareBytes) return Validity::Overlap;
    }
  Wide peak = 0;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (Wide end = Wide(solution.offsets[i]) + buffers[i].size; end > peak) peak = end;
  if (peak != solution.peak) return Validity::WrongPeak;
  return Validity::Valid;
}

} // namespace ttlplan::planner::l1
