#pragma once
// What the `ttlplan` command files share (tools/Command.h has the command table): exit codes,
// the flag structs of more than one command, output, error reporting and --split-input-file.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::tools {

/// Exit codes: 0 success, 1 the input is invalid (diagnostics printed), 2 usage error.
enum ExitCode { kSuccess = 0, kInvalidInput = 1, kUsageError = 2 };

// The flags of the workflow commands parse straight into the driver's requests (driver/Driver.h).
using DeviceFlags = driver::DeviceRequest;
using KnobFlags = driver::KnobRequest;
using PipelineFlags = driver::LowerRequest;

/// `ttlplan compile` (tools/CompileCommand.cpp).
struct CompileFlags : driver::CompileRequest {
  bool listOutputs = false; ///< --list-outputs: print the output paths, write nothing
};

/// With `split` (--split-input-file), runs `each` once per `// -----` chunk of the file `path`,
/// printing `// -----` between their outputs as mlir-opt does, and returns the worst exit code; a
/// file output (`outputs` names the flags' values) would be overwritten by each chunk, so it is a
/// usage error. Without `split`, runs `each` once on the whole file.
int forEachChunk(const std::string& path, bool split, const std::vector<std::string>& outputs,
                 const std::function<int(std::optional<size_t>)>& each);
/// Writes `text` to `path`, or to stdout when `path` is empty. A failed write is reported and
/// gives kInvalidInput.
int writeOutput(const std::string& path, const std::string& text);
/// The device named by the flags, with --grid applied; prints the error and sets `exitCode` when
/// there is none (an unknown name or a grid that does not fit is a usage error, a broken file
/// invalid input).
std::optional<ir::Device> resolveDevice(const DeviceFlags& flags, int& exitCode);

/// Prints a driver error (its text, on stderr) and returns its exit code.
int report(const driver::Error& error);
/// report(), after writing an infeasible plan's JSON (lower::toJson of the failure) to
/// `jsonOutput` ("-": stdout; "": none): `plan --json` and `cost --json` keep the status and the
/// reasons as data.
int reportWithJson(const driver::Error& error, const std::string& jsonOutput);
/// Writes a driver Log line to stderr.
void logToStderr(const std::string& line);

/// What `compile` prints of `compiled`: its warnings (stderr), then a line per file under
/// `outputDir` (stdout).
void printCompiled(const driver::Compiled& compiled, const std::string& outputDir);

/// `ttlplan run` (tools/RunCommand.cpp).
struct RunFlags : driver::RunRequest {
  bool noValidate = false;                 ///< --no-validate: skip the plan validators
  std::vector<std::string> forceCbAddress; ///< --force-cb-address NAME=ADDR (testing)
};
/// What `run` prints of an outcome: the emulator's output, the comparison table, PASS or FAIL.
void printRunOutcome(const RunFlags& flags, const std::string& device,
                     const driver::RunOutcome& run);

} // namespace ttlplan::tools
