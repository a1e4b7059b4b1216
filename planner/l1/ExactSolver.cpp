// The exact L1 placement solver (see ExactSolver.h and docs/l1-exact-solver.md).
//
// Decision search: with a capacity C, is there a placement with every offset + size <= C? A node
// picks the next buffer; the buffer goes at its least offset (the lowest aligned offset above the
// tops of the placed buffers live at the same time). The timeline is cut into sections at every
// lower/upper; each section keeps a floor (top of what is placed there, raised by the rules) and
// the bytes still unplaced there. Minimising the peak is a sequence of decisions: the live-bytes
// lower bound first, then bisection between the proven bound and the best peak found.
#include "ttlplan/planner/l1/ExactSolver.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <numeric>
#include <string>

namespace ttlplan::planner::l1 {
namespace {

using Clock = std::chrono::steady_clock;

enum class Outcome {
  Found,    ///< a placement within the capacity
  NotFound, ///< proven: none exists (in this subtree)
  Limit,    ///< the caller's node or time limit ran out
  RunOut,   ///< this restart's node budget ran out (nothing proven; try the next ranking)
};

/// The caller's limits and the node count over every search of one solveExact call.
struct Budget {
  int64_t nodes = 0;
  int64_t nodeLimit = 0;
  double timeLimit = 0;
  Clock::time_point start = Clock::now();
  bool hit = false;

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
  /// Whether the time limit has passed (and from then on).
  bool outOfTime() {
    if (!hit && timeLimit > 0 && elapsed() > timeLimit) hit = true;
    return hit;
  }
  /// Counts one node; false once a limit is reached (and from then on).
  bool charge() {
    if (hit) return false;
    if (nodeLimit > 0 && nodes >= nodeLimit) return (hit = true, false);
    if ((nodes & 255) == 0 && outOfTime()) return false;
    ++nodes;
    return true;
  }
};

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

int64_t roundUp(int64_t value, int64_t alignment) {
  if (alignment == 1) return value;
  const int64_t rem = value % alignment;
  return rem == 0 ? value : value + (alignment - rem);
}

/// Static facts about the instance: sections, overlaps, keys for the rankings.
struct Instance {
  size_t n = 0;
  std::vector<int64_t> size, align;
  std::vector<int> secLo, secHi;                // buffer i lives in sections [secLo, secHi)
  std::vector<std::vector<int>> overlaps;       // buffers live at the same time as i
  std::vector<std::vector<int>> sectionBuffers; // buffers live in each section
  std::vector<int64_t> sectionBytes;            // bytes live in each section
  std::vector<int> crossing;                    // buffers live in both s and s + 1
  std::vector<int64_t> length, area;            // lifetime length and size * length
  int64_t liveBound = 0;                        // max bytes live at one time
  bool complete = false; // false when the time limit passed while building (quadratic in n)

