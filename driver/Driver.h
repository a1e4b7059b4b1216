#pragma once
// The driver library: ttlplan's workflows as functions, for the `ttlplan` executable (which keeps
// only flag parsing and printing) and for library users (docs/library.md). Each takes a request
// (the fields are the command-line flags of the same name, docs/cli.md) and returns the outcome
// or a structured driver::Error; none throws or prints. Lines a user should see while it works
// (the binding it picked, warnings, --print-ir-after dumps) go to the `Log` callback.
#include "ttlplan/codegen/Codegen.h"
#include "ttlplan/driver/Error.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/PtoDevice.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/lower/PtoPlanner.h"
#include "ttlplan/planner/l1/Solve.h"
#include "ttlplan/search/Pick.h"
#include "ttlplan/search/Tuner.h"
#include "ttlplan/search/TuningDb.h"
#include "ttlplan/search/cost/Report.h"
#include "ttlplan/search/cost/pto/Model.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::driver {

/// Receives progress and warning lines, each ending in '\n' (`ttlplan` writes them to stderr).
using Log = std::function<void(const std::string&)>;

// --- Requests ------------------------------------------------------------------------------------

/// The targets ttlplan plans for (--target).
inline constexpr std::string_view kTenstorrentTarget = "tenstorrent";
inline constexpr std::string_view kPtoTarget = "pto"; ///< Ascend AI cores through pto-isa
/// The Ascend description `--target pto` plans for when --device names none.
inline constexpr std::string_view kDefaultPtoDevice = "ascend_a2a3";

/// Which device: --device, --device-file, --grid, --target.
struct DeviceRequest {
  /// --device: a built-in description (under --target pto an Ascend one: `ttlplan` puts
  /// kDefaultPtoDevice here when --device is not given)
  std::string name{ir::kDefaultDevice};
  std::string file; ///< --device-file (wins over `name`)
  std::string grid; ///< --grid YxX: the compute grid instead of the device's
  /// --target: "tenstorrent" or "pto" (last, so that {name, file, grid} still reads as before)
  std::string target{kTenstorrentTarget};
};

/// What binding to plan with: --bind, --config, --db, --no-tune.
struct KnobRequest {
  std::string bind;   ///< --bind NAME=V,...
  std::string config; ///< --config: "", "ttnn-default" or "tt-mlir-rule"
  /// --db FILE (the planning functions): the unbound knobs from the best record of a tuning db
  /// instead of a search (`tune --db` has its own meaning: the records it writes).
  std::string db;
  bool noTune = false; ///< --no-tune: an unbound knob is an error instead of tuned
};

/// `print`: a TTL file read and written back.
struct PrintRequest {
  std::string input;                ///< the TTL file
  std::optional<size_t> inputChunk; ///< only this `// -----` chunk of it (--split-input-file)
  bool generic = false;             ///< --generic: generic MLIR form
  bool useAliases = true;           ///< false for --no-aliases: every type spelled in full
};

/// `verify`: a TTL file parsed, imported and verified, every chunk on its own.
struct VerifyRequest {
  std::string input;              ///< the TTL file
  bool splitInputFile = false;    ///< --split-input-file: each `// -----` chunk a module
  bool verifyDiagnostics = false; ///< --verify-diagnostics: against the expected-error comments
};

/// `alloc`: the L1 placement solvers on a CSV of buffers (docs/alloc.md).
struct AllocRequest {
  std::string input;    ///< the CSV file
  int64_t capacity = 0; ///< --capacity; 0 = unbounded (minimise the peak)
  std::string solver{planner::l1::toString(planner::kernel::kDefaultSolver)}; ///< --solver
  double timeLimitSeconds = 0;    ///< --time-limit; 0 = none
  int64_t nodeLimit = 0;          ///< --node-limit; 0 = none
  planner::l1::ExactParams exact; ///< --no-RULE: the exact solver's pruning rules
};

