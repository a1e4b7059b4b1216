#include "ttlplan/planner/SolveStatus.h"

namespace ttlplan::planner {

std::string_view toString(SolveStatus status) {
  switch (status) {
  case SolveStatus::Optimal:
    return "optimal";
  case SolveStatus::Feasible:
    return "feasible";
  case SolveStatus::Infeasible:
    return "infeasible";
  case SolveStatus::NoSolution:
    return "no solution";
  case SolveStatus::Error:
    return "error";
  }
  return "?";
}

} // namespace ttlplan::planner