  Instance(const Problem& problem, Budget& budget) : n(problem.buffers.size()) {
    std::vector<int64_t> points;
    for (const Buffer& b : problem.buffers) {
      points.push_back(b.lower);
      points.push_back(b.upper);
      size.push_back(b.size);
      align.push_back(b.alignment);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    const size_t sections = points.empty() ? 0 : points.size() - 1;
    sectionBuffers.resize(sections);
    sectionBytes.assign(sections, 0);
    crossing.assign(sections, 0);
    auto indexOf = [&](int64_t t) {
      return static_cast<int>(std::lower_bound(points.begin(), points.end(), t) - points.begin());
    };
    for (size_t i = 0; i < n; ++i) {
      if (budget.outOfTime()) return;
      secLo.push_back(indexOf(problem.buffers[i].lower));
      secHi.push_back(indexOf(problem.buffers[i].upper));
      for (int s = secLo[i]; s < secHi[i]; ++s) {
        sectionBuffers[s].push_back(static_cast<int>(i));
        sectionBytes[s] += size[i];
        if (s + 1 < secHi[i]) ++crossing[s];
      }
    }
    for (int64_t bytes : sectionBytes)
      liveBound = std::max(liveBound, bytes);
    overlaps.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (budget.outOfTime()) return;
      for (size_t j = i + 1; j < n; ++j)
        if (secLo[i] < secHi[j] && secLo[j] < secHi[i]) {
          overlaps[i].push_back(static_cast<int>(j));
          overlaps[j].push_back(static_cast<int>(i));
        }
    }
    for (size_t i = 0; i < n; ++i) {
      length.push_back(problem.buffers[i].upper - problem.buffers[i].lower);
      // Only a ranking key: saturate rather than overflow (sizes reach 2^52, lengths 2^32).
      bool huge = size[i] > std::numeric_limits<int64_t>::max() / length[i];
      area.push_back(huge ? std::numeric_limits<int64_t>::max() : size[i] * length[i]);
    }
    complete = true;
  }
};

/// Static rankings: keys by priority, among 0 = total (bytes still unplaced in the busiest
/// section), 1 = area, 2 = lifetime length.
constexpr int kHeuristicCount = 3;
constexpr std::array<std::array<int, 3>, kHeuristicCount> kHeuristics = {
    {{0, 1, 2}, {2, 1, 0}, {0, 2, 1}}};

/// One decision search for one capacity. All state changes are undone on return; offsets of
/// every buffer are written to `solution` when placed, so after Found it holds the placement.
class Search {
public:
  Search(const Instance& inst, const ExactParams& params, Budget& budget, int64_t capacity)
      : inst_(inst), params_(params), budget_(budget), capacity_(capacity), offset_(inst.n, -1),
        minOffset_(inst.n, 0), floor_(inst.sectionBytes.size(), 0),
        unplacedBytes_(inst.sectionBytes), crossing_(inst.crossing),
        stamp_(inst.sectionBytes.size(), 0) {
    solution.assign(inst.n, 0);
    rank_.assign(inst.n, 0);
    // Per-section lists of the unplaced buffers (sparse sets: placing a buffer swaps it past the
    // end of each of its sections' lists; undoing in reverse order just grows the lists back).
    const size_t sections = inst.sectionBytes.size();
    listBase_.assign(sections + 1, 0);
    listSize_.assign(sections, 0);
    for (size_t s = 0; s < sections; ++s) {
      listBase_[s + 1] = listBase_[s] + static_cast<int>(inst.sectionBuffers[s].size());
      listSize_[s] = static_cast<int>(inst.sectionBuffers[s].size());
    }
    list_.resize(static_cast<size_t>(listBase_[sections]));
    posBase_.assign(inst.n + 1, 0);
    for (size_t i = 0; i < inst.n; ++i)
      posBase_[i + 1] = posBase_[i] + (inst.secHi[i] - inst.secLo[i]);
    pos_.resize(static_cast<size_t>(posBase_[inst.n]));
    for (size_t s = 0; s < sections; ++s)
      for (size_t k = 0; k < inst.sectionBuffers[s].size(); ++k) {
        const int i = inst.sectionBuffers[s][k];
        list_[static_cast<size_t>(listBase_[s]) + k] = i;
        pos_[static_cast<size_t>(posBase_[i] + static_cast<int>(s) - inst.secLo[i])] =
            static_cast<int>(k);
      }
    sectionLeast_.assign(inst.sectionBytes.size(), kNone);
    for (size_t s = 0; s < sectionLeast_.size(); ++s)
      if (!inst.sectionBuffers[s].empty()) sectionLeast_[s] = 0;
  }

  /// Solves every independent group; on NotFound, `failedGroup` names the group that failed.
  Outcome run() {
    const int sections = static_cast<int>(inst_.sectionBytes.size());
    int begin = 0;
    for (int s = 0; s < sections; ++s) {
      const bool cut = s + 1 == sections || (params_.decomposition && crossing_[s] == 0);
      if (!cut) continue;
      std::vector<int> group;
      for (size_t i = 0; i < inst_.n; ++i)
        if (inst_.secLo[i] >= begin && inst_.secLo[i] <= s) group.push_back(static_cast<int>(i));
      const int end = s + 1;
      if (!group.empty()) {
        const Outcome outcome = runGroup(group, begin, end);
        if (outcome != Outcome::Found) {
          failedGroup = std::move(group);
          return outcome;
        }
      }
      begin = end;
    }
    return Outcome::Found;
  }

