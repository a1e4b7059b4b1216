#pragma once
// DST registers (docs/architecture.md, planner sub-problem 3): a fused compute chain (the ops
// between cb_wait and ttl.store) runs on sub-blocks of h x w tiles of its B x C block; while a tile
// value of the chain is live it holds h*w DST tiles. The planner colours the values' live intervals
// into DST slots, picks the sub-block with the fewest acquire/commit/pack rounds that fits the DST
// capacity, and splits the chain into segments through intermediate CBs where it must: before an
// op that reads CB operands (matmul, reduce, bcast) one of which the chain computes, where the
// output block changes (a reduction's B x 1 result), and where even 1 x 1 does not fit.
//
// DST capacity in tiles is the device's (ir::Device::dstCapacityTiles; docs/hardware-facts.md): on
// Wormhole and Blackhole
//   | sync mode | bf16 / 16-bit accumulation | fp32 accumulation |
//   | full      | 16                         | 8                 |
//   | half      | 8 (the default)            | 4                 |
// The caller looks it up for the chain's sync mode and accumulation (lower/ExtractDst.cpp); the
// planner takes Problem::capacityTiles as given.
#include "ttlplan/planner/SolveStatus.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttlplan::planner::dst {

/// A tile value of the chain; dense small non-negative ids (slots are indexed by them).
using ValueId = int32_t;

/// Values are indexed up to this bound (exclusive); larger ids are rejected as malformed.
inline constexpr ValueId kMaxValueId = 1 << 20;

struct Op {
  std::string name;            ///< for reports ("ttl.add")
  std::vector<ValueId> inputs; ///< values read (a chain input when no earlier op defines it)
  ValueId output = -1;         ///< the value written; each value is defined at most once
  /// Operands read from CBs (matmul, reduce, bcast): they stream through the unpacker (matmul
  /// into srcA/srcB, reduce and bcast straight into the output's DST tiles), so operands read only
  /// by such ops take no DST, and the output lives in DST from the op's read point on (matmul and
  /// reduce accumulate into it over their inner loop; it never reuses a slot freed at this op).
  /// An operand computed in the chain must therefore come from an intermediate CB: the segment
  /// that computes it ends before this op (the solver cuts there).
  bool cbOperands = false;
  /// The output's block in tiles; 0 x 0 means the chain's block (B x C). A reduction's output is
  /// B x 1 (dims [1]), 1 x C (dims [0]) or 1 x 1; every op of one segment has the same output
  /// block (the segment's sub-block walk covers it), so a change of shape also cuts the chain.
  int64_t rows = 0;
  int64_t cols = 0;
};

struct Chain {
  std::string id;        ///< for reports
  std::vector<Op> ops;   ///< in program order; at least one
  int64_t blockRows = 1; ///< B: block height in tiles (the chain's result block is B x C)
  int64_t blockCols = 1; ///< C: block width in tiles
  /// Values packed out at the end of the chain (ttl.store); empty means the last op's output.
  std::vector<ValueId> results;
};

/// The output block of `op` in tiles (rows, cols): its own, or the chain's when it leaves 0 x 0.
std::pair<int64_t, int64_t> outputBlock(const Chain& chain, const Op& op);

/// True when an op of the chain is a ttl.matmul (the chain runs inside a K loop).
bool isMatmulChain(const Chain& chain);

enum class SyncMode {
  Full, ///< one DST half-buffer for math and pack: the whole register file
  Half, ///< math and pack double-buffer DST: half of it each (tt-metal's default)
};

struct Problem {
  Chain chain;
  /// DST tiles the chain may use: the device's count for `sync` and `fp32Accumulation`
  /// (ir::Device::dstCapacityTiles). At least 1.
  int64_t capacityTiles = 8;
  SyncMode sync = SyncMode::Half;       ///< for reports; capacityTiles already counts it
  bool fp32Accumulation = false;        ///< fp32 DST (reports; capacityTiles already counts it)
  int64_t intermediateTileBytes = 2048; ///< bytes of one tile of an intermediate CB (bf16 2048,
                                        ///< fp32 4096)
};

