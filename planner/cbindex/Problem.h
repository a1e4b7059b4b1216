#pragma once
// CB indices (docs/architecture.md, planner sub-problem 2): every circular buffer of a program
// needs a hardware CB index in [0, limit) (32 on Wormhole, 64 on Blackhole), and CBs that are live
// together need different indices. That is graph colouring of the conflict graph; when the
// conflicts come from lifetime intervals the graph is an interval graph and colouring is easy.
#include "ttlplan/planner/SolveStatus.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttlplan::planner::cbindex {

struct Cb {
  std::string id;       ///< name for reports (the CB's SSA name)
  int64_t lower = 0;    ///< first time step the CB is live (ConflictSource::Intervals)
  int64_t upper = 0;    ///< one past the last live step: live over [lower, upper)
  int preassigned = -1; ///< a fixed index the plan must keep; -1 when free
};

/// Where the conflict graph comes from.
enum class ConflictSource {
  Intervals, ///< two CBs conflict when their [lower, upper) intervals intersect
  List,      ///< Problem::conflicts lists the conflicting pairs; lower/upper are ignored
};

struct Problem {
  std::vector<Cb> cbs;
  ConflictSource source = ConflictSource::Intervals;
  /// Conflicting pairs (indices into cbs) for ConflictSource::List; order and duplicates do not
  /// matter. Ignored for ConflictSource::Intervals.
  std::vector<std::pair<size_t, size_t>> conflicts;
  int limit = 32; ///< indices available: 32 (Wormhole) or 64 (Blackhole); >= 1
};

/// indices[i] is the CB index of cbs[i].
struct Solution {
  std::vector<int> indices;
  /// max(index) + 1: how many indices the plan spans (0 for no CBs). This is the objective; with
  /// no pre-assignments it is the number of colours used.
  int colours = 0;
};

/// Why a solution is invalid; Valid when it is not. Checked by code independent of the solvers.
enum class [[nodiscard]] Validity{
    Valid,
    WrongIndexCount,      ///< indices.size() != cbs.size()
    IndexOutOfRange,      ///< an index outside [0, limit)
    SharedIndex,          ///< two conflicting CBs have the same index
    PreassignmentChanged, ///< a CB with a pre-assigned index got another one
    WrongColourCount,     ///< Solution::colours is not max(index) + 1
    InvalidProblem,       ///< the problem is malformed (see problemError)
};

std::string_view toString(Validity validity);
Validity validate(const Problem& problem, const Solution& solution);

/// Empty when the problem is well formed, else what is wrong: limit < 1, an interval with
/// upper <= lower, a conflict naming a CB that does not exist or a CB conflicting with itself, a
/// pre-assigned index below -1.
std::string problemError(const Problem& problem);

/// Why no plan exists.
enum class InfeasibleReason {
  TooManyLiveTogether,    ///< `cbs` are pairwise in conflict (a clique) and more than `limit`
  PreassignedOutOfRange,  ///< `cbs` holds one CB whose pre-assigned index is >= limit
  PreassignedClash,       ///< `cbs` holds two conflicting CBs pre-assigned the same index
  NoColouringWithinLimit, ///< the exact search proved that `cbs` (a connected component of the
                          ///< conflict graph) needs more than `limit` indices though no clique
                          ///< found is larger than `limit` (or pre-assignments force it)
};

std::string_view toString(InfeasibleReason reason);

struct Infeasibility {
  InfeasibleReason reason = InfeasibleReason::TooManyLiveTogether;
  std::vector<size_t> cbs; ///< the CBs that force the overflow (indices into Problem::cbs, sorted)
  /// For TooManyLiveTogether with intervals: the busiest time step, where all `cbs` are live.
  std::optional<int64_t> time;
  int needed = 0; ///< a proven lower bound on the indices `cbs` need (> limit)
};

struct Result {
  SolveStatus status = SolveStatus::Error;
  std::optional<Solution> solution;           ///< set for Optimal and Feasible
  int lowerBound = 0;                         ///< proven lower bound on Solution::colours
  std::optional<Infeasibility> infeasibility; ///< set for Infeasible
  SolverStats stats;
  std::string message; ///< for Error, and a human summary otherwise
};

} // namespace ttlplan::planner::cbindex