/// `plan`: the planner alone.
struct PlanRequest {
  std::string input;                ///< the TTL file
  std::optional<size_t> inputChunk; ///< only this `// -----` chunk of it (--split-input-file)
  std::string solver{
      planner::l1::toString(planner::kernel::kDefaultSolver)}; ///< --solver (L1 placement back end)
  double timeLimitSeconds = 0; ///< --time-limit per sub-problem; 0 = none
  KnobRequest knobs;
  int maxBlockCount = planner::kernel::kDefaultMaxBlockCount; ///< --max-block-count
  planner::l1::ExactParams exact; ///< --no-RULE: the exact L1 solver's pruning rules
  /// Per kernel, block counts of its `?` CBs by position (no flag: `tune --html` plans its pick
  /// with them; lower::PlanOptions::kernelBlockCounts).
  std::vector<std::map<size_t, int64_t>> kernelBlockCounts;
};

/// The lowering pipeline (`lower`, `compile`, `run`).
struct LowerRequest {
  std::string input;                     ///< the TTL file
  std::optional<size_t> inputChunk;      ///< only this `// -----` chunk of it (--split-input-file)
  std::string pipeline;                  ///< --pipeline; empty = lower::kDefaultPipeline
  bool printIrAfterAll = false;          ///< --print-ir-after-all (to the Log)
  std::vector<std::string> printIrAfter; ///< --print-ir-after NAME (to the Log)
  bool timePasses = false;               ///< --time-passes (to the Log)
  bool generic = false; ///< --generic: IR (lower's output, every dump) in generic MLIR form
  std::string solver{planner::l1::toString(planner::kernel::kDefaultSolver)}; ///< --solver
  double timeLimitSeconds = 0; ///< --time-limit per sub-problem
  KnobRequest knobs;
  int maxBlockCount = planner::kernel::kDefaultMaxBlockCount; ///< --max-block-count
  planner::l1::ExactParams exact; ///< --no-RULE: the exact L1 solver's pruning rules
  /// Per kernel, block counts of its `?` CBs by position (no flag: `tune --emit` passes the tuned
  /// ones; lower::PlanOptions::kernelBlockCounts).
  std::vector<std::map<size_t, int64_t>> kernelBlockCounts;
  /// Testing hooks (`run --force-cb-address`, `--no-validate`; lower::PassContext's).
  std::vector<std::pair<std::string, int64_t>> forcedCbAddresses;
  bool validatePlan = true;
};

/// `compile`.
struct CompileRequest {
  LowerRequest lower;
  std::string output;     ///< -o DIR: the generated files go under it
  bool timings = false;   ///< --timings: plan.json and report.txt keep the solvers' times
  bool emulator = false;  ///< --emulator: the emulator's wrappers, registry and device.json too
  std::string depfile;    ///< --depfile FILE: the inputs as a Makefile rule for `stamp`
  std::string stamp;      ///< --stamp FILE: rewritten after a successful compile
  std::string deviceFile; ///< --device-file, when the device came from one (for the depfile)
};

/// `run`.
struct RunRequest {
  LowerRequest lower;
  uint64_t seed = 1;     ///< --seed: random inputs
  std::string inputsDir; ///< --inputs DIR: one float32 <arg>.npy per argument
  std::string dumpDir;   ///< --dump DIR: every argument after the run
  std::string kernel;    ///< --kernel NAME: the kernel to run of a file that has several
  std::string workDir;   ///< --work-dir: generate, build and run here, and keep it
  bool keep = false;     ///< --keep: keep the temporary work directory
  /// --timeout: seconds the emulated program, and then the reference interpreter, may each
  /// take before they are stopped (the interpreter reports what each thread was executing).
  double timeoutSeconds = 300;
  /// The emulator to build against (its include folder and libttlplan_emu.a). Empty: the
  /// installed one when the running program is PREFIX/bin/ttlplan, else the build tree's. A
  /// library user whose ttlplan was installed elsewhere names the installed ones here.
  std::string emuIncludeDir, emuLibrary;
  /// Called as each step starts ("lowering", "building with g++", "emulating"), for progress.
  std::function<void(const std::string&)> onStep;
};

