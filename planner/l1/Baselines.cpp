#include "ttlplan/planner/l1/Baselines.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>

namespace ttlplan::planner::l1 {

namespace {

int64_t alignUp(int64_t value, int64_t alignment) {
  int64_t rem = value % alignment;
  return rem == 0 ? value : value + (alignment - rem);
}

bool liveTogether(const Buffer& a, const Buffer& b) {
  return a.lower < b.upper && b.lower < a.upper;
}

struct Interval {
  int64_t begin, end;
};

/// The lowest aligned offset at or above 0 whose [offset, offset + size) misses every interval.
int64_t firstFit(std::vector<Interval>& used, int64_t size, int64_t alignment) {
  std::sort(used.begin(), used.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  int64_t candidate = 0;
  for (const Interval& interval : used) {
    if (candidate + size <= interval.begin) break;
    candidate = std::max(candidate, alignUp(interval.end, alignment));
  }
  return candidate;
}

/// The gap between merged intervals (or above all of them) that fits with the least slack.
int64_t bestFit(std::vector<Interval>& used, int64_t size, int64_t alignment) {
  std::sort(used.begin(), used.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  int64_t bestOffset = -1;
  int64_t bestSlack = std::numeric_limits<int64_t>::max();
  int64_t gapBegin = 0;
  auto consider = [&](int64_t gapEnd) {
    int64_t offset = alignUp(gapBegin, alignment);
    if (offset + size <= gapEnd && gapEnd - gapBegin - size < bestSlack) {
      bestSlack = gapEnd - gapBegin - size;
      bestOffset = offset;
    }
  };
  for (const Interval& interval : used) {
    if (interval.begin > gapBegin) consider(interval.begin);
    gapBegin = std::max(gapBegin, interval.end);
  }
  if (bestOffset >= 0) return bestOffset;
  return alignUp(gapBegin, alignment); // the open space above everything
}

Result runBaseline(const Problem& problem, Fit fit, const char* name, const SolveLimits& limits) {
  auto start = std::chrono::steady_clock::now();
  Deadline deadline = Deadline::in(limits.timeLimitSeconds);
  Result result = guardedSolve<Result>(name, [&] {
    Result result;
    result.stats.solver = name;
    std::vector<size_t> order = decreasingSizeOrder(problem);
    std::optional<Solution> placed = placeInOrder(problem, order, fit, deadline);
    result.lowerBound = maxLiveBytes(problem).bytes;
    if (!placed) {
      result.status = SolveStatus::NoSolution;
      result.message = std::string(name) + " reached the time limit before placing every buffer";
      return result;
    }
    Solution& solution = *placed;
    if (problem.capacity > 0 && solution.peak > problem.capacity) {
      result.status = SolveStatus::NoSolution;
      result.message = std::string(name) + " needs " + std::to_string(solution.peak) +
                       " B, over the capacity of " + std::to_string(problem.capacity) +
                       " B (a heuristic proves nothing about infeasibility)";
    } else {
      result.status =
          solution.peak == result.lowerBound ? SolveStatus::Optimal : SolveStatus::Feasible;
      result.solution = std::move(solution);
    }
    return result;
  });
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace

LiveBytes maxLiveBytes(const Problem& problem, std::span<const size_t> subset) {
  // (time, delta): at one time step the ends (negative) sort before the starts, as lifetimes are
  // half-open.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * subset.size());
  for (size_t i : subset) {
    const Buffer& b = problem.buffers[i];
    events.emplace_back(b.lower, b.size);
    events.emplace_back(b.upper, -b.size);
  }
  std::sort(events.begin(), events.end());
  LiveBytes best;
  int64_t live = 0;
  for (const auto& [time, delta] : events) {
    live += delta;
    if (live > best.bytes) best = {live, time};
  }
  return best;
}

LiveBytes maxLiveBytes(const Problem& problem) {
  std::vector<size_t> all(problem.buffers.size());
  std::iota(all.begin(), all.end(), size_t(0));
  return maxLiveBytes(problem, all);
}

std::vector<size_t> decreasingSizeOrder(const Problem& problem) {
  std::vector<size_t> order(problem.buffers.size());
  std::iota(order.begin(), order.end(), size_t(0));
  const std::vector<Buffer>& buffers = problem.buffers;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].size != buffers[b].size) return buffers[a].size > buffers[b].size;
    if (buffers[a].id != buffers[b].id) return buffers[a].id < buffers[b].id;
    return a < b;
  });
  return order;
}

Solution placeInOrder(const Problem& problem, std::span<const size_t> order, Fit fit) {
  return *placeInOrder(problem, order, fit, Deadline{});
}

std::optional<Solution> placeInOrder(const Problem& problem, std::span<const size_t> order, Fit fit,
                                     const Deadline& deadline) {
  const std::vector<Buffer>& buffers = problem.buffers;
  Solution solution;
  solution.offsets.assign(buffers.size(), 0);
  std::vector<size_t> placed;
  placed.reserve(order.size());
  std::vector<Interval> used;
  for (size_t i : order) {
    if (deadline.passed()) return std::nullopt;
    const Buffer& b = buffers[i];
    used.clear();
    for (size_t j : placed)
      if (liveTogether(b, buffers[j]))
        used.push_back({solution.offsets[j], solution.offsets[j] + buffers[j].size});
    int64_t alignment = std::max<int64_t>(1, b.alignment);
    int64_t offset =
        fit == Fit::First ? firstFit(used, b.size, alignment) : bestFit(used, b.size, alignment);
    solution.offsets[i] = offset;
    solution.peak = std::max(solution.peak, offset + b.size);
    placed.push_back(i);
  }
  return solution;
}

Result firstFitDecreasing(const Problem& problem, const SolveLimits& limits) {
  return runBaseline(problem, Fit::First, "first-fit-decreasing", limits);
}

Result bestFitDecreasing(const Problem& problem, const SolveLimits& limits) {
  return runBaseline(problem, Fit::Best, "best-fit-decreasing", limits);
}

} // namespace ttlplan::planner::l1
