// The independent CB index validator: pairwise checks straight from the problem's definition,
// sharing no code with the solvers (no conflict graph, no sweep).
#include "ttlplan/planner/cbindex/Problem.h"

namespace ttlplan::planner::cbindex {

std::string_view toString(Validity validity) {
  switch (validity) {
  case Validity::Valid:
    return "valid";
  case Validity::WrongIndexCount:
    return "wrong index count";
  case Validity::IndexOutOfRange:
    return "index out of range";
  case Validity::SharedIndex:
    return "conflicting CBs share an index";
  case Validity::PreassignmentChanged:
    return "pre-assigned index changed";
  case Validity::WrongColourCount:
    return "wrong colour count";
  case Validity::InvalidProblem:
    return "invalid problem";
  }
  return "?";
}

std::string_view toString(InfeasibleReason reason) {
  switch (reason) {
  case InfeasibleReason::TooManyLiveTogether:
    return "too many CBs live together";
  case InfeasibleReason::PreassignedOutOfRange:
    return "pre-assigned index out of range";
  case InfeasibleReason::PreassignedClash:
    return "conflicting CBs pre-assigned the same index";
  case InfeasibleReason::NoColouringWithinLimit:
    return "no colouring within the limit";
  }
  return "?";
}

std::string problemError(const Problem& problem) {
  if (problem.limit < 1) return "CB index limit " + std::to_string(problem.limit) + " is below 1";
  const size_t n = problem.cbs.size();
  for (size_t i = 0; i < n; ++i) {
    const Cb& cb = problem.cbs[i];
    if (cb.preassigned < -1)
      return "CB '" + cb.id + "' has pre-assigned index " + std::to_string(cb.preassigned);
    if (problem.source == ConflictSource::Intervals && cb.upper <= cb.lower)
      return "CB '" + cb.id + "' has an empty lifetime [" + std::to_string(cb.lower) + ", " +
             std::to_string(cb.upper) + ")";
  }
  if (problem.source == ConflictSource::List)
    for (auto [a, b] : problem.conflicts) {
      if (a >= n || b >= n)
        return "conflict (" + std::to_string(a) + ", " + std::to_string(b) +
               ") names a CB beyond " + std::to_string(n);
      if (a == b) return "CB '" + problem.cbs[a].id + "' conflicts with itself";
    }
  return {};
}

Validity validate(const Problem& problem, const Solution& solution) {
  if (!problemError(problem).empty()) return Validity::InvalidProblem;
  const size_t n = problem.cbs.size();
  if (solution.indices.size() != n) return Validity::WrongIndexCount;
  int span = 0;
  for (size_t i = 0; i < n; ++i) {
    const int index = solution.indices[i];
    if (index < 0 || index >= problem.limit) return Validity::IndexOutOfRange;
    if (problem.cbs[i].preassigned >= 0 && problem.cbs[i].preassigned != index)
      return Validity::PreassignmentChanged;
    if (index + 1 > span) span = index + 1;
  }
  if (problem.source == ConflictSource::List) {
    for (auto [a, b] : problem.conflicts)
      if (solution.indices[a] == solution.indices[b]) return Validity::SharedIndex;
  } else {
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        const Cb& a = problem.cbs[i];
        const Cb& b = problem.cbs[j];
        const bool liveTogether = a.lower < b.upper && b.lower < a.upper;
        if (liveTogether && solution.indices[i] == solution.indices[j])
          return Validity::SharedIndex;
      }
  }
  if (solution.colours != span) return Validity::WrongColourCount;
  return Validity::Valid;
}

} // namespace ttlplan::planner::cbindex
