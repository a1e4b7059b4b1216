#pragma once
// Run status, separate from what was found (HiGHS style): a solve that hits its time limit with
// a good plan is Feasible with a gap, not an error.
#include "ttlplan/support/Deadline.h"

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

namespace ttlplan::planner {

enum class SolveStatus {
  Optimal,    ///< proven optimal (or proven feasible for a pure decision problem)
  Feasible,   ///< a valid plan, but a time/node limit stopped the proof; see the bound
  Infeasible, ///< proven that no plan exists; the result says why
  NoSolution, ///< a limit was hit before any plan was found; nothing proven
  Error,      ///< bad input or solver failure; the message says what
};

std::string_view toString(SolveStatus status);

/// What a solve cost. Work units are deterministic; seconds are not.
struct SolverStats {
  int64_t nodes = 0;  ///< branch-and-bound nodes (or solver iterations) explored
  double seconds = 0; ///< wall time
  std::string solver; ///< which back end ran ("exact", "cbc", ...)
};

/// Limits shared by every solver. 0 means "no limit".
struct SolveLimits {
  double timeLimitSeconds = 0; ///< wall time
  int64_t nodeLimit = 0;       ///< deterministic work budget

  bool operator==(const SolveLimits&) const = default;
};

/// `limits` with the time limit cut to what is left before `deadline` (when it is set), for the
/// solves of one step that must end together.
inline SolveLimits within(SolveLimits limits, const Deadline& deadline) {
  // A limit of 0 means none, so a passed deadline still gives the solver a (tiny) positive one.
  constexpr double kLeastSeconds = 1e-3;
  if (deadline.isSet()) limits.timeLimitSeconds = deadline.secondsLeft(kLeastSeconds);
  return limits;
}

/// Runs `solve()` and turns any exception into an Error result, so that none crosses the library
/// API (docs/architecture.md, contracts). `Result` is any solver result with `status`, `stats` and
/// `message`.
template <typename Result, typename Solve>
Result guardedSolve(std::string_view solver, Solve&& solve) {
  std::string why;
  try {
    return solve();
  } catch (const std::exception& e) {
    why = e.what();
  } catch (...) {
    why = "unknown exception";
  }
  Result failed;
  failed.status = SolveStatus::Error;
  failed.stats.solver = std::string(solver);
  failed.message = std::string(solver) + " failed: " + why;
  return failed;
}

} // namespace ttlplan::planner
