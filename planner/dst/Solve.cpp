#include "ttlplan/planner/dst/Solve.h"

#include "ttlplan/planner/colouring/Colouring.h"

#include <algorithm>
#include <chrono>
#include <tuple>

namespace ttlplan::planner::dst {
namespace {

using Clock = std::chrono::steady_clock;

int64_t readPoint(size_t op) {
  return 2 * static_cast<int64_t>(op) + 1;
}
int64_t writePoint(size_t op) {
  return 2 * static_cast<int64_t>(op) + 2;
}

size_t valueCount(const Chain& chain) {
  ValueId top = -1;
  for (const Op& op : chain.ops) {
    top = std::max(top, op.output);
    for (ValueId v : op.inputs)
      top = std::max(top, v);
  }
  for (ValueId v : chain.results)
    top = std::max(top, v);
  return static_cast<size_t>(top + 1);
}

std::vector<ValueId> resultsOf(const Chain& chain) {
  if (!chain.results.empty()) return chain.results;
  return {chain.ops.back().output};
}

/// The op defining each value, or -1 for chain inputs.
std::vector<int64_t> definitions(const Chain& chain) {
  std::vector<int64_t> def(valueCount(chain), -1);
  for (size_t i = 0; i < chain.ops.size(); ++i)
    def[static_cast<size_t>(chain.ops[i].output)] = static_cast<int64_t>(i);
  return def;
}

std::string opName(const Problem& problem, size_t op) {
  const std::string& name = problem.chain.ops[op].name;
  return "op " + std::to_string(op) + (name.empty() ? "" : " (" + name + ")");
}

} // namespace

std::optional<Subblock> chooseSubblock(int64_t blockRows, int64_t blockCols, int64_t maxTiles,
                                       bool matmul) {
  if (maxTiles < 1 || blockRows < 1 || blockCols < 1) return std::nullopt;
  // Fewest rounds means the largest h * w. At equal rounds a matmul prefers the smaller h + w
  // (its unpacker reads K * (h + w) tiles a round). Then prefer the wider sub-block: CB blocks are
  // row-major, so a wider sub-block packs longer runs of consecutive tiles of one row. At equal
  // rounds and equal w, h is fixed (h * w = B * C / rounds), so "then larger h" only makes the
  // order total.
  std::optional<Subblock> best;
  int64_t bestRounds = 0;
  // h * w <= maxTiles bounds both loops by DST's capacity (at most 16 tiles), not by the block:
  // a block of 2^30 rows costs no more than one of 4.
  for (int64_t h = 1; h <= std::min(blockRows, maxTiles); ++h) {
    if (blockRows % h != 0) continue;
    for (int64_t w = 1; w <= std::min(blockCols, maxTiles / h); ++w) {
      if (blockCols % w != 0) continue;
      const int64_t rounds = (blockRows / h) * (blockCols / w);
      const int64_t unpack = matmul ? h + w : 0,
                    bestUnpack = best && matmul ? best->rows + best->cols : 0;
      const bool better =
          !best || rounds < bestRounds ||
          (rounds == bestRounds &&
           (unpack < bestUnpack ||
            (unpack == bestUnpack && (w > best->cols || (w == best->cols && h > best->rows)))));
      if (better) {
        best = Subblock{h, w};
        bestRounds = rounds;
      }
    }
  }
  return best;
}

std::vector<colouring::Interval> liveIntervals(const Problem& problem, size_t firstOp,
                                               size_t endOp) {
  const Chain& chain = problem.chain;
  const std::vector<int64_t> def = definitions(chain);
  std::vector<colouring::Interval> intervals(def.size()); // empty: not live
  const int64_t a = static_cast<int64_t>(firstOp), b = static_cast<int64_t>(endOp);
  auto inSegmentBefore = [&](ValueId v, size_t op) {
    int64_t d = def[static_cast<size_t>(v)];
    return d >= a && d < static_cast<int64_t>(op);
  };
  for (size_t i = firstOp; i < endOp; ++i) {
    const Op& op = chain.ops[i];
    if (!op.cbOperands)
      for (ValueId x : op.inputs) {
        colouring::Interval& iv = intervals[static_cast<size_t>(x)];
        if (!inSegmentBefore(x, i) && iv.upper <= iv.lower)
          iv = {readPoint(i), readPoint(i) + 1}; // unpacked from its CB just before the first use
        else
          iv.upper = std::max(iv.upper, readPoint(i) + 1);
      }
    const int64_t at = op.cbOperands ? readPoint(i) : writePoint(i);
    intervals[static_cast<size_t>(op.output)] = {at, at + 1};
  }
  // Values computed here and needed later (a result, or read after the segment, from DST or
  // streamed from its CB) stay until the segment's last point, where they are packed.
  std::vector<char> neededAfter(def.size(), 0);
  for (ValueId v : resultsOf(chain))
    neededAfter[static_cast<size_t>(v)] = 1;
  for (size_t i = endOp; i < chain.ops.size(); ++i)
    for (ValueId x : chain.ops[i].inputs)
      neededAfter[static_cast<size_t>(x)] = 1;
  for (size_t v = 0; v < def.size(); ++v)
    if (def[v] >= a && def[v] < b && neededAfter[v]) intervals[v].upper = writePoint(endOp - 1) + 1;
  return intervals;
}

static Result solveUnguarded(const Problem& problem) {
  const auto start = Clock::now();
  Result result;
  result.stats.solver = "interval";
  auto finish = [&](Result r) {
    r.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
  };
  if (std::string error = problemError(problem); !error.empty()) {
    result.status = SolveStatus::Error;
    result.message = error;
    return finish(std::move(result));
  }
  const Chain& chain = problem.chain;
  const size_t n = chain.ops.size();
  const int64_t capacity = problem.capacityTiles;
  auto segmentNeed = [&](size_t a, size_t b) {
    ++result.stats.nodes;
    return static_cast<int64_t>(colouring::mostLive(liveIntervals(problem, a, b)));
  };

  // Where does the unsplit chain at 1 x 1 first exceed the capacity?
  {
    std::vector<colouring::Interval> whole = liveIntervals(problem, 0, n);
    const int64_t points = writePoint(n - 1) + 1;
    std::vector<int> live(static_cast<size_t>(points) + 1, 0);
    for (const colouring::Interval& iv : whole)
      for (int64_t p = iv.lower; p < iv.upper; ++p)
        ++live[static_cast<size_t>(p)];
    for (int64_t p = 1; p < points; ++p)
      if (live[static_cast<size_t>(p)] > capacity) {
        result.exceedingOp = static_cast<size_t>((p - 1) / 2);
        result.liveAtExceedingOp = live[static_cast<size_t>(p)];
        break;
      }
  }

  // Where a segment may not extend: op i reads CB operands one of which op def < i computes (the
  // value must come from an intermediate CB, so a cut lies in (def, i]), or op i's output block
  // differs from op i-1's. A segment [a, b) is allowed when it crosses none of these and fits at
  // 1 x 1. Both properties hold for every sub-range of an allowed segment, so the greedy longest
  // segments are the fewest.
  const std::vector<int64_t> def = definitions(chain);
  std::vector<size_t> mustStartBy(n, 0); // op i's segment starts at or after mustStartBy[i]
  size_t forcingOps = 0;                 // ops that cannot share a segment with some earlier op
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && outputBlock(chain, chain.ops[i]) != outputBlock(chain, chain.ops[i - 1]))
      mustStartBy[i] = i;
    if (chain.ops[i].cbOperands)
      for (ValueId x : chain.ops[i].inputs)
        if (int64_t d = def[static_cast<size_t>(x)]; d >= 0)
          mustStartBy[i] = std::max(mustStartBy[i], static_cast<size_t>(d) + 1);
    forcingOps += mustStartBy[i] > 0;
  }
  std::vector<std::pair<size_t, size_t>> ranges;
  for (size_t a = 0; a < n;) {
    if (int64_t need = segmentNeed(a, a + 1); need > capacity) {
      result.status = SolveStatus::Infeasible;
      result.exceedingOp = a;
      result.liveAtExceedingOp = static_cast<int>(need);
      result.message = opName(problem, a) + " alone needs " + std::to_string(need) +
                       " DST tiles at a 1x1 sub-block; capacity " + std::to_string(capacity);
      return finish(std::move(result));
    }
    size_t b = a + 1;
    while (b < n && mustStartBy[b] <= a && segmentNeed(a, b + 1) <= capacity)
      ++b;
    ranges.emplace_back(a, b);
    a = b;
  }

  Solution solution;
  for (auto [a, b] : ranges) {
    Segment segment;
    segment.firstOp = a;
    segment.endOp = b;
    std::tie(segment.blockRows, segment.blockCols) = outputBlock(chain, chain.ops[a]);
    std::vector<colouring::Interval> intervals = liveIntervals(problem, a, b);
    segment.slots = colouring::colourIntervals(intervals);
    int slotsUsed = 0;
    for (int slot : segment.slots)
      slotsUsed = std::max(slotsUsed, slot + 1);
    bool matmul = false;
    for (size_t i = a; i < b; ++i)
      matmul = matmul || chain.ops[i].name == "ttl.matmul";
    std::optional<Subblock> sub = chooseSubblock(segment.blockRows, segment.blockCols,
                                                 capacity / std::max(slotsUsed, 1), matmul);
    segment.subblockRows = sub->rows; // 1 x 1 fits: every range was checked above
    segment.subblockCols = sub->cols;
    segment.rounds = (segment.blockRows / sub->rows) * (segment.blockCols / sub->cols);
    segment.peakTiles = slotsUsed * sub->rows * sub->cols;
    solution.rounds += segment.rounds;
    solution.peakTiles = std::max(solution.peakTiles, segment.peakTiles);
    // One intermediate CB per value of this segment that a later op reads (from DST or streamed).
    std::vector<char> later(def.size(), 0);
    for (size_t i = b; i < n; ++i)
      for (ValueId x : chain.ops[i].inputs)
        later[static_cast<size_t>(x)] = 1;
    for (size_t v = 0; v < def.size(); ++v)
      if (def[v] >= static_cast<int64_t>(a) && def[v] < static_cast<int64_t>(b) && later[v]) {
        IntermediateCb cb;
        cb.afterOp = b - 1;
        cb.value = static_cast<ValueId>(v);
        std::tie(cb.rows, cb.cols) = outputBlock(chain, chain.ops[static_cast<size_t>(def[v])]);
        cb.tiles = cb.rows * cb.cols;
        cb.bytes = cb.tiles * problem.intermediateTileBytes;
        solution.intermediates.push_back(cb);
      }
    solution.segments.push_back(std::move(segment));
  }
  result.status = SolveStatus::Optimal;
  const Segment& first = solution.segments.front();
  if (solution.segments.size() == 1) {
    result.message = "sub-block " + std::to_string(first.subblockRows) + "x" +
                     std::to_string(first.subblockCols) + ", " + std::to_string(solution.rounds) +
                     " rounds, " + std::to_string(solution.peakTiles) + " of " +
                     std::to_string(capacity) + " DST tiles";
  } else {
    int64_t bytes = 0;
    for (const IntermediateCb& cb : solution.intermediates)
      bytes += cb.bytes;
    std::string why;
    if (forcingOps > 0)
      why = std::to_string(forcingOps) + " op" + (forcingOps == 1 ? "" : "s") +
            " reading computed values as CB operands or changing the block";
    if (result.exceedingOp)
      why += (why.empty() ? "" : "; ") + opName(problem, *result.exceedingOp) + " has " +
             std::to_string(result.liveAtExceedingOp) + " live values, capacity " +
             std::to_string(capacity);
    result.message = why + ": split into " + std::to_string(solution.segments.size()) +
                     " segments, " + std::to_string(solution.intermediates.size()) +
                     " intermediate CBs (" + std::to_string(bytes) + " B), " +
                     std::to_string(solution.rounds) + " rounds";
  }
  result.solution = std::move(solution);
  return finish(std::move(result));
}

Result solve(const Problem& problem, const SolveLimits& /*limits: the solve is polynomial*/) {
  return guardedSolve<Result>("dst", [&] { return solveUnguarded(problem); });
}

} // namespace ttlplan::planner::dst
