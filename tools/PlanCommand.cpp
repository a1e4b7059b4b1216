// `ttlplan plan`: plan every kernel of a TTL file and print the report (lower/KernelPlanner.h).
#include "tools/Commands.h"
#include "tools/Knobs.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/ApplyPlan.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/lower/PlanReport.h"

#include <fmt/format.h>
#include <fstream>
#include <iostream>

namespace ttlplan::tools {

int runPlan(const PlanFlags& flags, const DeviceFlags& deviceFlags) {
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  Expected<planner::l1::L1Solver> solver = planner::l1::parseL1Solver(flags.solver);
  if (!solver) {
    std::cerr << "ttlplan: error: " << solver.error().message << "\n";
    return kUsageError;
  }
  lower::PlanOptions options;
  options.solver = *solver;
  options.limits.timeLimitSeconds = flags.timeLimitSeconds;
  options.maxBlockCount = flags.maxBlockCount;

  std::unique_ptr<ir::Module> module = parseVerified(flags.input, exitCode);
  if (!module) return exitCode;
  if (!choosePlanBinding(flags.knobs, *module, *device, options, exitCode)) return exitCode;
  Expected<lower::ModulePlan> plan = lower::planModule(*module, *device, options);
  if (!plan) {
    std::cerr << "ttlplan: error: " << plan.error().message << "\n";
    return kInvalidInput;
  }
  // `--json -`: the JSON is standard output (for scripts), and the report goes to stderr.
  const bool jsonToStdout = flags.jsonOutput == "-";
  (jsonToStdout ? std::cerr : std::cout) << lower::formatReport(*plan);
  if (!flags.jsonOutput.empty())
    if (int rc =
            writeOutput(jsonToStdout ? "" : flags.jsonOutput, lower::toJson(*plan).dump(2) + "\n");
        rc != kSuccess)
      return rc;
  if (flags.output.empty()) return kSuccess;
  lower::applyPlan(*module, *plan);
  return writeOutput(flags.output, ir::print(*module, ir::PrintOptions{}));
}

} // namespace ttlplan::tools