/// `tune` (docs/tuning.md; search/TuneOptions.h documents each field's option).
struct TuneRequest {
  std::string input;                   ///< the TTL file
  std::optional<size_t> inputChunk;    ///< only this `// -----` chunk of it (--split-input-file)
  KnobRequest knobs;                   ///< --bind (the knobs not searched), --config
  std::string strategy = "exhaustive"; ///< --strategy
  uint64_t budgetEvals = 0;            ///< --budget-evals; 0 = the whole space (exhaustive only)
  double timeLimitSeconds = 0;         ///< --time-limit of the search
  int threads = 0;                     ///< --threads; 0 = every hardware thread
  uint64_t seed = 1;                   ///< --seed
  std::string db;                      ///< --db FILE: a record per evaluated point
  bool resume = false;                 ///< --resume: continue --db
  std::string shard;                   ///< --shard I/N
  size_t top = 5;                      ///< --top K
  int maxBlockCount =
      planner::kernel::kDefaultMaxBlockCount; ///< --max-block-count: `?` counts searched are 1..N
  int64_t nodeLimit = 0;                      ///< --node-limit per planner sub-problem
  bool keepPoints = false; ///< every feasible point in the result (--html's scatter)
  /// The pick keeps its kernels' plans (search::TuneOptions::keepKernelPlans), so that
  /// pickPlanOptions hands them to planning and lowering instead of planning the point again
  /// (--emit, --html, --verify-best).
  bool keepPickPlans = false;
};

/// `db rerank`.
struct RerankRequest {
  std::string file;      ///< the tuning db
  std::string kernel;    ///< --kernel: the TTL file the records are for
  DeviceRequest device;  ///< --device, --device-file, --grid; an empty name: the db's device
  std::string output;    ///< -o; empty: rewrite `file`
  int64_t nodeLimit = 0; ///< --node-limit per planner sub-problem
};

// --- Outcomes ------------------------------------------------------------------------------------

/// What `verify` found.
struct Verified {
  /// Every diagnostic of every chunk, in order (without --verify-diagnostics).
  std::vector<ir::Diagnostic> diagnostics;
  /// --verify-diagnostics: what did not match the expected-error comments ("" when all did).
  std::string mismatches;
  std::shared_ptr<ir::SourceManager> sources;
  bool passed = false; ///< no error (with --verify-diagnostics: every expectation met)
};

/// What `alloc` placed: the CSV's problem (with the capacity) and the solver's result.
struct Allocated {
  planner::l1::Problem problem;
  planner::l1::Result result;
};

/// A parsed and verified TTL file.
struct Source {
  std::unique_ptr<ir::Module> module;
  std::shared_ptr<ir::SourceManager> sources;
  bool verified = false; ///< the module passed ir::verify (parseVerified), so lowering need not
                         ///< verify it again
};

struct Planned {
  Source source;
  lower::ModulePlan plan;
  /// The plan's predicted time and trade-offs (search::cost::costPlan); nullopt when the cost
  /// model cannot read a kernel (costError says why; the plan stands).
  std::optional<search::cost::CostReport> cost;
  std::string costError;
};

/// What `plan --target pto` planned.
struct PtoPlanned {
  Source source;
  lower::PtoModulePlan plan;
};

/// What `cost --target pto` predicts: the plan and each kernel's cost (search/cost/pto/Model.h).
struct PtoCosted {
  PtoPlanned planned;
  std::vector<search::cost::pto::KernelCost> kernels; ///< in program order
  double nanoseconds = 0;                             ///< the kernels' sum
};

/// What `tune --target pto` found.
struct PtoTuned {
  Source source;
  ir::Binding fixed;         ///< --bind
  search::TuneResult result; ///< top K best first; rejections by reason
};

struct Lowered {
  std::unique_ptr<ir::Module> module;
  std::optional<lower::ModulePlan> plan; ///< when the pipeline had a `plan` pass
  std::shared_ptr<ir::SourceManager> sources;
  std::vector<ir::Diagnostic> warnings; ///< the pipeline's warnings (it succeeded)
};

struct Compiled {
  std::vector<codegen::GeneratedFile> files; ///< paths relative to CompileRequest::output
  std::vector<bool> written;                 ///< per file: false when its text was already there
  std::vector<ir::Diagnostic> warnings;
  std::shared_ptr<ir::SourceManager> sources;
};

