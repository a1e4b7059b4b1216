// `ttlplan alloc`: L1 placement of the buffers in a CSV file (planner/l1/Solve.h).
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"
#include "ttlplan/planner/l1/Csv.h"
#include "ttlplan/planner/l1/Solve.h"

#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <memory>

namespace ttlplan::tools {

using namespace planner;
using planner::l1::withThousands;

namespace {

struct AllocFlags {
  std::string input;    ///< FILE.csv
  std::string output;   ///< -o; stdout when empty
  int64_t capacity = 0; ///< --capacity; 0 = unbounded (minimise the peak)
  std::string solver{planner::l1::toString(planner::kernel::kDefaultSolver)}; ///< --solver
  double timeLimitSeconds = 0;    ///< --time-limit; 0 = none
  int64_t nodeLimit = 0;          ///< --node-limit; 0 = none
  planner::l1::ExactParams exact; ///< --no-RULE: the exact solver's pruning rules
};

int runAlloc(const AllocFlags& flags) {
  Expected<l1::L1Solver> solver = l1::parseL1Solver(flags.solver);
  if (!solver) {
    std::cerr << driver::errorLine(solver.error().message);
    return kUsageError;
  }
  Expected<l1::CsvFile> csv = l1::readCsv(flags.input);
  if (!csv) {
    std::cerr << driver::errorLine(csv.error().message);
    return kInvalidInput;
  }
  l1::Problem problem = std::move(csv->problem);
  problem.capacity = flags.capacity;
  SolveLimits limits;
  limits.timeLimitSeconds = flags.timeLimitSeconds;
  limits.nodeLimit = flags.nodeLimit;
  l1::Result result;
  {
    Progress progress(
        fmt::format("alloc: placing {} buffers with {}", problem.buffers.size(), flags.solver));
    result = l1::solve(problem, *solver, limits, flags.exact);
  }

  // The report: one line on stderr, so that stdout holds only the CSV.
  // With a capacity the solver answers "does it fit?"; calling that "optimal" next to a gap
  // would read as a contradiction, so the report says what was proven.
  bool decided = problem.capacity > 0 && result.status == SolveStatus::Optimal;
  std::string report =
      fmt::format("alloc: {}", decided ? "fits (capacity given: peak not minimised)"
                                       : std::string(toString(result.status)));
  if (result.solution) {
    int64_t peak = result.solution->peak;
    double gap = peak > 0 ? 100.0 * double(peak - result.lowerBound) / double(peak) : 0.0;
    report += fmt::format("; peak {} B", withThousands(peak));
    if (problem.capacity > 0) report += fmt::format(" of {} B", withThousands(problem.capacity));
    report += fmt::format("; lower bound {} B", withThousands(result.lowerBound));
    if (!decided) report += fmt::format("; gap {:.2f}%", gap);
  } else if (result.status != SolveStatus::Error) {
    report += fmt::format("; lower bound {} B", withThousands(result.lowerBound));
  }
  report += fmt::format("; {} nodes; {:.3f} s; solver {}; {} buffers\n",
                        withThousands(result.stats.nodes), result.stats.seconds,
                        result.stats.solver, problem.buffers.size());
  std::cerr << report;

  switch (result.status) {
  case SolveStatus::Optimal:
  case SolveStatus::Feasible:
    break;
  case SolveStatus::Infeasible:
    std::cerr << fmt::format(
        "ttlplan: error: infeasible: {}; the smallest capacity that works is {} B\n",
        result.message,
        result.infeasibility ? withThousands(result.infeasibility->smallestCapacity) : "?");
    return kInvalidInput;
  case SolveStatus::NoSolution:
    std::cerr << fmt::format("ttlplan: error: no plan found: {}\n", result.message);
    return kInvalidInput;
  case SolveStatus::Error:
    std::cerr << driver::errorLine(result.message);
    return kInvalidInput;
  }

  return writeOutput(flags.output, l1::formatCsv(problem, *result.solution));
}

} // namespace

Runner addAllocCommand(CLI::App& app, SharedFlags&) {
  auto flags = std::make_shared<AllocFlags>();
  CLI::App* cmd = app.add_subcommand(
      "alloc", "Place buffers in L1 (or any memory) from a CSV of id,lower,upper,size[,alignment]: "
               "print a report to stderr and the CSV with an offset column");
  cmd->add_option("file", flags->input, "CSV file with a header row (docs/alloc.md)")
      ->required()
      ->check(CLI::ExistingFile);
  const OptionTable& options = commandOptions("alloc");
  addOption(*cmd, options.at("capacity"), flags->capacity);
  addPlannerFlags(*cmd, flags->solver, flags->timeLimitSeconds, nullptr, &flags->nodeLimit);
  addExactRuleFlags(*cmd, flags->exact);
  addOption(*cmd, options.at("output"), flags->output);
  return [flags] { return runAlloc(*flags); };
}

} // namespace ttlplan::tools
