// `ttlplan lower`: run the lowering pipeline and print the result (docs/lowering.md).
#include "tools/Knobs.h"
#include "tools/Pipeline.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/PassManager.h"

#include <algorithm>
#include <fmt/format.h>
#include <iostream>

namespace ttlplan::tools {

void addPipelineFlags(CLI::App& command, PipelineFlags& flags) {
  std::string passes;
  for (const lower::PassInfo& p : lower::registeredPasses())
    passes += fmt::format("\n  {:<22}{}", p.name, p.summary);
  command.add_option("file", flags.input, "TTL file")->required()->check(CLI::ExistingFile);
  command.add_option("--pipeline", flags.pipeline,
                     fmt::format("Passes to run, comma-separated, each optionally with "
                                 "{{opt=value,...}} (default: {}). Passes:{}",
                                 lower::kDefaultPipeline, passes));
  command.add_flag("--print-ir-after-all", flags.printIrAfterAll,
                   "Print the IR to stderr after every pass");
  command.add_option("--print-ir-after", flags.printIrAfter,
                     "Print the IR to stderr after the named pass (repeatable)");
  command.add_flag("--time-passes", flags.timePasses,
                   "Print each pass's wall time and statistics to stderr");
  command.add_option("--solver", flags.solver, "L1 placement back end for the plan pass")
      ->capture_default_str();
  command
      .add_option("--time-limit", flags.timeLimitSeconds,
                  "Seconds per planner sub-problem; 0 (default) = none")
      ->check(CLI::Range(0.0, 1e6));
  command
      .add_option("--max-block-count", flags.maxBlockCount,
                  "Deepest block count tried for `?` CBs (default 4)")
      ->check(CLI::Range(1, 64));
}

std::optional<Lowered> lowerFile(const PipelineFlags& flags, const ir::Device& device,
                                 int& exitCode, const LowerHooks& hooks) {
  Expected<planner::l1::L1Solver> solver = planner::l1::parseL1Solver(flags.solver);
  if (!solver) {
    std::cerr << "ttlplan: error: " << solver.error().message << "\n";
    exitCode = kUsageError;
    return std::nullopt;
  }
  Expected<lower::PassManager> manager =
      lower::PassManager::parse(flags.pipeline.empty() ? lower::kDefaultPipeline : flags.pipeline);
  if (!manager) {
    std::cerr << "ttlplan: error: " << manager.error().message << "\n";
    exitCode = kUsageError;
    return std::nullopt;
  }
  lower::PlanOptions planOptions;
  planOptions.solver = *solver;
  planOptions.limits.timeLimitSeconds = flags.timeLimitSeconds;
  planOptions.maxBlockCount = flags.maxBlockCount;
  planOptions.kernelBlockCounts = flags.kernelBlockCounts;
  for (const std::string& name : flags.printIrAfter)
    if (!lower::lookupPass(name)) {
      std::cerr << fmt::format("ttlplan: error: --print-ir-after: unknown pass '{}'\n", name);
      exitCode = kUsageError;
      return std::nullopt;
    }

  Lowered out;
  ir::DiagnosticEngine diags;
  out.module = ir::parseFile(flags.input, diags, &out.sources);
  if (!out.module) {
    std::cerr << ir::format(diags.diagnostics(), &out.sources);
    exitCode = kInvalidInput;
    return std::nullopt;
  }
  // The binding (unbound knobs tuned or read from --db) matters only to a pipeline that plans,
  // and the search needs a verified module (an invalid one fails in the pipeline, as before).
  const std::vector<std::string>& names = manager->passNames();
  ir::DiagnosticEngine verifyDiags;
  bool plans = std::find(names.begin(), names.end(), "plan") != names.end() &&
               ir::verify(*out.module, verifyDiags);
  if (plans ? !choosePlanBinding(flags.knobs, *out.module, device, planOptions, exitCode)
            : !resolveKnobs(flags.knobs, *out.module, device, planOptions.binding, exitCode))
    return std::nullopt;
  lower::PassContext context{*out.module,       device,       diags,
                             planOptions,       std::nullopt, hooks.forcedCbAddresses,
                             hooks.validatePlan};
  lower::PipelineOptions options;
  options.printIrAfterAll = flags.printIrAfterAll;
  options.printIrAfter = flags.printIrAfter;
  options.timePasses = flags.timePasses;
  options.dump = [](const std::string& text) { std::cerr << text; };
  bool ok = manager->run(context, options);
  if (!ok) {
    std::cerr << ir::format(diags.diagnostics(), &out.sources);
    exitCode = kInvalidInput;
    return std::nullopt;
  }
  std::cerr << ir::format(diags.diagnostics(), &out.sources); // warnings
  out.plan = std::move(context.plan);
  return out;
}

int runLower(const LowerFlags& flags, const DeviceFlags& deviceFlags) {
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  std::optional<Lowered> lowered = lowerFile(flags.pipeline, *device, exitCode);
  if (!lowered) return exitCode;
  ir::PrintOptions options;
  options.generic = flags.generic;
  return writeOutput(flags.output, ir::print(*lowered->module, options));
}

} // namespace ttlplan::tools
