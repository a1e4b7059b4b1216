#pragma once
// The `ttlplan` subcommands: thin glue from parsed flags to library calls.
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

struct DeviceFlags {
  std::string name = "wormhole_b0"; ///< --device
  std::string file;                 ///< --device-file (wins over --device)
  std::string grid;                 ///< --grid YxX: the compute grid instead of the device's
};

/// The knob flags of the commands that plan (plan, lower, compile, run, cost) and of tune:
/// tools/Knobs.cpp.
struct KnobFlags {
  std::string bind;   ///< --bind NAME=V,...
  std::string config; ///< --config: "" or "ttnn-default"
  /// --db FILE (the planning commands): the unbound knobs from the best record of a tuning db
  /// instead of a search (`tune --db` has its own meaning: the records it writes).
  std::string db;
  bool noTune = false; ///< --no-tune (the planning commands): an unbound knob is an error
};

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
  std::string input;            ///< FILE.csv
  std::string output;           ///< -o; stdout when empty
  int64_t capacity = 0;         ///< --capacity; 0 = unbounded (minimise the peak)
  std::string solver = "exact"; ///< --solver
  double timeLimitSeconds = 0;  ///< --time-limit; 0 = none
  int64_t nodeLimit = 0;        ///< --node-limit; 0 = none
};

struct PlanFlags {
  std::string input;            ///< FILE
  std::string solver = "exact"; ///< --solver (L1 placement back end)
  double timeLimitSeconds = 0;  ///< --time-limit per sub-problem; 0 = none
  std::string jsonOutput;       ///< --json OUT
  KnobFlags knobs;              ///< --bind, --config
  int maxBlockCount = 4;        ///< --max-block-count
  std::string output;           ///< -o: the planned IR (ttl.bind_cb attributes) goes here
};

/// Flags every command that runs the lowering pipeline shares (`lower`, `compile`, `run`).
struct PipelineFlags {
  std::string input;                     ///< FILE
  std::string pipeline;                  ///< --pipeline; empty = lower::kDefaultPipeline
  bool printIrAfterAll = false;          ///< --print-ir-after-all
  std::vector<std::string> printIrAfter; ///< --print-ir-after NAME
  bool timePasses = false;               ///< --time-passes
  std::string solver = "exact";          ///< --solver
  double timeLimitSeconds = 0;           ///< --time-limit per sub-problem
  KnobFlags knobs;                       ///< --bind, --config
  int maxBlockCount = 4;                 ///< --max-block-count
  /// Per kernel, block counts of its `?` CBs by position (no flag: `tune --emit` passes the tuned
  /// ones; lower::PlanOptions::kernelBlockCounts).
  std::vector<std::map<size_t, int64_t>> kernelBlockCounts;
};

struct LowerFlags {
  PipelineFlags pipeline;
  std::string output; ///< -o; stdout when empty
  bool generic = false;
};

/// `ttlplan compile` (tools/CompileCommand.cpp).
struct CompileFlags {
  PipelineFlags pipeline;
  std::string output;       ///< -o DIR: the generated files go under it
  bool timings = false;     ///< --timings: plan.json and report.txt keep the solvers' times
  bool emulator = false;    ///< --emulator: the emulator's registry and device.json too
  bool listOutputs = false; ///< --list-outputs: print the output paths, write nothing
  std::string depfile;      ///< --depfile FILE: the inputs as a Makefile rule
  std::string stamp;        ///< --stamp FILE: touched after a successful compile
};

/// Writes `text` to `path`, or to stdout when `path` is empty. A failed write is reported and
/// gives kInvalidInput.
int writeOutput(const std::string& path, const std::string& text);
/// The device named by the flags, with --grid applied; prints the error and sets `exitCode` when
/// there is none (an unknown name or a grid that does not fit is a usage error, a broken file
/// invalid input).
std::optional<ir::Device> resolveDevice(const DeviceFlags& flags, int& exitCode);

/// FILE parsed and verified; null (diagnostics printed, `exitCode` = invalid input) when it is not
/// a valid TTL file.
std::unique_ptr<ir::Module> parseVerified(const std::string& path, int& exitCode);

/// The binding --bind and --config ask for on `module` (nullopt: neither given); prints the error
/// and sets `exitCode` on failure (a malformed flag is a usage error, a config ttnn cannot give
/// for the module invalid input).
bool resolveKnobs(const KnobFlags& flags, const ir::Module& module, const ir::Device& device,
                  std::optional<ir::Binding>& binding, int& exitCode);

int runPrint(const PrintFlags& flags);
int runVerify(const VerifyFlags& flags, const DeviceFlags& device);
int runDevices(const DeviceFlags& device, bool json);
int runOps();
int runAlloc(const AllocFlags& flags);
int runPlan(const PlanFlags& flags, const DeviceFlags& device);
int runLower(const LowerFlags& flags, const DeviceFlags& device);
int runCompile(const CompileFlags& flags, const DeviceFlags& device);

/// `ttlplan run` (tools/RunCommand.cpp).
struct RunFlags {
  PipelineFlags pipeline;
  uint64_t seed = 1;                       ///< --seed: random inputs
  std::string inputsDir;                   ///< --inputs DIR: one float32 <arg>.npy per argument
  std::string dumpDir;                     ///< --dump DIR: every argument after the run
  std::string workDir;                     ///< --work-dir: keep the generated files here
  bool keep = false;                       ///< --keep: keep the temporary work directory
  bool noValidate = false;                 ///< --no-validate: skip the plan validators
  std::vector<std::string> forceCbAddress; ///< --force-cb-address NAME=ADDR (testing)
};
int runRun(const RunFlags& flags, const DeviceFlags& device);

} // namespace ttlplan::tools
