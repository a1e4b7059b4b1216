#pragma once
// DST allocation and sub-blocking for one fused compute chain.
//
// Liveness (one op i has a read point and, after it, a write point):
//  - a value computed by op d is live from d's write point (the output of an op with CB operands
//    -- matmul, reduce, bcast -- from d's read point) to the read point of its last use, or to
//    the end of its segment when it is a result or a later segment reads it; a value nobody reads
//    is live at its write point only;
//  - a value from a CB (a chain input, or one a previous segment packed) is unpacked just before
//    its first use and lives until its last use; CB operands of matmul, reduce and bcast stream
//    from their CB and take no DST.
// An op's output may take the slot of an input that dies at that op (in-place SFPU/FPU ops).
//
// solve(): the fewest segments (greedy longest: every rule below holds for a sub-range of a
// segment that obeys it, so greedy is optimal) such that each segment
//  - fits DST at a 1 x 1 sub-block,
//  - has no op reading a CB operand that an earlier op of the same segment computes (that value
//    is packed into an intermediate CB at the end of its segment and read from there), and
//  - has one output block (every op's result has the same rows x cols, e.g. a reduction's B x 1
//    result starts a segment of its own: one sub-block walk covers a segment).
// A chain that obeys all three is one segment. Per segment: slots by interval colouring (optimal:
// slots used = the most values live at one point) and the sub-block of its block with the fewest
// rounds that fits (chooseSubblock). Every value computed in a segment and read after it gets an
// intermediate CB of its own block's size.
#include "ttlplan/planner/colouring/Colouring.h"
#include "ttlplan/planner/dst/Problem.h"

#include <utility>

namespace ttlplan::planner::dst {

struct Subblock {
  int64_t rows = 1; ///< h
  int64_t cols = 1; ///< w
  bool operator==(const Subblock&) const = default;
};

/// The sub-block (h, w) with h | B, w | C and h * w <= maxTiles that minimises the rounds
/// (B / h) * (C / w). With `matmul`, ties go to the smaller h + w first: a round of matmul unpacks
/// K * (h + w) tiles (an in0 column and an in1 row per K step) for its h * w products, so the
/// squarer sub-block unpacks less (docs/cost-model.md). Then the larger w, then the larger h.
/// Empty when maxTiles < 1.
std::optional<Subblock> chooseSubblock(int64_t blockRows, int64_t blockCols, int64_t maxTiles,
                                       bool matmul = false);

/// The values live at each point of a segment (ops [firstOp, endOp)) as half-open intervals
/// [lower, upper) over points 2*i+1 (read of op i) and 2*i+2 (write of op i). Indexed by value
/// id; a value not live in the segment has an empty interval. Precondition: problemError is empty.
std::vector<colouring::Interval> liveIntervals(const Problem& problem, size_t firstOp,
                                               size_t endOp);

/// Solves one chain. Never throws; malformed input gives Error, a single op whose own operands
/// exceed the capacity gives Infeasible with exceedingOp naming it.
Result solve(const Problem& problem, const SolveLimits& limits = {});

} // namespace ttlplan::planner::dst
