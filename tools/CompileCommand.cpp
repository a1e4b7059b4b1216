// `ttlplan compile`: run the lowering pipeline and write the TT-Metalium C++ (docs/codegen.md),
// and what a build system needs around it (--list-outputs, --depfile, --stamp; docs/library.md).
#include "tools/Pipeline.h"
#include "ttlplan/codegen/Codegen.h"
#include "ttlplan/codegen/EmuBuild.h"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>

namespace ttlplan::tools {

namespace fs = std::filesystem;

namespace {

/// A path as a Makefile rule word: spaces and '#' escaped, '$' doubled.
std::string makeWord(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == '\\') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

/// --list-outputs: the paths under -o that compile writes for this source.
int listOutputs(const CompileFlags& flags, const ir::Device& device) {
  int exitCode = kSuccess;
  std::unique_ptr<ir::Module> source = parseVerified(flags.pipeline.input, exitCode);
  if (!source) return exitCode;
  std::vector<codegen::GeneratedFile> files;
  for (std::string& path : codegen::outputPaths(*source, /*planned=*/true))
    files.push_back({std::move(path), ""});
  if (flags.emulator) codegen::addEmuFiles(files, device);
  for (const codegen::GeneratedFile& f : files)
    std::cout << (fs::path(flags.output) / f.path).string() << "\n";
  return kSuccess;
}

/// --depfile and --stamp, after the files are written.
int writeBuildFiles(const CompileFlags& flags, const DeviceFlags& deviceFlags) {
  if (!flags.depfile.empty()) {
    std::string target =
        flags.stamp.empty() ? (fs::path(flags.output) / "plan.json").string() : flags.stamp;
    std::string rule = makeWord(target) + ": " + makeWord(flags.pipeline.input);
    for (const std::string& input : {deviceFlags.file, flags.pipeline.knobs.db})
      if (!input.empty()) rule += " " + makeWord(input);
    if (int code = writeOutput(flags.depfile, rule + "\n"); code != kSuccess) return code;
  }
  if (!flags.stamp.empty()) {
    // Rewritten every time (its time stamp is the point), unlike the generated files.
    if (int code = writeOutput(flags.stamp, "ttlplan compile " + flags.pipeline.input + "\n");
        code != kSuccess)
      return code;
  }
  return kSuccess;
}

} // namespace

int runCompile(const CompileFlags& flags, const DeviceFlags& deviceFlags) {
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  if (flags.listOutputs) return listOutputs(flags, *device);
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
  if (flags.emulator) codegen::addEmuFiles(*files, *device);

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
                             (fs::path(flags.output) / f.path).string(), lines);
  }
  return writeBuildFiles(flags, deviceFlags);
}

} // namespace ttlplan::tools