/// One kernel argument after an emulated run, against the reference.
struct ArgumentCheck {
  std::string name;    ///< without '%'
  std::string missing; ///< why the emulated program left no output ("" when it did)
  double maxAbsError = 0;
  double maxRelError = 0;
  double tolerance = 0; ///< relative
  std::string summary;  ///< reference::Comparison::summary
  bool withinTolerance = false;
  std::string dumpError; ///< --dump: why copying it failed ("" when it did not)
};

struct RunOutcome {
  std::string workDir;
  bool workDirRemoved = false; ///< a temporary work directory of a passing run is removed
  double lowerSeconds = 0, buildSeconds = 0, emulateSeconds = 0;
  std::string emulatorOutput; ///< the emulated program's stdout and stderr
  int emulatorExit = 0;       ///< its exit status (3: the emulator found errors)
  std::vector<ArgumentCheck> arguments;
  bool passed = false; ///< exit 0 and every argument within tolerance (and dumped)
};

/// A baseline config of a matmul template (ttnn's default, tt-mlir's rule), evaluated like any
/// point.
struct TuneBaseline {
  ir::Binding binding;
  search::Record record;
};

/// `config` ("ttnn-default" or "tt-mlir-rule", as --config spells them) bound over `fixed` and
/// `anchor` (other knob values the config is to be sized for, such as a point's DTYPE) and
/// evaluated; its record's point holds every knob `fixed` leaves out. nullopt for a kernel that is
/// not a matmul template, knobs that already bind other config values, or a config that does not
/// fit. With `keepKernelPlans`, its record keeps its kernels' plans (Record::kernelPlans).
std::optional<TuneBaseline> evaluateBaseline(std::string_view config, const ir::Module& module,
                                             const ir::Device& device, const ir::Binding& fixed,
                                             const planner::kernel::PlanOptions& plan,
                                             const ir::Binding& anchor = {},
                                             bool keepKernelPlans = false);

/// The pick of a search (docs/tuning.md, "The pick") and the baseline it was weighed against.
struct RulePick {
  search::Pick pick;
  std::optional<TuneBaseline> rule; ///< tt-mlir's rule's config for the fastest point's problem
};

/// The pick of a search whose fastest feasible point is `fastest`: tt-mlir's rule's config, sized
/// for the fastest point's problem and precision knobs (DTYPE, FIDELITY, ...), unless `fastest`
/// is predicted faster by more than the device's cost.rank_uncertainty; `fastest` for a kernel
/// that is not a matmul template or where the rule's config does not fit.
RulePick pickOverRule(const ir::Module& module, const ir::Device& device, const ir::Binding& fixed,
                      const search::Record& fastest, const planner::kernel::PlanOptions& plan);

struct Tuned {
  Source source;
  ir::Binding fixed; ///< the knobs --bind and --config fixed
  search::TuneResult result;
  std::optional<TuneBaseline> baseline;     ///< for the matmul templates, when ttnn's config fits
  std::optional<TuneBaseline> rule;         ///< tt-mlir's rule's config, likewise
  std::optional<search::Pick> pick;         ///< the point to use (pickOverRule); nullopt: none fits
  planner::kernel::PlanOptions plannedWith; ///< the planner options the search used
};

/// What a rerank did.
struct Reranked {
  std::vector<search::Record> records; ///< the new db's records, in the old file order
  size_t kept = 0;                     ///< current records copied as they are
  size_t recosted = 0;                 ///< stale ok points costed again from their stored plans
  size_t replanned = 0;                ///< stale ok points planned again
  size_t droppedRejected = 0;          ///< stale rejected records left out
  size_t droppedDuplicates = 0;        ///< stale records of a point already current
  std::vector<std::string> warnings;   ///< stored plans that could not be used (also logged)
  search::DbFile before;               ///< the db as it was read
  search::DbHeader current;            ///< the header written: this ttlplan's versions
  std::string output;                  ///< where the new db was written
};

// --- Functions -----------------------------------------------------------------------------------

/// The device a request names, with its grid applied. Unknown names and bad grids are Usage
/// errors, a broken device file an Input error.
Result<ir::Device> loadDevice(const DeviceRequest& request);

/// A tuning db read (`db show`, `db best`); its skipped lines are in DbFile::warnings. A missing
/// file or one that is not a db is an Input error.
Result<search::DbFile> readDb(const std::string& path);

