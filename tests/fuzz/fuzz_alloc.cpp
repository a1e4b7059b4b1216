// fuzz_alloc: bytes as an L1 placement CSV (planner/l1/Csv.h, google/minimalloc's format). When
// it reads, every solver (exact, cbc, glpk, first-fit-decreasing, best-fit-decreasing) solves it
// with tiny time and node limits, unbounded and with a capacity (half the bytes, so both feasible
// and infeasible answers come up). A bug is: a solution (Optimal / Feasible) that the independent
// validator does not call Valid, a peak above the capacity, Optimal / Feasible without a solution,
// Infeasible on an unbounded problem, a formatCsv text that does not read back as the same
// problem, or any crash / sanitizer report / escaping exception / hang. Errors (a malformed CSV,
// a problem checkProblem rejects, a solver that gives up) are fine.
#include "FuzzCommon.h"
#include "ttlplan/planner/l1/Csv.h"
#include "ttlplan/planner/l1/Solve.h"

#include <string>

using namespace ttlplan;
using namespace ttlplan::planner;

namespace {

/// Keeps each input to a few milliseconds per solver.
constexpr size_t kMaxBuffers = 48;

void check(const l1::Problem& problem, l1::L1Solver solver, const std::string& csv) {
  SolveLimits limits;
  limits.timeLimitSeconds = 0.02;
  limits.nodeLimit = 2000;
  l1::Result result = l1::solve(problem, solver, limits);
  std::string where =
      std::string(l1::toString(solver)) + ", capacity " + std::to_string(problem.capacity);
  bool solved = result.status == SolveStatus::Optimal || result.status == SolveStatus::Feasible;
  if (solved && !result.solution)
    fuzz::fail(where + ": status " + std::string(toString(result.status)) + " without a solution",
               csv);
  if (result.solution) {
    l1::Validity validity = l1::validate(problem, *result.solution);
    if (validity != l1::Validity::Valid)
      fuzz::fail(where + ": returned a solution that validate() calls " +
                     std::string(l1::toString(validity)),
                 l1::formatCsv(problem, *result.solution));
    if (result.lowerBound > result.solution->peak)
      fuzz::fail(where + ": lower bound " + std::to_string(result.lowerBound) + " above the peak " +
                     std::to_string(result.solution->peak),
                 csv);
  }
  if (result.status == SolveStatus::Infeasible && problem.capacity == 0)
    fuzz::fail(where + ": an unbounded problem called infeasible: " + result.message, csv);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInputBytes) return -1;
  std::string_view text = fuzz::asText(data, size);
  Expected<l1::CsvFile> file = l1::parseCsv(text, "fuzz.csv");
  if (!file) return 0;
  l1::Problem problem = file->problem;
  if (file->offsets) { // a placement read back: the validator must not crash on it
    l1::Solution given{*file->offsets, 0};
    for (size_t i = 0; i < problem.buffers.size() && i < given.offsets.size(); ++i)
      given.peak = std::max(given.peak, given.offsets[i] + problem.buffers[i].size);
    (void)l1::validate(problem, given);
  }
  // formatCsv's text reads back as the same problem.
  std::string formatted = l1::formatCsv(problem);
  Expected<l1::CsvFile> again = l1::parseCsv(formatted, "formatted.csv");
  if (!again)
    fuzz::fail("formatCsv's text does not read back: " + again.error().message, formatted);
  bool same = again->problem.buffers.size() == problem.buffers.size();
  for (size_t i = 0; same && i < problem.buffers.size(); ++i) {
    const l1::Buffer &a = problem.buffers[i], &b = again->problem.buffers[i];
    same = a.id == b.id && a.lower == b.lower && a.upper == b.upper && a.size == b.size &&
           a.alignment == b.alignment;
  }
  if (!same) fuzz::fail("formatCsv's text reads back as another problem", formatted);

  if (problem.buffers.empty() || problem.buffers.size() > kMaxBuffers) return 0;
  if (!l1::checkProblem(problem)) return 0; // solve() reports these as errors; nothing to check
  std::string csv(text);
  int64_t total = 0;
  for (const l1::Buffer& b : problem.buffers)
    total += b.size;
  for (l1::L1Solver solver : l1::allL1Solvers()) {
    problem.capacity = 0;
    check(problem, solver, csv);
    problem.capacity = std::max<int64_t>(1, total / 2);
    check(problem, solver, csv);
  }
  return 0;
}
