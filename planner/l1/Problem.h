#pragma once
// L1 placement (docs/architecture.md, planner sub-problem 1): buffers with a size, an alignment and
// a lifetime get byte offsets so that buffers live at the same time never overlap. The same problem
// as static memory allocation (google/minimalloc's CSV: id,lower,upper,size).
#include "ttlplan/planner/SolveStatus.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttlplan::planner::l1 {

struct Buffer {
  std::string id;        ///< name for reports (a CB's SSA name, a CSV id)
  int64_t lower = 0;     ///< first time step the buffer is live
  int64_t upper = 0;     ///< one past the last live time step: live over [lower, upper)
  int64_t size = 0;      ///< bytes; > 0
  int64_t alignment = 1; ///< the offset must be a multiple of this; >= 1
};

struct Problem {
  std::vector<Buffer> buffers;
  /// Offsets must satisfy offset + size <= capacity. 0 means unbounded (just minimise the peak).
  int64_t capacity = 0;
};

/// offsets[i] is where buffers[i] starts, relative to the placement base (for L1 CBs the device's
/// l1_unreserved_base is added by the caller, who keeps it aligned).
struct Solution {
  std::vector<int64_t> offsets;
  /// max(offset + size): the bytes the placement needs.
  int64_t peak = 0;
};

/// Why a solution is invalid; Valid when it is not. Checked by code independent of every solver.
enum class [[nodiscard]] Validity{
    Valid,
    WrongOffsetCount, ///< offsets.size() != buffers.size()
    NegativeOffset,   ///< an offset below 0
    Misaligned,       ///< an offset not a multiple of its buffer's alignment
    OverCapacity,     ///< offset + size > capacity (when capacity > 0)
    Overlap,          ///< two buffers live at the same time share bytes
    WrongPeak,        ///< Solution::peak is not max(offset + size)
    InvalidProblem, ///< the problem itself is malformed (size <= 0, upper <= lower, alignment < 1)
};

std::string_view toString(Validity validity);

/// Checks the problem itself, the one input check every solver relies on: capacity >= 0, and per
/// buffer size > 0, upper > lower, alignment >= 1. Sizes and alignments add up to at most 2^52
/// bytes (the ILP back ends hold offsets in doubles, exact to 2^53), and times lie within
/// +-2^31 so that lifetime lengths and size x length stay far from overflow. The error names the
/// first bad buffer.
Status checkProblem(const Problem& problem);
Validity validate(const Problem& problem, const Solution& solution);

/// When a problem with a capacity is infeasible: what would fit and what blocks it.
struct Infeasibility {
  int64_t smallestCapacity = 0;        ///< the least capacity that fits (the unbounded optimum)
  std::vector<size_t> blockingBuffers; ///< a minimal set of buffers that cannot coexist
  int64_t blockingBytes = 0;           ///< bytes that set needs at its busiest time step
};

struct Result {
  SolveStatus status = SolveStatus::Error;
  std::optional<Solution> solution;           ///< set for Optimal and Feasible
  int64_t lowerBound = 0;                     ///< proven lower bound on the peak
  std::optional<Infeasibility> infeasibility; ///< set for Infeasible
  SolverStats stats;
  std::string message; ///< for Error, and a human summary otherwise
};

} // namespace ttlplan::planner::l1