  std::vector<int64_t> solution;
  std::vector<int> failedGroup;

private:
  /// Restarts: three rankings in turn, each under a node budget that doubles every round.
  Outcome runGroup(const std::vector<int>& group, int lo, int hi) {
    if (!params_.restarts) {
      heuristic_ = 0;
      rankGroup(group);
      runLeft_ = -1;
      return search(group, lo, hi, 0, -1);
    }
    for (int64_t budget = 2 * static_cast<int64_t>(group.size());; budget *= 2) {
      for (int h = 0; h < kHeuristicCount; ++h) {
        heuristic_ = h;
        rankGroup(group);
        runLeft_ = budget;
        const Outcome outcome = search(group, lo, hi, 0, -1);
        if (outcome != Outcome::RunOut) return outcome;
      }
    }
  }

  /// Ranks the buffers of `group` (rank_[i], 0 first) under the current heuristic: big first by
  /// three keys among "total" (the most bytes still unplaced in a section the buffer lives in),
  /// area and lifetime length, then by index.
  void rankGroup(const std::vector<int>& group) {
    scratch_.clear();
    for (int i : group) {
      int64_t total = 0;
      for (int s = inst_.secLo[i]; s < inst_.secHi[i]; ++s)
        total = std::max(total, unplacedBytes_[s]);
      scratch_.push_back({{total, inst_.area[i], inst_.length[i]}, i});
    }
    const std::array<int, 3>& order = kHeuristics[heuristic_];
    std::sort(scratch_.begin(), scratch_.end(), [&](const Keyed& a, const Keyed& b) {
      for (int k : order)
        if (a.key[k] != b.key[k]) return a.key[k] > b.key[k];
      return a.buffer < b.buffer;
    });
    for (size_t r = 0; r < scratch_.size(); ++r)
      rank_[scratch_[r].buffer] = static_cast<int>(r);
  }

  struct Candidate {
    int64_t offset;
    int rank;
    int buffer;
  };

  Outcome search(const std::vector<int>& group, int lo, int hi, int64_t lastOffset, int lastRank) {
    if (!budget_.charge()) return Outcome::Limit;
    if (runLeft_ == 0) return Outcome::RunOut;
    if (runLeft_ > 0) --runLeft_;
    std::vector<Candidate> candidates;
    for (int i : group)
      if (offset_[i] < 0) candidates.push_back({minOffset_[i], rank_[i], i});
    if (candidates.empty()) return Outcome::Found;
    if (params_.dynamicOrdering)
      std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.offset != b.offset ? a.offset < b.offset : a.rank < b.rank;
      });
    else
      std::sort(candidates.begin(), candidates.end(),
                [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });
    int64_t lowestTop = std::numeric_limits<int64_t>::max();
    for (const Candidate& c : candidates)
      lowestTop = std::min(lowestTop, c.offset + inst_.size[c.buffer]);
    for (const Candidate& c : candidates) {
      if (params_.canonicalOrder &&
          (c.offset < lastOffset || (c.offset == lastOffset && c.rank < lastRank)))
        continue;
      if (params_.gapDominance && c.offset >= lowestTop) continue;
      if (c.offset + inst_.size[c.buffer] > capacity_) continue;
      const Marks mark = marks();
      place(c.buffer, c.offset);
      Outcome outcome = Outcome::NotFound;
      if (check(lo, hi, c.offset)) outcome = descend(group, lo, hi, c);
      unplace(c.buffer, mark);
      if (outcome != Outcome::NotFound) return outcome;
    }
    return Outcome::NotFound;
  }