/// Empty when well formed, else what is wrong: no ops, a block or capacity below 1, an op block
/// with one side 0 or a side below 0, a value id out of [0, kMaxValueId), a value defined twice,
/// an input defined by a later op, an op defining a value it reads, a result that no op computes.
std::string problemError(const Problem& problem);

/// One run of consecutive ops that fits DST; a chain that fits is one segment.
struct Segment {
  size_t firstOp = 0; ///< ops [firstOp, endOp)
  size_t endOp = 0;
  int64_t blockRows = 1; ///< the segment's block: the output block of each of its ops
  int64_t blockCols = 1;
  int64_t subblockRows = 1; ///< h: divides blockRows
  int64_t subblockCols = 1; ///< w: divides blockCols
  int64_t rounds = 0;       ///< acquire/commit/pack rounds: (blockRows / h) * (blockCols / w)
  /// DST slot of each value id live in this segment, -1 for the others. A slot holds h*w tiles:
  /// tile t (row-major in the sub-block) of value v sits at dst_idx = slots[v] * h * w + t.
  std::vector<int> slots;
  int64_t peakTiles = 0; ///< (max slot + 1) * h * w: the DST tiles the segment uses
};

/// A CB the split needs: one value computed in one segment and read by later ones (packed at the
/// end of its segment, unpacked or streamed by the later ones). Its L1 bytes join the placement
/// problem (planner/l1) as one more buffer.
struct IntermediateCb {
  size_t afterOp = 0; ///< the cut follows this op (the last op of the value's segment)
  ValueId value = -1; ///< the value packed there, a whole block of rows x cols tiles
  int64_t rows = 0;   ///< the value's block (its op's output block)
  int64_t cols = 0;
  int64_t tiles = 0; ///< rows * cols
  int64_t bytes = 0; ///< tiles * Problem::intermediateTileBytes
  bool operator==(const IntermediateCb&) const = default;
};

struct Solution {
  std::vector<Segment> segments;             ///< in op order, covering every op
  std::vector<IntermediateCb> intermediates; ///< one per value crossing a cut, by (afterOp, value)
  int64_t rounds = 0;                        ///< sum of the segments' rounds
  int64_t peakTiles = 0;                     ///< max of the segments' peakTiles
};

/// Why a solution is invalid; Valid when it is not. Checked by code independent of the solver.
enum class [[nodiscard]] Validity{
    Valid,
    BadSegments,           ///< segments empty, not contiguous, or not covering all ops
    SubblockDoesNotDivide, ///< h < 1, w < 1, or h, w do not divide the segment's block
    MissingSlot,           ///< a value live in a segment has no slot
    SlotOutOfRange,        ///< a slot >= capacity / (h*w)
    SharedSlot,            ///< two values live at the same time share a slot
    WrongRounds,           ///< a segment's or the total rounds are not what the shapes give
    WrongPeak,             ///< a segment's or the total peak tiles are wrong
    WrongIntermediates,    ///< the intermediate CBs are not the values crossing the cuts
    CbOperandInSegment,    ///< an op reading CB operands reads a value computed in its segment
    MixedBlocks,           ///< the ops of a segment have different output blocks
    InvalidProblem,        ///< problemError is not empty
};

std::string_view toString(Validity validity);
Validity validate(const Problem& problem, const Solution& solution);

struct Result {
  SolveStatus status = SolveStatus::Error;
  std::optional<Solution> solution; ///< set for Optimal
  /// When the whole chain at a 1 x 1 sub-block exceeds the capacity: the first op at which the
  /// live values exceed it (set both when a split fixed it and when the chain is Infeasible).
  std::optional<size_t> exceedingOp;
  int liveAtExceedingOp = 0; ///< the live values (at 1 x 1, unsplit) at exceedingOp
  SolverStats stats;
  std::string message; ///< for Error and Infeasible, and a summary otherwise
};

} // namespace ttlplan::planner::dst
