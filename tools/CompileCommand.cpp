// `ttlplan compile`: run the lowering pipeline and write the TT-Metalium C++ (docs/codegen.md).
#include "codegen/Codegen.h"
#include "tools/Pipeline.h"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>

namespace ttlplan::tools {

int runCompile(const CompileFlags& flags, const DeviceFlags& deviceFlags) {
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  std::optional<Lowered> lowered = lowerFile(flags.pipeline, *device, exitCode);
  if (!lowered) return exitCode;

  ir::DiagnosticEngine diags;
  codegen::EmitOptions options;
  options.sources = &lowered->sources;
  options.inputFile =
      lowered->module->fileName.empty() ? flags.pipeline.input : lowered->module->fileName;
  options.timings = flags.timings;
  std::optional<std::vector<codegen::GeneratedFile>> files = codegen::emitModule(
      *lowered->module, *device, lowered->plan ? &*lowered->plan : nullptr, options, diags);
  std::cerr << ir::format(diags.diagnostics(), &lowered->sources);
  if (!files) return kInvalidInput;

  Expected<std::vector<bool>> written = codegen::writeFiles(flags.output, *files);
  if (!written) {
    std::cerr << "ttlplan: error: " << written.error().message << "\n";
    return kInvalidInput;
  }
  for (size_t i = 0; i < files->size(); ++i) {
    const codegen::GeneratedFile& f = (*files)[i];
    size_t lines = 0;
    for (char c : f.text)
      lines += c == '\n';
    std::cout << fmt::format("{} {} ({} lines)\n", (*written)[i] ? "wrote" : "unchanged",
                             (std::filesystem::path(flags.output) / f.path).string(), lines);
  }
  return kSuccess;
}

} // namespace ttlplan::tools
