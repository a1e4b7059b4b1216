// `ttlplan verify`: check a TTL file and print its diagnostics (or, with --verify-diagnostics,
// check them against the file's expected-error annotations).
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"
#include "ttlplan/ir/ExpectedDiagnostics.h"
#include "ttlplan/ir/ImportTtlang.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/support/ReadFile.h"

#include <iostream>
#include <memory>

namespace ttlplan::tools {

namespace {

struct VerifyFlags {
  std::string input;              ///< FILE
  bool splitInputFile = false;    ///< --split-input-file
  bool verifyDiagnostics = false; ///< --verify-diagnostics
};

/// Parses and verifies one chunk; returns the diagnostics.
std::vector<ir::Diagnostic> checkChunk(const std::string& text, const std::string& file) {
  ir::DiagnosticEngine diags;
  if (auto module = ir::parseSource(text, file, diags))
    if (ir::importTtlang(*module, diags)) (void)ir::verify(*module, diags);
  return diags.diagnostics();
}

int runVerify(const VerifyFlags& flags, const DeviceFlags& device) {
  int exitCode = kSuccess;
  if (!resolveDevice(device, exitCode)) return exitCode;
  Expected<std::string> read = readTextFile(flags.input);
  if (!read) {
    std::cerr << driver::errorLine(read.error().message);
    return kUsageError;
  }
  const std::string& text = *read;
  std::vector<std::string> chunks =
      flags.splitInputFile ? ir::splitInputFile(text) : std::vector<std::string>{text};
  ir::SourceManager sources;
  sources.add(flags.input, text);
  bool ok = true;
  for (const std::string& chunk : chunks) {
    std::vector<ir::Diagnostic> diags = checkChunk(chunk, flags.input);
    if (flags.verifyDiagnostics) {
      std::vector<ir::ExpectedDiagnostic> expected = ir::parseExpectedDiagnostics(chunk);
      std::string report;
      if (!ir::checkExpectedDiagnostics(flags.input, diags, expected, report)) {
        std::cerr << report;
        ok = false;
      }
      continue;
    }
    for (const ir::Diagnostic& d : diags) {
      std::cerr << paintDiagnostics(ir::format(d, &sources), terminal().colourStderr);
      ok = ok && d.severity != ir::Severity::Error;
    }
  }
  return ok ? kSuccess : kInvalidInput;
}

} // namespace

Runner addVerifyCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<VerifyFlags>();
  CLI::App* cmd = app.add_subcommand(
      "verify", "Check placement, circular-buffer protocol, types and knobs; print diagnostics");
  cmd->add_option("file", flags->input, "TTL file")->required()->check(CLI::ExistingFile);
  addOption(*cmd, commandOptions("every command").at("split-input-file"), flags->splitInputFile);
  addOption(*cmd, commandOptions("verify").at("verify-diagnostics"), flags->verifyDiagnostics);
  addDeviceFlags(*cmd, shared.device);
  return [flags, &shared] { return runVerify(*flags, shared.device); };
}

} // namespace ttlplan::tools
