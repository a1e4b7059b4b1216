#pragma once
// Multicast solvers: the exact rectangle cover (branch and bound), the greedy largest-rectangle
// baseline, semaphore id assignment, and the grouping of evaluated pipes into nets.
#include "ttlplan/planner/multicast/Problem.h"

#include <functional>

namespace ttlplan::planner::multicast {

enum class CoverMethod {
  Exact,  ///< fewest rectangles (branch and bound; Feasible when a limit stops the proof)
  Greedy, ///< baseline: repeatedly take the largest rectangle left; no sender exclusion trick
};

struct Options {
  CoverMethod cover = CoverMethod::Exact;
  /// Let nets with disjoint cores or disjoint lifetimes share semaphore ids. Off: every
  /// semaphore of the program gets its own id (what a planner without sharing does).
  bool shareSemaphores = true;
  /// Nodes per destination set (and per semaphore id search); seconds for the whole solve, every
  /// cover and the semaphore ids together. 0 = none.
  SolveLimits limits;
};

/// Plans every net. Never throws: bad input and conflicting nets give Error (with both source
/// locations), semaphores that cannot fit give Infeasible.
Result solve(const Problem& problem, const Options& options = {});

/// The cover of one destination set on its own (the building block of solve).
struct Cover {
  std::vector<Rect> rects; ///< pairwise disjoint; each delivers to a non-empty subset of dests
  bool optimal = false;    ///< proven fewest
  int lowerBound = 0;
  int64_t nodes = 0;
};
/// `dests` must lie in the grid; the sender may be anywhere in it. Rectangles never span a gap of
/// `noc` unless allowGaps. Returns no rectangles when the input is not valid.
Cover coverSet(int rows, int cols, const NocMapping& noc, bool allowGaps,
               const std::vector<Core>& dests, Core sender, CoverMethod method,
               const SolveLimits& limits = {});

/// The NoC rectangle of a logical rectangle (see NocRect).
NocRect toNoc(const NocMapping& noc, const Rect& logical, int nocIndex);

/// "" when the mapping suits a rows x cols grid (sizes match, each axis strictly monotonic);
/// otherwise what is wrong.
std::string checkMapping(const NocMapping& noc, int rows, int cols);

/// A pipe as the kernel writes it, evaluated on one core: its sender and logical destination
/// rectangle there.
struct PipeEnds {
  Core src;
  Rect dst;
};
/// A pipe of the kernel with the function that evaluates its coordinates on a core (nullopt where
/// the pipe does not exist on that core).
struct PipeSpec {
  std::string id;
  std::string location;
  int source = -1; ///< copied into PipeNet::source
  int noc = 0;
  int64_t dstAddress = 0;
  int64_t lower = 0;
  int64_t upper = 1;
  std::function<std::optional<PipeEnds>(Core)> evaluate;
};
struct NetsResult {
  std::vector<PipeNet> nets;
  std::string error; ///< empty on success; otherwise names the pipe's location
};
/// Evaluates every pipe on every core of the grid (row-major) and groups the results into nets:
/// one net per (pipe, sender, destination rectangle), in first-seen order. Two different
/// rectangles of one pipe and one sender that overlap are an error (the same core would receive
/// twice), as are coordinates outside the grid.
NetsResult buildNets(int rows, int cols, const std::vector<PipeSpec>& pipes);

} // namespace ttlplan::planner::multicast