/// The warning for a db whose current section another planner or cost model wrote (its
/// predictions are out of date until `db rerank`); empty when this ttlplan's wrote it.
std::string staleDbWarning(const std::string& path, const search::DbHeader& header);

/// `db merge`: the dbs of one kernel, bound and device merged into `output` (which must not
/// exist unless `overwrite`).
Result<search::DbFile> mergeDbs(const std::vector<std::string>& inputs, const std::string& output,
                                bool overwrite);

/// The devices `ttlplan devices` describes: the one --device-file names, else every built-in.
Result<std::vector<ir::Device>> listDevices(const DeviceRequest& request);

/// The file printed back in custom (or generic) form; parse errors are Input errors.
Result<std::string> printFile(const PrintRequest& request);

/// Every chunk parsed, imported and verified; a file that cannot be read is an Io error, what the
/// chunks hold is in Verified (not an error).
Result<Verified> verifyFile(const VerifyRequest& request);

/// The CSV read and placed. A bad solver name is a Usage error, a bad CSV an Input error; the
/// solver's own outcome (infeasible, no solution) is in Allocated::result.
Result<Allocated> allocateFile(const AllocRequest& request);

/// `path` parsed: a TTL file (only its `// -----` chunk `chunk`, when given), or a tt-lang Python
/// kernel through the front end (driver/PythonFrontend.h). Its text goes into `sources`. Null
/// with the errors in `diags`, or, for an error without a location (an unreadable file, a bad
/// --args), in `error` with `diags` empty.
std::unique_ptr<ir::Module> parseInputFile(const std::string& path, std::optional<size_t> chunk,
                                           ir::DiagnosticEngine& diags, ir::SourceManager& sources,
                                           Error& error);

/// `path` parsed (parseInputFile) and tt-lang's form imported; not verified.
Result<Source> parseImported(const std::string& path, std::optional<size_t> chunk = std::nullopt);

/// Whether parseVerified adds the reduce scaler CB a Tenstorrent reduction reads
/// (lower::addReduceScalers); pto-isa's TROWSUM/TROWMAX take none.
enum class ScalerCbs : bool { Omit, Add };

/// `path` parsed and verified.
Result<Source> parseVerified(const std::string& path, std::optional<size_t> chunk = std::nullopt,
                             ScalerCbs scalers = ScalerCbs::Add);

/// A deep copy of `source` (its module cloned, its source manager shared): what a caller keeps
/// of the module as written before lowering changes it (`run`'s reference, `tune`'s pick).
Source copySource(const Source& source);

/// --bind's text as a binding: nullopt when empty; a malformed list is a Usage error.
Result<std::optional<ir::Binding>> parseBindFlag(const std::string& bind);

/// The binding --bind and --config give on `module` (nullopt: neither given); a malformed --bind
/// is a Usage error, a config ttnn cannot give for the module an Input error.
Result<std::optional<ir::Binding>> resolveKnobs(const KnobRequest& request,
                                                const ir::Module& module, const ir::Device& device,
                                                const Log& log);

/// The planning commands search the unbound knobs exhaustively when the space (knobs and `?`
/// block counts) has at most this many points, else this many points of the seeded evolve
/// strategy (seed 1; docs/tuning.md compares the strategies): `ttlplan tune --strategy evolve
/// --budget-evals 20000` finds the same.
inline constexpr uint64_t kPlanTuneBudget = 20000;

/// `options` with the binding to plan with (binding, bindingSource, kernelBlockCounts): --bind
/// and --config; when they leave knobs unbound, the best point search::tune finds over them
/// (exhaustive up to kPlanTuneBudget points, else kPlanTuneBudget of a seeded evolve search; the
/// same result at any thread count) and its `?` block counts, or with --db the best usable
/// record of that tuning db (always, also when every knob is bound). Logs one line saying what
/// it chose. `options.maxBlockCount` is the deepest block count searched.
Result<lower::PlanOptions> choosePlanBinding(const KnobRequest& request, const ir::Module& module,
                                             const ir::Device& device, lower::PlanOptions options,
                                             const Log& log);

/// `ttlplan plan`: parse, verify, choose the binding, then planSource. A kernel that does not
/// fit is an Infeasible error with the planner's rejection.
Result<Planned> planFile(const PlanRequest& request, const ir::Device& device, const Log& log);