  /// After placing c: split the group where no unplaced buffer crosses a section boundary any
  /// more (decomposition), else go on with the same group.
  Outcome descend(const std::vector<int>& group, int lo, int hi, const Candidate& c) {
    std::vector<int> cuts;
    if (params_.decomposition)
      for (int s = inst_.secLo[c.buffer]; s + 1 < inst_.secHi[c.buffer]; ++s)
        if (crossing_[s] == 0) cuts.push_back(s + 1);
    if (cuts.empty()) return search(group, lo, hi, c.offset, c.rank);
    cuts.push_back(hi);
    int begin = lo;
    for (int end : cuts) {
      std::vector<int> part;
      for (int i : group)
        if (offset_[i] < 0 && inst_.secLo[i] < end && begin < inst_.secHi[i]) part.push_back(i);
      if (!part.empty()) {
        // Every buffer of every part comes after c in the canonical order, so c's offset still
        // bounds them. With re-ranking the part gets its own ranks (restored afterwards), so
        // equal offsets are no longer ordered against c.
        Outcome outcome;
        if (params_.rerankGroups) {
          const size_t mark = rankLog_.size();
          for (int i : part)
            rankLog_.push_back({i, rank_[i]});
          rankGroup(part);
          outcome = search(part, begin, end, c.offset, -1);
          for (size_t k = rankLog_.size(); k-- > mark;)
            rank_[rankLog_[k].first] = rankLog_[k].second;
          rankLog_.resize(mark);
        } else {
          outcome = search(part, begin, end, c.offset, c.rank);
        }
        if (outcome != Outcome::Found) return outcome;
      }
      begin = end;
    }
    return Outcome::Found;
  }

  void place(int i, int64_t offset) {
    offset_[i] = offset;
    solution[i] = offset;
    const int64_t top = offset + inst_.size[i];
    const bool gapFloor = params_.unusableGapFloor;
    ++epoch_;
    dirty_.clear();
    // Sections whose least unplaced offset may change: those where a changed buffer had it.
    auto markSections = [&](int j, int64_t before) {
      for (int s = inst_.secLo[j]; s < inst_.secHi[j]; ++s)
        if (before == sectionLeast_[s] && stamp_[s] != epoch_) {
          stamp_[s] = epoch_;
          dirty_.push_back(s);
        }
    };
    if (gapFloor) markSections(i, offset);
    for (int j : inst_.overlaps[i]) {
      if (offset_[j] >= 0) continue;
      const int64_t raised = roundUp(top, inst_.align[j]);
      if (raised <= minOffset_[j]) continue;
      if (gapFloor) markSections(j, minOffset_[j]);
      offsetLog_.push_back({j, minOffset_[j]});
      minOffset_[j] = raised;
    }
    for (int s = inst_.secLo[i]; s < inst_.secHi[i]; ++s) {
      floorLog_.push_back({s, floor_[s]});
      floor_[s] = std::max(floor_[s], top);
      unplacedBytes_[s] -= inst_.size[i];
      if (s + 1 < inst_.secHi[i]) --crossing_[s];
      // Swap i with the last unplaced buffer of the section and shrink the list.
      int* list = &list_[static_cast<size_t>(listBase_[s])];
      const int last = --listSize_[s];
      int& posI = pos_[static_cast<size_t>(posBase_[i] + s - inst_.secLo[i])];
      const int other = list[last];
      pos_[static_cast<size_t>(posBase_[other] + s - inst_.secLo[other])] = posI;
      list[posI] = other;
      list[last] = i;
      posI = last;
    }
    for (int s : dirty_) {
      int64_t least = kNone;
      const int* list = &list_[static_cast<size_t>(listBase_[s])];
      for (int k = 0, count = listSize_[s]; k < count; ++k)
        least = std::min(least, minOffset_[list[k]]);
      leastLog_.push_back({s, sectionLeast_[s]});
      sectionLeast_[s] = least;
      if (least != kNone && least > floor_[s]) {
        floorLog_.push_back({s, floor_[s]});
        floor_[s] = least;
      }
    }
  }

  struct Marks {
    size_t offsets, floors, least;
  };
  Marks marks() const { return {offsetLog_.size(), floorLog_.size(), leastLog_.size()}; }

  void unplace(int i, const Marks& mark) {
    while (leastLog_.size() > mark.least) {
      sectionLeast_[leastLog_.back().first] = leastLog_.back().second;
      leastLog_.pop_back();
    }
    while (floorLog_.size() > mark.floors) {
      floor_[floorLog_.back().first] = floorLog_.back().second;
      floorLog_.pop_back();
    }
    while (offsetLog_.size() > mark.offsets) {
      minOffset_[offsetLog_.back().first] = offsetLog_.back().second;
      offsetLog_.pop_back();
    }
    for (int s = inst_.secLo[i]; s < inst_.secHi[i]; ++s) {
      unplacedBytes_[s] += inst_.size[i];
      if (s + 1 < inst_.secHi[i]) ++crossing_[s];
      ++listSize_[s]; // i lies just past the end: placements after it were undone first
    }
    offset_[i] = -1;
  }

