// The independent DST validator. It recomputes liveness with a backward walk over each segment
// (live sets, not the solver's intervals) and checks every point's live set against the slots,
// each segment's block and CB-operand rule, and the intermediate CBs from the values that cross.
#include "ttlplan/planner/dst/Problem.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace ttlplan::planner::dst {

std::string_view toString(Validity validity) {
  switch (validity) {
  case Validity::Valid:
    return "valid";
  case Validity::BadSegments:
    return "segments do not cover the ops in order";
  case Validity::SubblockDoesNotDivide:
    return "sub-block does not divide the block";
  case Validity::MissingSlot:
    return "a live value has no slot";
  case Validity::SlotOutOfRange:
    return "slot beyond the DST capacity";
  case Validity::SharedSlot:
    return "values live together share a slot";
  case Validity::WrongRounds:
    return "wrong rounds";
  case Validity::WrongPeak:
    return "wrong peak tiles";
  case Validity::WrongIntermediates:
    return "wrong intermediate CBs";
  case Validity::CbOperandInSegment:
    return "an op reads a CB operand computed in its own segment";
  case Validity::MixedBlocks:
    return "a segment's ops do not all have the segment's block";
  case Validity::InvalidProblem:
    return "invalid problem";
  }
  return "?";
}

std::pair<int64_t, int64_t> outputBlock(const Chain& chain, const Op& op) {
  if (op.rows == 0 && op.cols == 0) return {chain.blockRows, chain.blockCols};
  return {op.rows, op.cols};
}

bool isMatmulChain(const Chain& chain) {
  return std::any_of(chain.ops.begin(), chain.ops.end(),
                     [](const Op& op) { return op.name == "ttl.matmul"; });
}

std::string problemError(const Problem& problem) {
  const Chain& chain = problem.chain;
  if (chain.ops.empty()) return "chain '" + chain.id + "' has no ops";
  if (chain.blockRows < 1 || chain.blockCols < 1)
    return "chain '" + chain.id + "' has block " + std::to_string(chain.blockRows) + "x" +
           std::to_string(chain.blockCols);
  if (problem.capacityTiles < 1)
    return "DST capacity " + std::to_string(problem.capacityTiles) + " is below 1 tile";
  if (problem.intermediateTileBytes < 1) return "intermediate tile bytes below 1";
  auto badId = [](ValueId v) { return v < 0 || v >= kMaxValueId; };
  std::set<ValueId> definedSet, usedSet;
  for (size_t i = 0; i < chain.ops.size(); ++i) {
    const Op& op = chain.ops[i];
    const std::string where = "op " + std::to_string(i) + " (" + op.name + ")";
    if (badId(op.output)) return where + " defines value id " + std::to_string(op.output);
    if (op.rows < 0 || op.cols < 0 || (op.rows == 0) != (op.cols == 0))
      return where + " has output block " + std::to_string(op.rows) + "x" + std::to_string(op.cols);
    for (ValueId x : op.inputs) {
      if (badId(x)) return where + " reads value id " + std::to_string(x);
      if (x == op.output) return where + " reads the value it defines";
      usedSet.insert(x);
    }
    if (definedSet.count(op.output))
      return where + " defines value " + std::to_string(op.output) + " a second time";
    if (usedSet.count(op.output))
      return where + " defines value " + std::to_string(op.output) + " read by an earlier op";
    definedSet.insert(op.output);
  }
  for (ValueId v : chain.results)
    if (badId(v) || !definedSet.count(v))
      return "result " + std::to_string(v) + " is not computed by the chain";
  return {};
}

