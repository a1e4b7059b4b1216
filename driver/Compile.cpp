// compileFile and listOutputs: the generated C++ and what a build system needs around it
// (docs/codegen.md, docs/library.md).
#include "ttlplan/codegen/EmuBuild.h"
#include "ttlplan/driver/Driver.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace ttlplan::driver {

namespace fs = std::filesystem;

namespace {

/// A path as a Makefile rule word: spaces, '#' and '\' escaped, '$' doubled.
std::string makeWord(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == '\\') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

Result<bool> writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (out << text) return true;
  return Error::io(fmt::format("cannot write '{}'", path));
}

/// --depfile and --stamp, after the files are written.
Result<bool> writeBuildFiles(const CompileRequest& request) {
  if (!request.depfile.empty()) {
    std::string target =
        request.stamp.empty() ? (fs::path(request.output) / "plan.json").string() : request.stamp;
    std::string rule = makeWord(target) + ": " + makeWord(request.lower.input);
    for (const std::string& input : {request.deviceFile, request.lower.knobs.db})
      if (!input.empty()) rule += " " + makeWord(input);
    if (Result<bool> ok = writeText(request.depfile, rule + "\n"); !ok) return ok;
  }
  // Rewritten every time (its time stamp is the point), unlike the generated files.
  if (!request.stamp.empty())
    return writeText(request.stamp, "ttlplan compile " + request.lower.input + "\n");
  return true;
}

} // namespace

Result<Compiled> compileFile(const CompileRequest& request, const ir::Device& device,
                             const Log& log) {
  Result<Lowered> lowered = lowerFile(request.lower, device, log);
  if (!lowered) return lowered.error();
  return compileLowered(*lowered, request, device);
}

Result<Compiled> compileLowered(const Lowered& lowered, const CompileRequest& request,
                                const ir::Device& device) {
  ir::DiagnosticEngine diags;
  codegen::EmitOptions options;
  options.sources = lowered.sources.get();
  options.inputFile =
      lowered.module->fileName.empty() ? request.lower.input : lowered.module->fileName;
  options.timings = request.timings;
  Compiled out;
  out.sources = lowered.sources;
  std::optional<std::vector<codegen::GeneratedFile>> files = codegen::emitModule(
      *lowered.module, device, lowered.plan ? &*lowered.plan : nullptr, options, diags);
  if (!files) return Error::located(diags, lowered.sources);
  out.warnings = lowered.warnings;
  out.warnings.insert(out.warnings.end(), diags.diagnostics().begin(), diags.diagnostics().end());
  if (request.emulator) codegen::addEmuFiles(*files, device);
  Expected<std::vector<bool>> written = codegen::writeFiles(request.output, *files);
  if (!written) return Error::io(written.error().message);
  out.files = std::move(*files);
  out.written = std::move(*written);
  if (Result<bool> ok = writeBuildFiles(request); !ok) return ok.error();
  return out;
}

Result<std::vector<std::string>> listOutputs(const std::string& input, const std::string& output,
                                             bool emulator, const ir::Device& device) {
  Result<Source> source = parseVerified(input);
  if (!source) return source.error();
  std::vector<codegen::GeneratedFile> files;
  for (std::string& path : codegen::outputPaths(*source->module, /*planned=*/true))
    files.push_back({std::move(path), ""});
  if (emulator) codegen::addEmuFiles(files, device);
  std::vector<std::string> out;
  for (const codegen::GeneratedFile& f : files)
    out.push_back((fs::path(output) / f.path).string());
  return out;
}

} // namespace ttlplan::driver
