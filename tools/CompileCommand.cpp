// `ttlplan compile` (driver::compileFile, driver::listOutputs): the generated files, one line each.
#include "tools/Pipeline.h"
#include "tools/Terminal.h"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>
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

int runCompile(const CompileFlags& flags, const DeviceFlags& deviceFlags) {
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

} // namespace ttlplan::tools