/// The planning part of a lowering request (`compile` and `run --target pto` plan; they do not
/// run the Tenstorrent pipeline).
PlanRequest planRequestOf(const LowerRequest& lower);

/// The Ascend description of a `--target pto` request: --device-file, else --device; --grid is
/// a usage error there.
Result<ir::pto::Device> loadPtoDevice(const DeviceRequest& request);

/// `ttlplan plan --target pto` (docs/pto.md): parse, verify, bind (--bind; the knobs it leaves
/// out are tuned by searchPto, or take the first legal binding on a device without a cost
/// model), then lower::planPtoModule. A kernel PTO cannot express is an Input error located at the
/// construct; one that does not fit an Infeasible error with the cheapest fix.
Result<PtoPlanned> planPtoFile(const PlanRequest& request, const ir::pto::Device& device,
                               const Log& log);

/// `ttlplan cost --target pto` (docs/pto.md, "Cost"): planPtoFile, then every kernel costed; a
/// device without cost numbers (ascend_a5) is a usage error.
Result<PtoCosted> costPtoFile(const PlanRequest& request, const ir::pto::Device& device,
                              const Log& log);
/// The cost report as JSON ("target": "pto"; docs/pto.md lists the fields) and as text.
nlohmann::json ptoCostJson(const PtoCosted& costed);
std::string formatPtoCost(const PtoCosted& costed, const ir::pto::Device& device);

/// The search options of a tune request (strategy, budget, seed, shard, time limit, threads,
/// top, planner limits); bad strategy or shard texts are Usage errors.
Result<search::TuneOptions> tuneOptions(const TuneRequest& request);

/// `ttlplan tune --target pto` (docs/pto.md, "Tuning"): the knobs --bind leaves out searched
/// (search::tuneWith with search::PtoPointEvaluator: the same strategies, budgets, threads and
/// shards as for Tenstorrent; --db, --resume, --config are usage errors here). `beforeSearch`
/// sees the space, `progress` each round.
Result<PtoTuned> tunePtoFile(const TuneRequest& request, const ir::pto::Device& device,
                             const std::function<void(const search::Space&)>& beforeSearch = {},
                             const std::function<void(const search::TuneProgress&)>& progress = {});

/// The pto search itself: the space of `module`'s knobs that `fixed` leaves out (no planner
/// dimensions: the pto planner chooses the `?` counts), searched with search::PtoPointEvaluator.
/// `device` must have a cost model.
Result<search::TuneResult>
searchPto(const ir::Module& module, const ir::pto::Device& device, const ir::Binding& fixed,
          const search::TuneOptions& options, int maxBlockCount,
          const std::function<void(const search::Space&)>& beforeSearch = {});

/// `ttlplan compile --target pto` (docs/pto.md, "Generated C++"): planPtoFile's plan, then per
/// kernel K the pto-isa C++ file K.cpp (codegen/pto/KernelWriter.h), plus plan.json and
/// report.txt (without timings), written under request.output.
Result<Compiled> compilePtoFile(const CompileRequest& request, const ir::pto::Device& device,
                                const Log& log);

/// `ttlplan run --target pto` (docs/pto.md): planPtoFile, the kernel's pto-isa C++ and a host
/// program built with g++ against the pto emulator, run on the part's cores (cube cores for a
/// matmul, vector cores otherwise, at most one per work item), and every argument compared with
/// the reference interpreter's. A file must hold one kernel.
Result<RunOutcome> runPtoFile(const RunRequest& request, const ir::pto::Device& device,
                              const Log& log);

/// planFile's last steps: `source` (verified) planned under `options` and costed. With
/// options.kernelPlans (choosePlanBinding's and pickPlanOptions' when the search kept them), the
/// plans given are taken: nothing is planned again.
Result<Planned> planSource(Source source, const lower::PlanOptions& options,
                           const ir::Device& device);

/// `ttlplan cost`: planFile's steps, then every kernel's predicted device time
/// (search/cost/Report.h, docs/cost-model.md).
Result<search::cost::CostReport> costFile(const PlanRequest& request, const ir::Device& device,
                                          const Log& log);

