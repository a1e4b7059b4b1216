#include "ttlplan/planner/l1/Solve.h"

#include "ttlplan/planner/l1/Baselines.h"
#include "ttlplan/planner/l1/ExactSolver.h"
#include "ttlplan/planner/l1/IlpSolvers.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <numeric>

namespace ttlplan::planner::l1 {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::array<L1Solver, 5> kSolvers = {L1Solver::Exact, L1Solver::Cbc, L1Solver::Glpk,
                                              L1Solver::FirstFitDecreasing,
                                              L1Solver::BestFitDecreasing};

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// One back end, no checks.
Result dispatch(const Problem& problem, L1Solver solver, const SolveLimits& limits,
                const ExactParams& exact) {
  switch (solver) {
  case L1Solver::Exact:
    return solveExact(problem, exact, limits);
  case L1Solver::Cbc:
    return solveCbc(problem, limits);
  case L1Solver::Glpk:
    return solveGlpk(problem, limits);
  case L1Solver::FirstFitDecreasing:
    return firstFitDecreasing(problem, limits);
  case L1Solver::BestFitDecreasing:
    return bestFitDecreasing(problem, limits);
  }
  Result result;
  result.message = "unknown solver";
  return result;
}

/// A copy of `problem` keeping only the buffers in `subset` (in that order).
Problem restrict(const Problem& problem, std::span<const size_t> subset) {
  Problem sub;
  sub.capacity = problem.capacity;
  for (size_t i : subset)
    sub.buffers.push_back(problem.buffers[i]);
  return sub;
}

/// The buffers live at `time`, dropped smallest first while the rest still exceed the
/// capacity there: what remains is minimal (removing any one fits the capacity at that time).
std::vector<size_t> liveBytesFilter(const Problem& problem, int64_t time) {
  std::vector<size_t> live;
  int64_t bytes = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (b.lower <= time && time < b.upper) {
      live.push_back(i);
      bytes += b.size;
    }
  }
  std::stable_sort(live.begin(), live.end(), [&](size_t a, size_t b) {
    return problem.buffers[a].size < problem.buffers[b].size;
  });
  std::vector<size_t> kept;
  for (size_t i : live) {
    if (bytes - problem.buffers[i].size > problem.capacity)
      bytes -= problem.buffers[i].size;
    else
      kept.push_back(i);
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

/// Deletion filter with the solver: drop each buffer (smallest first) whose removal leaves a
/// set still proven infeasible (by the live-bytes bound, or by the solver). Stops early, keeping
/// the rest (still infeasible, maybe not minimal), when `deadline` passes. Sets `minimal`.
std::vector<size_t> solverFilter(const Problem& problem, L1Solver solver, const SolveLimits& limits,
                                 const ExactParams& exact, const Deadline& deadline,
                                 bool& minimal) {
  std::vector<size_t> order(problem.buffers.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return problem.buffers[a].size < problem.buffers[b].size;
  });
  std::vector<bool> in(problem.buffers.size(), true);
  minimal = true;
  for (size_t candidate : order) {
    if (deadline.passed()) {
      minimal = false;
      break;
    }
    std::vector<size_t> rest;
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i] && i != candidate) rest.push_back(i);
    bool infeasible = maxLiveBytes(problem, rest).bytes > problem.capacity;
    if (!infeasible) {
      Result sub = dispatch(restrict(problem, rest), solver, within(limits, deadline), exact);
      infeasible = sub.status == SolveStatus::Infeasible;
      if (sub.status != SolveStatus::Infeasible && sub.status != SolveStatus::Optimal &&
          sub.status != SolveStatus::Feasible)
        minimal = false; // unknown: keep the buffer to stay sound
    }
    if (infeasible) in[candidate] = false;
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i]) kept.push_back(i);
  return kept;
}

