#pragma once
// DST registers (DESIGN.md, planner sub-problem 3): a fused compute chain (the ops between
// cb_wait and ttl.store) runs on sub-blocks of h x w tiles of its B x C block; while a tile value
// of the chain is live it holds h*w DST tiles. The planner colours the values' live intervals into
// DST slots, picks the sub-block with the fewest acquire/commit/pack rounds that fits the DST
// capacity, and splits the chain through an intermediate CB only when even 1 x 1 does not fit.
//
// DST capacity in tiles (FACTS.md), from Problem::deviceTiles (16 on Wormhole and Blackhole):
//   | sync mode | bf16 / 16-bit accumulation | fp32 accumulation |
//   | full      | 16                         | 8                 |
//   | half      | 8 (the default)            | 4                 |
#include "planner/SolveStatus.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
  /// A matmul: its operands stream from their CBs through the unpacker into srcA/srcB (so chain
  /// inputs used only by matmuls take no DST), and its output is an accumulator that lives in DST
  /// across all K steps, from the op's reads on (it never reuses a slot freed at this op). Its
  /// operands must be chain inputs: a matmul operand computed in the chain has another shape
  /// than the chain's block and needs a CB of its own (problemError says so).
  bool matmul = false;
};

struct Chain {
  std::string id;        ///< for reports
  std::vector<Op> ops;   ///< in program order; at least one
  int64_t blockRows = 1; ///< B: block height in tiles (the chain's result block is B x C)
  int64_t blockCols = 1; ///< C: block width in tiles
  /// Values packed out at the end of the chain (ttl.store); empty means the last op's output.
  std::vector<ValueId> results;
};

/// True when an op of the chain is a matmul (the chain runs inside a K loop).
bool isMatmulChain(const Chain& chain);

enum class SyncMode {
  Full, ///< one DST half-buffer for math and pack: the whole register file
  Half, ///< math and pack double-buffer DST: half of it each (tt-metal's default)
};

struct Problem {
  Chain chain;
  int64_t deviceTiles = 16; ///< DST tiles of 16-bit data in full-sync mode (the device's number)
  SyncMode sync = SyncMode::Half;
  bool fp32Accumulation = false;        ///< fp32 DST halves the tiles
  int64_t intermediateTileBytes = 2048; ///< bytes of one tile of an intermediate CB (bf16 2048,
                                        ///< fp32 4096)
};

/// The DST tiles a chain may use: deviceTiles, halved for half sync, halved for fp32 accumulation.
int64_t capacityTiles(const Problem& problem);

/// Empty when well formed, else what is wrong: no ops, a block or capacity below 1, a value id
/// out of [0, kMaxValueId), a value defined twice, an input defined by a later op, an op defining
/// a value it reads, a matmul operand computed in the chain, a result that no op or input names.
std::string problemError(const Problem& problem);

/// One run of consecutive ops that fits DST; a chain that fits is one segment.
struct Segment {
  size_t firstOp = 0; ///< ops [firstOp, endOp)
  size_t endOp = 0;
  int64_t subblockRows = 1; ///< h: divides blockRows
  int64_t subblockCols = 1; ///< w: divides blockCols
  int64_t rounds = 0;       ///< acquire/commit/pack rounds: (B / h) * (C / w)
  /// DST slot of each value id live in this segment, -1 for the others. A slot holds h*w tiles:
  /// tile t (row-major in the sub-block) of value v sits at dst_idx = slots[v] * h * w + t.
  std::vector<int> slots;
  int64_t peakTiles = 0; ///< (max slot + 1) * h * w: the DST tiles the segment uses
};

/// A CB the split needs: it carries values from one segment to later ones. Its L1 bytes join
/// the placement problem (planner/l1) as one more buffer.
struct IntermediateCb {
  size_t afterOp = 0;          ///< the cut follows this op (the last op of a segment)
  std::vector<ValueId> values; ///< values packed there (sorted), each a whole B x C block
  int64_t tiles = 0;           ///< values.size() * B * C
  int64_t bytes = 0;           ///< tiles * Problem::intermediateTileBytes
};

struct Solution {
  std::vector<Segment> segments;             ///< in op order, covering every op
  std::vector<IntermediateCb> intermediates; ///< one per cut that carries values
  int64_t rounds = 0;                        ///< sum of the segments' rounds
  int64_t peakTiles = 0;                     ///< max of the segments' peakTiles
};

/// Why a solution is invalid; Valid when it is not. Checked by code independent of the solver.
enum class [[nodiscard]] Validity{
    Valid,
    BadSegments,           ///< segments empty, not contiguous, or not covering all ops
    SubblockDoesNotDivide, ///< h < 1, w < 1, or h does not divide B or w does not divide C
    MissingSlot,           ///< a value live in a segment has no slot
    SlotOutOfRange,        ///< a slot >= capacity / (h*w)
    SharedSlot,            ///< two values live at the same time share a slot
    WrongRounds,           ///< a segment's or the total rounds are not what the shapes give
    WrongPeak,             ///< a segment's or the total peak tiles are wrong
    WrongIntermediates,    ///< the intermediate CBs are not the values crossing the cuts
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