  /// The section bound: can every section of the group still hold its unplaced bytes?
  bool check(int lo, int hi, int64_t lastOffset) const {
    const bool monotonic = params_.monotonicFloor && params_.canonicalOrder;
    for (int s = lo; s < hi; ++s) {
      int64_t floor = floor_[s];
      if (monotonic) floor = std::max(floor, lastOffset);
      if (params_.sectionBound) floor += unplacedBytes_[s];
      if (floor > capacity_) return false;
    }
    return true;
  }

  const Instance& inst_;
  const ExactParams& params_;
  Budget& budget_;
  const int64_t capacity_;
  int heuristic_ = 0;
  std::vector<int> rank_;
  struct Keyed {
    std::array<int64_t, 3> key;
    int buffer;
  };
  std::vector<Keyed> scratch_;
  std::vector<std::pair<int, int>> rankLog_;
  int64_t runLeft_ = -1;
  std::vector<int64_t> offset_, minOffset_, floor_, unplacedBytes_;
  std::vector<int> crossing_;
  std::vector<int64_t> sectionLeast_; // least offset of the unplaced buffers in each section
  std::vector<uint32_t> stamp_;
  uint32_t epoch_ = 0;
  std::vector<int> dirty_;
  std::vector<int> list_, listBase_, listSize_; // unplaced buffers of each section
  std::vector<int> pos_, posBase_;              // where buffer i sits in section s's list
  std::vector<std::pair<int, int64_t>> offsetLog_, floorLog_, leastLog_;
};

int64_t peakOf(const Problem& problem, const std::vector<int64_t>& offsets) {
  int64_t peak = 0;
  for (size_t i = 0; i < offsets.size(); ++i)
    peak = std::max(peak, offsets[i] + problem.buffers[i].size);
  return peak;
}

/// What a run of decisions established about the least peak.
struct Minimum {
  int64_t lowerBound = 0;
  std::optional<std::vector<int64_t>> best; ///< offsets with the least peak found
  int64_t bestPeak = 0;
  bool proven() const { return best && bestPeak == lowerBound; }
};

/// Minimises the peak, starting from a proven lower bound `lowerBound`.
Minimum minimise(const Problem& problem, const Instance& inst, const ExactParams& params,
                 Budget& budget, int64_t lowerBound) {
  Minimum result;
  result.lowerBound = lowerBound;
  auto decide = [&](int64_t capacity) {
    Search search(inst, params, budget, capacity);
    const Outcome outcome = search.run();
    if (outcome == Outcome::Found) {
      const int64_t peak = peakOf(problem, search.solution);
      if (!result.best || peak < result.bestPeak) {
        result.best = search.solution;
        result.bestPeak = peak;
      }
    } else if (outcome == Outcome::NotFound) {
      result.lowerBound = std::max(result.lowerBound, capacity + 1);
    }
    return outcome;
  };
  // Stacking every buffer on top of each other fits in this; the first dive finds a placement.
  int64_t loose = 0;
  for (size_t i = 0; i < inst.n; ++i)
    loose += inst.size[i] + inst.align[i];
  if (decide(std::max(loose, lowerBound)) == Outcome::Limit) return result;
  if (result.proven()) return result;
  if (decide(result.lowerBound) == Outcome::Limit) return result;
  while (!result.proven()) {
    const int64_t lo = result.lowerBound, hi = result.bestPeak - 1;
    if (decide(lo + (hi - lo) / 2) == Outcome::Limit) break;
  }
  return result;
}

Solution makeSolution(const Problem& problem, std::vector<int64_t> offsets) {
  Solution solution;
  solution.peak = peakOf(problem, offsets);
  solution.offsets = std::move(offsets);
  return solution;
}

