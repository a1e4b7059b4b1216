// `ttlplan run` (driver::runOnEmulator): the emulator's report, the comparison table, PASS/FAIL.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Pipeline.h"
#include "tools/Terminal.h"

#include <cstdlib>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <optional>

namespace ttlplan::tools {

namespace {

/// --force-cb-address NAME=ADDRESS entries into the request's hook; false on a malformed one.
bool parseForcedAddresses(const std::vector<std::string>& entries,
                          std::vector<std::pair<std::string, int64_t>>& out) {
  for (const std::string& entry : entries) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      std::cerr << fmt::format(
          "ttlplan: error: --force-cb-address expects NAME=ADDRESS, got '{}'\n", entry);
      return false;
    }
    std::string name = entry.substr(0, eq);
    if (name.empty() || name[0] != '%') name = "%" + name;
    out.emplace_back(name, std::strtoll(entry.c_str() + eq + 1, nullptr, 0));
  }
  return true;
}

} // namespace

void printRunOutcome(const RunFlags& flags, const std::string& device,
                     const driver::RunOutcome& run) {
  std::cerr << run.emulatorOutput;
  if (!run.emulatorOutput.empty() && run.emulatorOutput.back() != '\n') std::cerr << "\n";
  if (run.emulatorExit != 0)
    std::cerr << fmt::format("ttlplan: error: the emulated program exited with status {}{}\n",
                             run.emulatorExit,
                             run.emulatorExit == 3 ? " (the emulator found errors, above)" : "");
  std::cout << fmt::format("run {} on {} (seed {}): lower {:.2f} s, build {:.2f} s, emulate "
                           "{:.2f} s\n",
                           flags.lower.input, device, flags.seed, run.lowerSeconds,
                           run.buildSeconds, run.emulateSeconds);
  std::cout << fmt::format("  {:<10} {:>12} {:>12} {:>12}  {}\n", "argument", "max abs err",
                           "max rel err", "tolerance", "verdict");
  for (const driver::ArgumentCheck& c : run.arguments) {
    if (!c.missing.empty()) {
      std::cout << fmt::format("  {:<10} no output: {}\n", c.name, c.missing);
      continue;
    }
    std::cout << fmt::format("  {:<10} {:>12.3e} {:>12.3e} {:>12.3e}  {}\n", c.name, c.maxAbsError,
                             c.maxRelError, c.tolerance, c.summary);
    if (!c.dumpError.empty()) std::cerr << driver::errorLine(c.dumpError);
  }
  std::cout << (run.passed ? "PASS" : "FAIL")
            << fmt::format(" (work directory {}{})\n", run.workDir,
                           run.workDirRemoved ? ", removed" : "");
}

namespace {

/// `run --target pto`: the kernel on the pto emulator against the reference (docs/pto.md).
int runPtoRun(const RunFlags& flags, const DeviceFlags& deviceFlags) {
  if (flags.noValidate || !flags.forceCbAddress.empty() || !flags.lower.pipeline.empty())
    return report(driver::Error::usage("--no-validate, --force-cb-address and --pipeline are for "
                                       "the Tenstorrent target"));
  driver::Result<ir::pto::Device> device = driver::loadPtoDevice(deviceFlags);
  if (!device) return report(device.error());
  driver::RunRequest request = flags;
  std::optional<Progress> progress;
  request.onStep = progressSteps(progress, "run");
  driver::Result<driver::RunOutcome> run = driver::runPtoFile(request, *device, logToStderr);
  progress.reset();
  if (!run) return report(run.error());
  printRunOutcome(flags, device->name + " (--target pto)", *run);
  return run->passed ? kSuccess : kInvalidInput;
}

int runRun(const RunFlags& flags, const DeviceFlags& deviceFlags) {
  if (deviceFlags.target == driver::kPtoTarget) return runPtoRun(flags, deviceFlags);
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  driver::RunRequest request = flags;
  request.lower.validatePlan = !flags.noValidate;
  if (!parseForcedAddresses(flags.forceCbAddress, request.lower.forcedCbAddresses))
    return kUsageError;
  std::optional<Progress> progress;
  request.onStep = progressSteps(progress, "run");
  driver::Result<driver::RunOutcome> run = driver::runOnEmulator(request, *device, logToStderr);
  progress.reset();
  if (!run) return report(run.error());
  printRunOutcome(flags, device->name, *run);
  return run->passed ? kSuccess : kInvalidInput;
}

} // namespace

Runner addRunCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Plan, lower and compile a TTL kernel, build the C++ with g++ against the CPU "
             "emulator, run it on random inputs and compare every argument with an independent "
             "reference (exit 1 on a mismatch beyond the data type's tolerance or an emulator "
             "error; docs/emulator.md, docs/reference.md)");
  addPipelineFlags(*cmd, flags->lower);
  addDeviceFlags(*cmd, shared.device);
  addKnobFlags(*cmd, flags->lower.knobs, shared.device);
  const OptionTable& options = commandOptions("run");
  addOption(*cmd, options.at("seed"), flags->seed);
  addOption(*cmd, options.at("inputs"), flags->inputsDir)->check(CLI::ExistingDirectory);
  addOption(*cmd, options.at("dump"), flags->dumpDir);
  addOption(*cmd, options.at("kernel"), flags->kernel);
  addOption(*cmd, options.at("work-dir"), flags->workDir);
  addOption(*cmd, options.at("keep"), flags->keep);
  addOption(*cmd, options.at("timeout"), flags->timeoutSeconds);
  addOption(*cmd, options.at("no-validate"), flags->noValidate);
  addOption(*cmd, options.at("force-cb-address"), flags->forceCbAddress);
  addSplitInputFileFlag(*cmd, shared);
  return [flags, &shared] {
    return runChunked(shared, flags->lower.input, flags->lower.inputChunk,
                      {flags->dumpDir, flags->workDir},
                      [&] { return runRun(*flags, shared.device); });
  };
}

} // namespace ttlplan::tools