/// The least capacity that fits, and whether that is proven. A solver that already proved it
/// while deciding infeasibility (exact does) is believed; otherwise the problem is solved again
/// without the capacity.
std::pair<int64_t, bool> smallestCapacity(const Problem& problem, L1Solver solver,
                                          const SolveLimits& limits, const ExactParams& exact,
                                          const Result& result) {
  if (result.infeasibility && result.lowerBound == result.infeasibility->smallestCapacity &&
      result.lowerBound > problem.capacity)
    return {result.lowerBound, true};
  Problem unbounded = problem;
  unbounded.capacity = 0;
  Result relaxed = dispatch(unbounded, solver, limits, exact);
  if (relaxed.solution && validate(unbounded, *relaxed.solution) == Validity::Valid)
    return {relaxed.solution->peak, relaxed.status == SolveStatus::Optimal};
  // An upper bound only: first fit, or every buffer stacked when even that runs out of time.
  Deadline deadline = Deadline::in(limits.timeLimitSeconds);
  if (auto placed = placeInOrder(problem, decreasingSizeOrder(problem), Fit::First, deadline))
    return {placed->peak, false};
  int64_t stacked = 0;
  for (const Buffer& b : problem.buffers)
    stacked += b.size + b.alignment - 1; // at most 2^52 in all (checkProblem)
  return {stacked, false};
}

/// Fills result.infeasibility and result.message for an infeasible capacity-bounded problem.
void explain(const Problem& problem, L1Solver solver, const SolveLimits& limits,
             const ExactParams& exact, const Deadline& deadline, Result& result) {
  Infeasibility info;
  auto [smallest, provenSmallest] =
      smallestCapacity(problem, solver, within(limits, deadline), exact, result);
  info.smallestCapacity = smallest;

  LiveBytes busiest = maxLiveBytes(problem);
  bool minimal = true;
  if (busiest.bytes > problem.capacity) {
    info.blockingBuffers = liveBytesFilter(problem, busiest.time);
  } else {
    info.blockingBuffers = solverFilter(problem, solver, limits, exact, deadline, minimal);
  }
  LiveBytes blocking = maxLiveBytes(problem, info.blockingBuffers);
  info.blockingBytes = blocking.bytes;

  std::string names;
  constexpr size_t kListed = 12;
  for (size_t k = 0; k < info.blockingBuffers.size() && k < kListed; ++k)
    names += (k ? ", " : "") + problem.buffers[info.blockingBuffers[k]].id;
  if (info.blockingBuffers.size() > kListed) names += ", ...";
  std::string message = "needs " + withThousands(info.smallestCapacity) + " B" +
                        (provenSmallest ? "" : " (or less: not proven minimal)") + "; capacity " +
                        withThousands(problem.capacity) + " B; short by " +
                        withThousands(info.smallestCapacity - problem.capacity) + " B; these " +
                        std::to_string(info.blockingBuffers.size()) + " buffers cannot coexist" +
                        (minimal ? "" : " (not reduced to a minimal set within the time limit)") +
                        ": " + names + " (" + withThousands(info.blockingBytes) +
                        " B live at time " + std::to_string(blocking.time) + ")";
  result.message = std::move(message);
  result.infeasibility = std::move(info);
}