Validity validate(const Problem& problem, const Solution& solution) {
  if (!problemError(problem).empty()) return Validity::InvalidProblem;
  const Chain& chain = problem.chain;
  const size_t n = chain.ops.size();
  const int64_t capacity = problem.capacityTiles;

  // Segments: contiguous, non-empty, covering [0, n).
  if (solution.segments.empty()) return Validity::BadSegments;
  size_t expectFirst = 0;
  for (const Segment& s : solution.segments) {
    if (s.firstOp != expectFirst || s.endOp <= s.firstOp || s.endOp > n)
      return Validity::BadSegments;
    expectFirst = s.endOp;
  }
  if (expectFirst != n) return Validity::BadSegments;

  std::vector<ValueId> results = chain.results;
  if (results.empty()) results.push_back(chain.ops.back().output);
  auto reads = [&](size_t op, ValueId v) {
    const std::vector<ValueId>& in = chain.ops[op].inputs;
    return std::find(in.begin(), in.end(), v) != in.end();
  };
  auto definedIn = [&](ValueId v, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i)
      if (chain.ops[i].output == v) return true;
    return false;
  };
  // Read by any op from `from` on: from DST or streamed, either way it must be packed into a CB.
  auto readFrom = [&](ValueId v, size_t from) {
    for (size_t i = from; i < n; ++i)
      if (reads(i, v)) return true;
    return false;
  };
  // Read from DST (unpacked) by an op in [from, to).
  auto readInDst = [&](ValueId v, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i)
      if (!chain.ops[i].cbOperands && reads(i, v)) return true;
    return false;
  };
  auto blockOf = [&](const Op& op) {
    return op.rows == 0 ? std::pair<int64_t, int64_t>{chain.blockRows, chain.blockCols}
                        : std::pair<int64_t, int64_t>{op.rows, op.cols};
  };

  int64_t totalRounds = 0, totalPeak = 0;
  std::vector<IntermediateCb> expectedCbs;
  for (const Segment& s : solution.segments) {
    for (size_t i = s.firstOp; i < s.endOp; ++i) {
      if (blockOf(chain.ops[i]) != std::pair<int64_t, int64_t>{s.blockRows, s.blockCols})
        return Validity::MixedBlocks;
      if (chain.ops[i].cbOperands)
        for (ValueId x : chain.ops[i].inputs)
          if (definedIn(x, s.firstOp, i)) return Validity::CbOperandInSegment;
    }
    const int64_t h = s.subblockRows, w = s.subblockCols;
    if (h < 1 || w < 1 || s.blockRows % h != 0 || s.blockCols % w != 0)
      return Validity::SubblockDoesNotDivide;
    if (s.rounds != (s.blockRows / h) * (s.blockCols / w)) return Validity::WrongRounds;
    const int64_t slotLimit = capacity / (h * w);
    int maxSlot = -1;

    // Backward walk: `live` holds the values live just after the current point.
    std::set<ValueId> live;
    for (size_t i = s.firstOp; i < s.endOp; ++i) {
      ValueId v = chain.ops[i].output;
      bool needed =
          std::find(results.begin(), results.end(), v) != results.end() || readFrom(v, s.endOp);
      if (needed) live.insert(v);
    }
    auto check = [&](const std::set<ValueId>& set) {
      std::set<int> used;
      for (ValueId v : set) {
        if (static_cast<size_t>(v) >= s.slots.size() || s.slots[static_cast<size_t>(v)] < 0)
          return Validity::MissingSlot;
        const int slot = s.slots[static_cast<size_t>(v)];
        if (slot >= slotLimit) return Validity::SlotOutOfRange;
        if (!used.insert(slot).second) return Validity::SharedSlot;
        maxSlot = std::max(maxSlot, slot);
      }
      return Validity::Valid;
    };
    for (size_t k = s.endOp; k-- > s.firstOp;) {
      const Op& op = chain.ops[k];
      // Write point of op k: what is live after it, plus its output (even if never read).
      std::set<ValueId> atWrite = live;
      atWrite.insert(op.output);
      if (Validity bad = check(atWrite); bad != Validity::Valid) return bad;
      live.erase(op.output);
      // Read point of op k: its DST operands; for CB operands (streamed), its output instead,
      // which the op fills while it reads.
      std::set<ValueId> atRead = live;
      if (!op.cbOperands)
        atRead.insert(op.inputs.begin(), op.inputs.end());
      else
        atRead.insert(op.output);
      if (Validity bad = check(atRead); bad != Validity::Valid) return bad;
      live = atRead;
      live.erase(op.output);
      // Values from a CB are unpacked just before their first read in the segment.
      if (!op.cbOperands)
        for (ValueId x : op.inputs)
          if (!definedIn(x, s.firstOp, k) && !readInDst(x, s.firstOp, k)) live.erase(x);
    }
    if (s.peakTiles != static_cast<int64_t>(maxSlot + 1) * h * w) return Validity::WrongPeak;
    totalRounds += s.rounds;
    totalPeak = std::max(totalPeak, s.peakTiles);

    // Each value of this segment read after it needs a CB of its block, in value order.
    std::vector<ValueId> crossing;
    for (size_t i = s.firstOp; i < s.endOp; ++i)
      if (readFrom(chain.ops[i].output, s.endOp)) crossing.push_back(chain.ops[i].output);
    std::sort(crossing.begin(), crossing.end());
    for (ValueId v : crossing) {
      IntermediateCb cb;
      cb.afterOp = s.endOp - 1;
      cb.value = v;
      for (const Op& op : chain.ops)
        if (op.output == v) std::tie(cb.rows, cb.cols) = blockOf(op);
      cb.tiles = cb.rows * cb.cols;
      cb.bytes = cb.tiles * problem.intermediateTileBytes;
      expectedCbs.push_back(cb);
    }
  }
  if (solution.rounds != totalRounds) return Validity::WrongRounds;
  if (solution.peakTiles != totalPeak) return Validity::WrongPeak;
  if (solution.intermediates != expectedCbs) return Validity::WrongIntermediates;
  return Validity::Valid;
}

} // namespace ttlplan::planner::dst
