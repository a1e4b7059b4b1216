#pragma once
// The `ttlplan` subcommands: thin glue from parsed flags to library calls.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ttlplan::tools {

/// Exit codes: 0 success, 1 the input is invalid (diagnostics printed), 2 usage error.
enum ExitCode { kSuccess = 0, kInvalidInput = 1, kUsageError = 2 };

// The flags of the workflow commands parse straight into the driver's requests (driver/Driver.h).
using DeviceFlags = driver::DeviceRequest;
using KnobFlags = driver::KnobRequest;
using PipelineFlags = driver::LowerRequest;

struct PrintFlags {
  std::string input;      ///< FILE
  std::string output;     ///< -o; stdout when empty
  bool generic = false;   ///< --generic
  bool noAliases = false; ///< --no-aliases
};

struct VerifyFlags {
  std::string input;              ///< FILE
  bool splitInputFile = false;    ///< --split-input-file
  bool verifyDiagnostics = false; ///< --verify-diagnostics
};

struct AllocFlags {
  std::string input;              ///< FILE.csv
  std::string output;             ///< -o; stdout when empty
  int64_t capacity = 0;           ///< --capacity; 0 = unbounded (minimise the peak)
  std::string solver = "exact";   ///< --solver
  double timeLimitSeconds = 0;    ///< --time-limit; 0 = none
  int64_t nodeLimit = 0;          ///< --node-limit; 0 = none
  planner::l1::ExactParams exact; ///< --no-RULE: the exact solver's pruning rules
};

struct PlanFlags : driver::PlanRequest {
  std::string jsonOutput; ///< --json OUT ('-': stdout)
  std::string htmlOutput; ///< --html OUT
  std::string output;     ///< -o: the planned IR (ttl.bind_cb attributes) goes here
};

struct LowerFlags {
  PipelineFlags pipeline;
  std::string output; ///< -o; stdout when empty
  bool generic = false;
};

/// `ttlplan compile` (tools/CompileCommand.cpp).
struct CompileFlags : driver::CompileRequest {
  bool listOutputs = false; ///< --list-outputs: print the output paths, write nothing
};

/// Writes `text` to `path`, or to stdout when `path` is empty. A failed write is reported and
/// gives kInvalidInput.
int writeOutput(const std::string& path, const std::string& text);
/// The device named by the flags, with --grid applied; prints the error and sets `exitCode` when
/// there is none (an unknown name or a grid that does not fit is a usage error, a broken file
/// invalid input).
std::optional<ir::Device> resolveDevice(const DeviceFlags& flags, int& exitCode);

/// Prints a driver error (its text, on stderr) and returns its exit code.
int report(const driver::Error& error);
/// Writes a driver Log line to stderr.
void logToStderr(const std::string& line);

int runPrint(const PrintFlags& flags);
int runVerify(const VerifyFlags& flags, const DeviceFlags& device);
int runDevices(const DeviceFlags& device, bool json);
int runOps();
/// `ttlplan options [--markdown]`: every option table (docs/options.md is the Markdown).
int runOptions(bool markdown);
int runAlloc(const AllocFlags& flags);
int runPlan(const PlanFlags& flags, const DeviceFlags& device);
int runLower(const LowerFlags& flags, const DeviceFlags& device);
int runCompile(const CompileFlags& flags, const DeviceFlags& device);

/// `ttlplan run` (tools/RunCommand.cpp).
struct RunFlags : driver::RunRequest {
  bool noValidate = false;                 ///< --no-validate: skip the plan validators
  std::vector<std::string> forceCbAddress; ///< --force-cb-address NAME=ADDR (testing)
};
int runRun(const RunFlags& flags, const DeviceFlags& device);

} // namespace ttlplan::tools
