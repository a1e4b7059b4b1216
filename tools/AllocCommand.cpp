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
  driver::AllocRequest request;
  std::string output; ///< -o; stdout when empty
};

int runAlloc(const AllocFlags& flags) {
  const driver::AllocRequest& request = flags.request;
  std::optional<Progress> progress(
      std::in_place,
      fmt::format("alloc: placing the buffers of {} with {}", request.input, request.solver));
  driver::Result<driver::Allocated> allocated = driver::allocateFile(request);
  progress.reset();
  if (!allocated) return report(allocated.error());
  const l1::Problem& problem = allocated->problem;
  const l1::Result& result = allocated->result;

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
  cmd->add_option("file", flags->request.input, "CSV file with a header row (docs/alloc.md)")
      ->required()
      ->check(CLI::ExistingFile);
  const OptionTable& options = commandOptions("alloc");
  addOption(*cmd, options.at("capacity"), flags->request.capacity);
  addPlannerFlags(*cmd, flags->request.solver, flags->request.timeLimitSeconds, nullptr,
                  &flags->request.nodeLimit);
  addExactRuleFlags(*cmd, flags->request.exact);
  addOption(*cmd, options.at("output"), flags->output);
  return [flags] { return runAlloc(*flags); };
}

} // namespace ttlplan::tools
