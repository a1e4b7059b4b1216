#pragma once
// The exact L1 placement solver: our own branch and bound (in the class of google/minimalloc).
// Every pruning rule is a named flag so that tests can switch each one off and measure it.
//
// Search model (docs/l1-exact-solver.md): a node chooses which unplaced buffer goes next; it is
// put on top of everything already placed that is live at the same time (the lowest aligned
// offset above the placed buffers' tops). Every placement can be pushed down ("gravity") until
// each buffer rests on another one or on 0 without raising the peak, and listing such a
// gravity-tight placement by increasing offset is one path of this tree, so the tree holds an
// optimum. Each rule below keeps that path (or another optimal one) alive.
#include "ttlplan/planner/l1/Problem.h"

namespace ttlplan::planner::l1 {

struct ExactParams {
  /// Canonical order: buffers are placed by non-decreasing offset, equal offsets by static rank.
  /// Prunes every other order of the same placement. Safe: the offset-sorted order of a
  /// gravity-tight optimum is one of the kept orders.
  bool canonicalOrder = true;
  /// Section bound: in every time section, the floor plus the bytes of the unplaced buffers live
  /// there must fit in the capacity. Prunes partial placements that cannot be completed. Safe:
  /// the tree puts every later buffer above the section's floor, so those bytes all lie above it.
  bool sectionBound = true;
  /// Unusable-gap floor: a section's floor rises to the least possible offset of its unplaced
  /// buffers, since no later buffer can use the bytes below (they only go up). Tightens the
  /// section bound. Safe for the same reason as the section bound.
  bool unusableGapFloor = true;
  /// Monotonic floor (needs canonicalOrder): every section's floor is at least the offset of the
  /// buffer placed last, because in canonical order every later buffer goes at or above it.
  /// Tightens the section bound; ignored when canonicalOrder is off (it would not be safe).
  bool monotonicFloor = true;
  /// Gap dominance: skip a candidate whose offset is at or above the top of some unplaced buffer
  /// at its least offset; that buffer would fit in the gap below, and the placement with it moved
  /// down is no worse. Safe: a gravity-tight optimum never leaves such a gap.
  bool gapDominance = true;
  /// Decomposition: split the buffers into groups with disjoint lifetimes (at the start, and
  /// again whenever every buffer crossing a section boundary has been placed) and solve each group
  /// on its own; a failing group fails the branch without trying the other groups' alternatives.
  /// Safe: groups that are never live together cannot interact.
  bool decomposition = true;
  /// Dynamic ordering: try candidates by least offset first (then static rank) instead of by static
  /// rank alone. Finds placements sooner and reaches feasible leaves with less backtracking.
  bool dynamicOrdering = true;
  /// Restarts: run the search with three buffer rankings in turn under a node budget that
  /// doubles each round (as minimalloc does), instead of one ranking without a budget. A complete
  /// run of any ranking is a proof, so exactness is kept; a bad first ranking stops costing.
  bool restarts = true;
  /// Re-ranking (needs decomposition): each group split off during the search is ranked afresh
  /// under the current ranking, with the bytes still unplaced in its sections (instead of keeping
  /// the ranks computed from all bytes at the start), as minimalloc does. Ordering only: equal
  /// offsets in a new group are then not ordered against the buffer placed before the split,
  /// which keeps canonicalOrder safe. Turns H and I of the challenging set from unsolved in 60 s
  /// into solved in about a second.
  bool rerankGroups = true;

  bool operator==(const ExactParams&) const = default;
};

/// Minimises the peak (capacity 0), or decides feasibility within the capacity. Honours both
/// limits; on a limit returns the best solution found so far with its proven lower bound.
/// Minimising searches the capacity: first the live-bytes lower bound, then bisection between the
/// proven lower bound and the best peak found. Deterministic for the same input and node limit.
Result solveExact(const Problem& problem, const ExactParams& params = {},
                  const SolveLimits& limits = {});

} // namespace ttlplan::planner::l1