Result solveChecked(const Problem& problem, L1Solver solver, const SolveLimits& limits,
                    const ExactParams& exact) {
  // The solve and its explanation share the limit: the whole call ends within it.
  Deadline deadline = Deadline::in(limits.timeLimitSeconds);
  Result result;
  result.stats.solver = std::string(toString(solver));
  if (Status ok = checkProblem(problem); !ok) {
    result.message = ok.error().message;
    return result;
  }
  LiveBytes busiest = maxLiveBytes(problem);
  if (problem.capacity > 0 && busiest.bytes > problem.capacity) {
    result.status = SolveStatus::Infeasible; // proven by the bound alone
    result.lowerBound = busiest.bytes;
  } else {
    result = dispatch(problem, solver, limits, exact);
    result.stats.solver = std::string(toString(solver));
    bool claimsPlan =
        result.status == SolveStatus::Optimal || result.status == SolveStatus::Feasible;
    if (claimsPlan != result.solution.has_value()) {
      result.status = SolveStatus::Error;
      result.solution.reset();
      result.message = "internal error: " + result.stats.solver +
                       " returned a status that does not match its plan";
      return result;
    }
    if (result.solution) {
      if (Validity v = validate(problem, *result.solution); v != Validity::Valid) {
        result.status = SolveStatus::Error;
        result.solution.reset();
        result.message = "internal error: " + result.stats.solver + " returned an invalid plan (" +
                         std::string(toString(v)) + ")";
        return result;
      }
      result.lowerBound = std::max(result.lowerBound, busiest.bytes);
      if (result.lowerBound > result.solution->peak) {
        result.status = SolveStatus::Error;
        result.solution.reset();
        result.message = "internal error: " + result.stats.solver +
                         " claims a lower bound above its own plan's peak";
        return result;
      }
    }
    if (result.status == SolveStatus::Infeasible && problem.capacity == 0) {
      result.status = SolveStatus::Error;
      result.message = "internal error: " + result.stats.solver +
                       " called a problem without a capacity infeasible";
      return result;
    }
  }
  if (result.status == SolveStatus::Infeasible)
    explain(problem, solver, limits, exact, deadline, result);
  return result;
}

} // namespace

std::string_view toString(L1Solver solver) {
  switch (solver) {
  case L1Solver::Exact:
    return "exact";
  case L1Solver::Cbc:
    return "cbc";
  case L1Solver::Glpk:
    return "glpk";
  case L1Solver::FirstFitDecreasing:
    return "first-fit-decreasing";
  case L1Solver::BestFitDecreasing:
    return "best-fit-decreasing";
  }
  return "?";
}

Expected<L1Solver> parseL1Solver(std::string_view name) {
  std::string valid;
  for (L1Solver solver : kSolvers) {
    if (toString(solver) == name) return solver;
    valid += (valid.empty() ? "" : ", ") + std::string(toString(solver));
  }
  return Error{"unknown L1 solver '" + std::string(name) + "'; valid solvers are " + valid};
}

std::span<const L1Solver> allL1Solvers() {
  return kSolvers;
}

Status checkProblem(const Problem& problem) {
  if (problem.capacity < 0)
    return Error{"capacity " + std::to_string(problem.capacity) + " is negative"};
  constexpr int64_t kLimit = int64_t(1) << 52;
  constexpr int64_t kTimeLimit = int64_t(1) << 31;
  int64_t total = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    std::string where = "buffer '" + b.id + "' (#" + std::to_string(i) + ")";
    if (b.size <= 0) return Error{where + " has size " + std::to_string(b.size) + " <= 0"};
    if (b.upper <= b.lower)
      return Error{where + " has upper " + std::to_string(b.upper) + " <= lower " +
                   std::to_string(b.lower)};
    if (b.alignment < 1)
      return Error{where + " has alignment " + std::to_string(b.alignment) + " < 1"};
    if (b.lower < -kTimeLimit || b.upper > kTimeLimit)
      return Error{where + ": times must lie within -2^31 .. 2^31"};
    if (b.size >= kLimit || b.alignment >= kLimit || total + b.size + b.alignment >= kLimit)
      return Error{where + ": sizes and alignments add up to more than 2^52 bytes"};
    total += b.size + b.alignment;
  }
  return Status::success();
}

Result solve(const Problem& problem, L1Solver solver, const SolveLimits& limits,
             const ExactParams& exact) {
  Clock::time_point start = Clock::now();
  Result result = guardedSolve<Result>(
      toString(solver), [&] { return solveChecked(problem, solver, limits, exact); });
  result.stats.seconds = secondsSince(start);
  return result;
}

std::string withThousands(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -(value + 1) + uint64_t(1) : uint64_t(value));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

} // namespace ttlplan::planner::l1
