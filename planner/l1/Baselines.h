#pragma once
// The placement heuristics that tt-lang / tt-mlir use today (docs/hardware-facts.md), kept as
// baselines: sort the buffers by size (largest first, ties by id, then by position) and place each
// one in turn. They never prove anything beyond what the live-bytes lower bound shows.
#include "ttlplan/planner/l1/Problem.h"
#include "ttlplan/support/Deadline.h"

#include <optional>
#include <span>

namespace ttlplan::planner::l1 {

/// The busiest time step: the most bytes live at once (a lower bound on every peak) and the
/// earliest time step where that many are live.
struct LiveBytes {
  int64_t bytes = 0;
  int64_t time = 0;
};
LiveBytes maxLiveBytes(const Problem& problem);
/// The same over a subset of the buffers (indices into problem.buffers).
LiveBytes maxLiveBytes(const Problem& problem, std::span<const size_t> subset);

enum class Fit {
  First, ///< the lowest aligned offset that fits
  Best,  ///< the free gap that leaves the least slack (the lowest such gap on ties)
};

/// Places the buffers in `order` (indices into problem.buffers, each at most once; others get
/// offset 0), each at the offset `fit` picks among buffers already placed and live at the same
/// time. Ignores the capacity. Returns the offsets and their peak.
Solution placeInOrder(const Problem& problem, std::span<const size_t> order, Fit fit);
/// The same, or nullopt when `deadline` passes first (it is quadratic in the buffers live
/// together: 30,000 overlapping buffers take minutes).
std::optional<Solution> placeInOrder(const Problem& problem, std::span<const size_t> order, Fit fit,
                                     const Deadline& deadline);

/// Decreasing size, ties by id, then by index: the order both baselines use.
std::vector<size_t> decreasingSizeOrder(const Problem& problem);

/// Feasible (Optimal only when the peak equals the live-bytes bound), or NoSolution when the
/// plan does not fit the capacity or the time limit passes first. Never throws.
Result firstFitDecreasing(const Problem& problem, const SolveLimits& limits = {});
Result bestFitDecreasing(const Problem& problem, const SolveLimits& limits = {});

} // namespace ttlplan::planner::l1
