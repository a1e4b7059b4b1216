// `ttlplan verify`: check a TTL file and print its diagnostics (or, with --verify-diagnostics,
// check them against the file's expected-error annotations).
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"

#include <iostream>
#include <memory>

namespace ttlplan::tools {

namespace {

int runVerify(const driver::VerifyRequest& request, const DeviceFlags& device) {
  int exitCode = kSuccess;
  if (!resolveDevice(device, exitCode)) return exitCode;
  driver::Result<driver::Verified> verified = driver::verifyFile(request);
  if (!verified) {
    // A file that cannot be read is a usage error, as for every command that checks its input.
    if (verified.error().kind == driver::ErrorKind::Io) {
      std::cerr << driver::errorLine(verified.error().message);
      return kUsageError;
    }
    return report(verified.error());
  }
  std::cerr << verified->mismatches;
  for (const ir::Diagnostic& d : verified->diagnostics)
    std::cerr << paintDiagnostics(ir::format(d, verified->sources.get()), terminal().colourStderr);
  return verified->passed ? kSuccess : kInvalidInput;
}

} // namespace

Runner addVerifyCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<driver::VerifyRequest>();
  CLI::App* cmd = app.add_subcommand(
      "verify", "Check placement, circular-buffer protocol, types and knobs; print diagnostics");
  cmd->add_option("file", flags->input, "TTL file")->required()->check(CLI::ExistingFile);
  addOption(*cmd, commandOptions("every command").at("split-input-file"), flags->splitInputFile);
  addOption(*cmd, commandOptions("verify").at("verify-diagnostics"), flags->verifyDiagnostics);
  addDeviceFlags(*cmd, shared.device);
  return [flags, &shared] { return runVerify(*flags, shared.device); };
}

} // namespace ttlplan::tools