/// `ttlplan lower`: parse (request.input), then lowerSource.
Result<Lowered> lowerFile(const LowerRequest& request, const ir::Device& device, const Log& log);

/// `source` (parsed, tt-lang's form imported) through the pipeline of `request`, whose input
/// fields are not read. The plan options are `chosen` when given (tune's pick, pickPlanOptions),
/// else the request's with the binding choosePlanBinding chooses (when the pipeline plans).
Result<Lowered> lowerSource(Source source, const LowerRequest& request, const ir::Device& device,
                            const Log& log,
                            std::optional<lower::PlanOptions> chosen = std::nullopt);

/// `ttlplan compile`: lowerFile, then the generated files written under `request.output` (a
/// file whose text is already there is not rewritten), then --depfile and --stamp.
Result<Compiled> compileFile(const CompileRequest& request, const ir::Device& device,
                             const Log& log);

/// compileFile's last steps: the files generated from `lowered` written under request.output,
/// then --depfile and --stamp (request.lower names the input for them).
Result<Compiled> compileLowered(const Lowered& lowered, const CompileRequest& request,
                                const ir::Device& device);

/// `compile --list-outputs`: the paths compileFile will write under `output`, after parsing
/// and verifying only (for build systems at configure time).
Result<std::vector<std::string>> listOutputs(const std::string& input, const std::string& output,
                                             bool emulator, const ir::Device& device);

/// `ttlplan run`: compile into the work directory, build with g++ against the CPU emulator, run
/// on random (or given) inputs and compare every argument with the independent reference. A
/// run whose outputs differ is an outcome with passed = false, not an error.
Result<RunOutcome> runOnEmulator(const RunRequest& request, const ir::Device& device,
                                 const Log& log);

/// runOnEmulator's steps after lowering: `lowered` built against the emulator and run, and its
/// arguments compared with what the reference interpreter computes from `asWritten` (the module
/// as written: a copySource taken before lowering). request.lower is not run again.
Result<RunOutcome> runLowered(Lowered& lowered, Source asWritten, const RunRequest& request,
                              const ir::Device& device, double lowerSeconds = 0);

/// `ttlplan tune`: the space of the unbound knobs (and `?` block counts) searched by the
/// requested strategy, every point checked against the ttl.requires, planned and costed; with
/// --db a record per point. `beforeSearch` sees the space before the search starts (`ttlplan`
/// prints its size), `progress` the search's progress. A request the strategy cannot serve (no
/// budget, shards of an adaptive search) is a Usage error.
Result<Tuned> tuneFile(const TuneRequest& request, const ir::Device& device, const Log& log,
                       const std::function<void(const search::Space&)>& beforeSearch = nullptr,
                       const std::function<void(const search::TuneProgress&)>& progress = nullptr);

/// `options` to plan the point of `record` (a search over `module` with `fixed` bound): its knob
/// values as the binding (as --bind gives them), its `?` block counts per kernel, and, when the
/// record kept its kernels' plans and they were made under the same planner options
/// (`searchedWith`, planner::kernel::samePlanner), those plans instead of planning again.
lower::PlanOptions pointPlanOptions(const ir::Module& module, const ir::Binding& fixed,
                                    const search::Record& record,
                                    const planner::kernel::PlanOptions& searchedWith,
                                    lower::PlanOptions options);

/// The plan options of tune's pick (`tune --emit`, `--html`, `--verify-best`): its knob values as
/// the binding (as --bind gives them), its `?` block counts per kernel, the deepest block count
/// `maxBlockCount`, and, when the search kept them under the same planner options, its kernels'
/// plans (else the pick is planned again, as for a db record). An Input error when nothing fits.
Result<lower::PlanOptions> pickPlanOptions(const Tuned& tuned, int maxBlockCount);

/// `ttlplan db rerank`: the records of a tuning db costed again under this ttlplan. Current
/// records are kept; each stale ok point is re-costed from its stored plans when they are the
/// current planner's, else planned again; stale rejected records are dropped. The new db is
/// written through a temporary file and a rename (`output` may be the input). Records of
/// another kernel or device are an Input error that says which.
Result<Reranked> rerankDb(const RerankRequest& request, const Log& log);

} // namespace ttlplan::driver
