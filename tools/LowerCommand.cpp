// `ttlplan lower`: run the lowering pipeline and print the result (docs/lowering.md).
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Pipeline.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/lower/PassManager.h"

#include <fmt/format.h>
#include <iostream>
#include <memory>

namespace ttlplan::tools {

namespace {

struct LowerFlags {
  PipelineFlags pipeline;
  std::string output; ///< -o; stdout when empty
};

} // namespace

void addPipelineFlags(CLI::App& command, PipelineFlags& flags) {
  std::string passes;
  for (const lower::PassInfo& p : lower::registeredPasses())
    passes += fmt::format("\n  {:<22}{}", p.name, p.summary);
  command.add_option("file", flags.input, "TTL file")->required()->check(CLI::ExistingFile);
  const OptionTable& options = commandOptions("pipeline");
  // The pass list is the pass registry's: --help shows it after the record's text.
  const OptionRecord& pipeline = options.at("pipeline");
  addOption(command, pipeline, flags.pipeline)
      ->description(fmt::format("{}. Passes:{}", pipeline.help(), passes));
  addOption(command, options.at("print-ir-after-all"), flags.printIrAfterAll);
  addOption(command, options.at("print-ir-after"), flags.printIrAfter);
  addOption(command, options.at("generic"), flags.generic);
  addOption(command, options.at("time-passes"), flags.timePasses);
  addPlannerFlags(command, flags.solver, flags.timeLimitSeconds, &flags.maxBlockCount);
  addExactRuleFlags(command, flags.exact);
}

namespace {

int runLower(const LowerFlags& flags, const DeviceFlags& deviceFlags) {
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  driver::Result<driver::Lowered> lowered = driver::lowerFile(flags.pipeline, *device, logToStderr);
  if (!lowered) return report(lowered.error());
  std::cerr << ir::format(lowered->warnings, lowered->sources.get());
  ir::PrintOptions options;
  options.generic = flags.pipeline.generic;
  return writeOutput(flags.output, ir::print(*lowered->module, options));
}

} // namespace

Runner addLowerCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<LowerFlags>();
  CLI::App* cmd = app.add_subcommand(
      "lower", "Plan a TTL file and lower it through the pass pipeline to TT-Metalium-level IR; "
               "print the result (docs/lowering.md)");
  addPipelineFlags(*cmd, flags->pipeline);
  addDeviceFlags(*cmd, shared.device);
  addKnobFlags(*cmd, flags->pipeline.knobs, shared.device);
  addOption(*cmd, commandOptions("lower").at("output"), flags->output);
  addSplitInputFileFlag(*cmd, shared);
  return [flags, &shared] {
    return runChunked(shared, flags->pipeline.input, flags->pipeline.inputChunk, {flags->output},
                      [&] { return runLower(*flags, shared.device); });
  };
}

} // namespace ttlplan::tools
