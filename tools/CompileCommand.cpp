// `ttlplan compile` (driver::compileFile, driver::listOutputs): the generated files, one line each.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Pipeline.h"
#include "tools/Terminal.h"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <optional>

namespace ttlplan::tools {

void printCompiled(const driver::Compiled& compiled, const std::string& outputDir) {
  std::cerr << ir::format(compiled.warnings, compiled.sources.get());
  for (size_t i = 0; i < compiled.files.size(); ++i) {
    const codegen::GeneratedFile& f = compiled.files[i];
    size_t lines = 0;
    for (char c : f.text)
      lines += c == '\n';
    std::cout << fmt::format("{} {} ({} lines)\n", compiled.written[i] ? "wrote" : "unchanged",
                             (std::filesystem::path(outputDir) / f.path).string(), lines);
  }
}

namespace {

/// `compile --target pto`: pto-isa C++ per kernel (docs/pto.md).
int runPtoCompile(const CompileFlags& flags, const DeviceFlags& deviceFlags) {
  if (flags.listOutputs || flags.emulator || !flags.depfile.empty() || !flags.stamp.empty())
    return report(driver::Error::usage(
        "--target pto writes the kernels, plan.json and report.txt; --list-outputs, --emulator, "
        "--depfile and --stamp are for the Tenstorrent target so far"));
  driver::Result<ir::pto::Device> device = driver::loadPtoDevice(deviceFlags);
  if (!device) return report(device.error());
  driver::CompileRequest request = flags;
  std::optional<Progress> progress(std::in_place, "compile: planning for pto and writing C++");
  driver::Result<driver::Compiled> compiled = driver::compilePtoFile(request, *device, logToStderr);
  progress.reset();
  if (!compiled) return report(compiled.error());
  printCompiled(*compiled, flags.output);
  return kSuccess;
}

int runCompile(const CompileFlags& flags, const DeviceFlags& deviceFlags) {
  if (deviceFlags.target == driver::kPtoTarget) return runPtoCompile(flags, deviceFlags);
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  if (flags.listOutputs) {
    driver::Result<std::vector<std::string>> paths =
        driver::listOutputs(flags.lower.input, flags.output, flags.emulator, *device);
    if (!paths) return report(paths.error());
    for (const std::string& p : *paths)
      std::cout << p << "\n";
    return kSuccess;
  }
  driver::CompileRequest request = flags;
  request.deviceFile = deviceFlags.file;
  std::optional<Progress> progress(std::in_place, "compile: planning and lowering");
  driver::Result<driver::Compiled> compiled = driver::compileFile(request, *device, logToStderr);
  progress.reset();
  if (!compiled) return report(compiled.error());
  printCompiled(*compiled, flags.output);
  return kSuccess;
}

} // namespace

Runner addCompileCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<CompileFlags>();
  CLI::App* cmd = app.add_subcommand(
      "compile", "Lower a TTL file through the pass pipeline and write TT-Metalium C++ (the "
                 "pinned tt-metal's API): per kernel K, DIR/K/{reader,compute,writer,host}.cpp, "
                 "plus DIR/CMakeLists.txt, DIR/ttlplan_npy.hpp, DIR/plan.json and DIR/report.txt "
                 "(docs/codegen.md)");
  addPipelineFlags(*cmd, flags->lower);
  CLI::Option* deviceName = addDeviceFlags(*cmd, shared.device, TargetFlag::Own);
  addKnobFlags(*cmd, flags->lower.knobs, shared.device);
  const OptionTable& options = commandOptions("compile");
  addOption(*cmd, options.at("output"), flags->output)->required();
  addOption(*cmd, options.at("timings"), flags->timings);
  auto target = std::make_shared<std::string>("metal");
  addOption(*cmd, options.at("target"), *target);
  addOption(*cmd, options.at("emulator"), flags->emulator);
  addOption(*cmd, options.at("list-outputs"), flags->listOutputs);
  addOption(*cmd, options.at("depfile"), flags->depfile);
  addOption(*cmd, options.at("stamp"), flags->stamp);
  addSplitInputFileFlag(*cmd, shared);
  return [flags, target, deviceName, &shared] {
    flags->emulator = flags->emulator || *target == "emulator";
    if (*target == driver::kPtoTarget) {
      shared.device.target = std::string(driver::kPtoTarget);
      choosePtoDefault(shared.device, *deviceName);
    }
    const std::string dir = flags->output;
    std::optional<size_t>& chunk = flags->lower.inputChunk;
    return runChunked(shared, flags->lower.input, chunk, {flags->depfile, flags->stamp}, [&] {
      if (chunk) flags->output = fmt::format("{}/{}", dir, *chunk); // chunk N under DIR/N
      return runCompile(*flags, shared.device);
    });
  };
}

} // namespace ttlplan::tools