/// A minimal set of buffers live in the busiest section that exceeds the capacity: the largest
/// first until the sum exceeds it (dropping any one, at least the smallest, brings it under).
Infeasibility busiestSectionBlock(const Instance& inst, int64_t capacity) {
  Infeasibility why;
  size_t busiest = 0;
  for (size_t s = 0; s < inst.sectionBytes.size(); ++s)
    if (inst.sectionBytes[s] > inst.sectionBytes[busiest]) busiest = s;
  std::vector<int> live = inst.sectionBuffers[busiest];
  std::stable_sort(live.begin(), live.end(),
                   [&](int a, int b) { return inst.size[a] > inst.size[b]; });
  for (int i : live) {
    why.blockingBuffers.push_back(static_cast<size_t>(i));
    why.blockingBytes += inst.size[i];
    if (why.blockingBytes > capacity) break;
  }
  std::sort(why.blockingBuffers.begin(), why.blockingBuffers.end());
  return why;
}

} // namespace

Result solveExact(const Problem& problem, const ExactParams& params, const SolveLimits& limits) {
  Result result;
  result.stats.solver = "exact";
  Budget budget;
  budget.nodeLimit = limits.nodeLimit;
  budget.timeLimit = limits.timeLimitSeconds;
  auto finish = [&](Result r) {
    r.stats.nodes = budget.nodes;
    r.stats.seconds = budget.elapsed();
    return r;
  };
  if (Status ok = checkProblem(problem); !ok) {
    result.status = SolveStatus::Error;
    result.message = ok.error().message;
    return finish(std::move(result));
  }
  const Instance inst(problem, budget);
  if (!inst.complete) {
    result.status = SolveStatus::NoSolution;
    result.message = "time limit reached while indexing the buffers' overlaps";
    return finish(std::move(result));
  }
  result.lowerBound = inst.liveBound;

  if (problem.capacity == 0) {
    const Minimum min = minimise(problem, inst, params, budget, inst.liveBound);
    result.lowerBound = min.lowerBound;
    if (min.best) {
      result.solution = makeSolution(problem, *min.best);
      result.status = min.proven() ? SolveStatus::Optimal : SolveStatus::Feasible;
      result.message =
          "peak " + std::to_string(min.bestPeak) +
          (min.proven() ? " (optimal)"
                        : ", limit reached; lower bound " + std::to_string(min.lowerBound));
    } else {
      result.status = SolveStatus::NoSolution;
      result.message = "limit reached before any placement was found";
    }
    return finish(std::move(result));
  }

  // Decide feasibility within the capacity.
  std::optional<Infeasibility> why;
  int64_t proven = inst.liveBound;
  if (inst.liveBound > problem.capacity) {
    why = busiestSectionBlock(inst, problem.capacity);
  } else {
    Search search(inst, params, budget, problem.capacity);
    const Outcome outcome = search.run();
    if (outcome == Outcome::Found) {
      result.status = SolveStatus::Optimal;
      result.solution = makeSolution(problem, std::move(search.solution));
      result.message = "fits in " + std::to_string(problem.capacity) + " with peak " +
                       std::to_string(result.solution->peak);
      return finish(std::move(result));
    }
    if (outcome == Outcome::Limit) {
      result.status = SolveStatus::NoSolution;
      result.message = "limit reached before a placement within the capacity was found";
      return finish(std::move(result));
    }
    why.emplace();
    for (int i : search.failedGroup) {
      why->blockingBuffers.push_back(static_cast<size_t>(i));
      for (int s = inst.secLo[i]; s < inst.secHi[i]; ++s)
        why->blockingBytes = std::max(why->blockingBytes, inst.sectionBytes[s]);
    }
    std::sort(why->blockingBuffers.begin(), why->blockingBuffers.end());
    proven = problem.capacity + 1;
  }
  // Infeasible: find the smallest capacity that fits (within what is left of the limits).
  const Minimum min = minimise(problem, inst, params, budget, std::max(proven, inst.liveBound));
  why->smallestCapacity = min.best ? min.bestPeak : min.lowerBound;
  result.status = SolveStatus::Infeasible;
  result.lowerBound = min.lowerBound;
  result.message = "does not fit in " + std::to_string(problem.capacity) + "; " +
                   (min.proven() ? "the least capacity that fits is "
                                 : "limit reached; a capacity that fits is ") +
                   std::to_string(why->smallestCapacity);
  result.infeasibility = std::move(why);
  return finish(std::move(result));
}

} // namespace ttlplan::planner::l1
