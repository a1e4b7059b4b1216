// runOnEmulator: plan, lower and compile a kernel, build the generated C++ with g++ against the
// CPU emulator (docs/emulator.md), run it on random (or given) inputs and compare every argument
// with the independent reference (docs/reference.md).
#include "emu_build_info.h"
#include "ttlplan/codegen/EmuBuild.h"
#include "ttlplan/codegen/pto/HostWriter.h"
#include "ttlplan/codegen/pto/KernelWriter.h"
#include "ttlplan/codegen/pto/TypeConverter.h"
#include "ttlplan/driver/Driver.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/reference/Compare.h"
#include "ttlplan/reference/Interpret.h"
#include "ttlplan/reference/RandomInputs.h"
#include "ttlplan/support/Npy.h"
#include "ttlplan/support/Process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace ttlplan::driver {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

/// The exit status of an emulated program whose run was stopped at TTLPLAN_EMU_TIMEOUT
/// (docs/emulator.md), and how much longer than that the process may take before it is killed.
constexpr int kEmulatorStoppedExit = 4;
constexpr double kEmulatorGraceSeconds = 10;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// PREFIX when this program is an installed ttlplan (PREFIX/bin/ttlplan, cmake/Install.cmake).
std::optional<fs::path> installPrefix() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.parent_path().filename() != TTLPLAN_INSTALL_BINDIR) return std::nullopt;
  return exe.parent_path().parent_path();
}

/// Where the emulator's headers and library are: the request's, else under the prefix when this
/// program is an installed ttlplan, else in the build tree it was built in.
std::pair<std::string, std::string> emuIncludeAndLibrary(const RunRequest& request) {
  if (!request.emuIncludeDir.empty() && !request.emuLibrary.empty())
    return {request.emuIncludeDir, request.emuLibrary};
  std::error_code ec;
  if (std::optional<fs::path> prefix = installPrefix();
      prefix && fs::exists(*prefix / TTLPLAN_INSTALL_EMU_LIBRARY, ec))
    return {(*prefix / TTLPLAN_INSTALL_EMU_INCLUDE_DIR).string(),
            (*prefix / TTLPLAN_INSTALL_EMU_LIBRARY).string()};
  return {TTLPLAN_EMU_INCLUDE_DIR, TTLPLAN_EMU_LIBRARY};
}

NpyArray toNpy(const reference::HostTensor& t) {
  NpyArray a;
  a.shape = t.shape;
  a.data.assign(t.data.begin(), t.data.end());
  return a;
}

reference::HostTensor fromNpy(const NpyArray& a) {
  reference::HostTensor t;
  t.shape = a.shape;
  t.data.assign(a.data.begin(), a.data.end());
  return t;
}

/// The inputs: DIR/<name>.npy when --inputs is given (rounded to the tensor's type, as the
/// device would store them), else random numbers from the seed.
Result<std::map<std::string, reference::HostTensor>>
makeInputs(const std::vector<reference::ArgumentInfo>& args, const RunRequest& request) {
  std::map<std::string, reference::HostTensor> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const reference::ArgumentInfo& a = args[i];
    if (request.inputsDir.empty()) {
      out[a.name] =
          reference::randomTensor(a.shape, *a.dataType, request.seed, static_cast<int>(i));
      continue;
    }
    std::string path = (fs::path(request.inputsDir) / (a.name + ".npy")).string();
    Expected<NpyArray> npy = readNpy(path);
    if (!npy) return Error::input("--inputs: " + npy.error().message);
    if (npy->shape != a.shape)
      return Error::input(fmt::format("--inputs: {} has shape [{}] but argument %{} is [{}]", path,
                                      fmt::join(npy->shape, ", "), a.name,
                                      fmt::join(a.shape, ", ")));
    reference::HostTensor t = fromNpy(*npy);
    reference::roundTensorToDataType(t, *a.dataType);
    out[a.name] = std::move(t);
  }
  return out;
}

/// The kernel as written (a copy taken before lowering: the reference never reads the lowered
/// IR) and its arguments under the planned binding.
struct Reference {
  Source source;
  ir::Operation* kernel = nullptr;
  std::string name;
  std::vector<reference::ArgumentInfo> args;
};

/// The kernel `run` runs: the file's only one, or the one --kernel names.
Result<ir::Operation*> chooseKernel(const std::vector<ir::Operation*>& kernels,
                                    const RunRequest& request) {
  std::vector<std::string> names;
  for (ir::Operation* k : kernels) {
    names.push_back(k->attribute("sym_name").stringValue());
    if (!request.kernel.empty() && names.back() == request.kernel) return k;
  }
  if (request.kernel.empty() && kernels.size() == 1) return kernels.front();
  if (kernels.empty())
    return Error::input(fmt::format("run: {} has no ttl.kernel", request.lower.input));
  if (request.kernel.empty())
    return Error::input(fmt::format("run runs one kernel and {} has {} ({}); choose one with "
                                    "--kernel NAME",
                                    request.lower.input, kernels.size(), fmt::join(names, ", ")));
  return Error::input(fmt::format("--kernel {}: {} has no such kernel; it has {}", request.kernel,
                                  request.lower.input, fmt::join(names, ", ")));
}

Result<Reference> referenceKernel(const RunRequest& request, const Lowered& lowered,
                                  Source source) {
  ir::DiagnosticEngine diags;
  if (!source.verified && !ir::verify(*source.module, diags))
    return Error::located(diags, source.sources);
  std::vector<ir::Operation*> kernels = source.module->topLevel("ttl.kernel");
  if (!lowered.plan || lowered.plan->kernels.size() != kernels.size())
    return Error::input(fmt::format("run needs a pipeline that plans every ttl.kernel of {}",
                                    request.lower.input));
  Result<ir::Operation*> chosen = chooseKernel(kernels, request);
  if (!chosen) return chosen.error();
  Reference out{std::move(source), *chosen, "", {}};
  out.name = out.kernel->attribute("sym_name").stringValue();
  auto args = reference::kernelArguments(out.kernel, lowered.plan->binding.binding);
  if (!args) return Error::input(args.error().message);
  for (const reference::ArgumentInfo& a : *args)
    if (!a.dataType)
      return Error::input(fmt::format("run cannot make data for argument %{} (its element type "
                                      "has no device data type)",
                                      a.name));
  out.args = std::move(*args);
  return out;
}

/// The work directory: the request's, or a new temporary one.
/// A temporary work directory holds this file while its `run` lives; a run that ends removes the
/// directory or, with --keep, the file.
constexpr const char* kInUseFile = ".ttlplan-run-in-use";

/// Removes the temporary work directories (TMPDIR/ttlplan-run-PID-XXXXXX) that runs killed with
/// SIGKILL left behind: those still marked in use whose PID names no live process of this user.
/// A live PID keeps its directory, even a reused one: never remove what may be in use.
void removeStaleWorkDirs() {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = entry.path().filename().string();
    long pid = 0;
    int used = 0;
    if (std::sscanf(name.c_str(), "ttlplan-run-%ld-%*6c%n", &pid, &used) != 1 || pid <= 0 ||
        used != static_cast<int>(name.size()))
      continue;
    struct stat info {};
    if (stat(entry.path().c_str(), &info) != 0 || info.st_uid != getuid()) continue;
    if (!fs::exists(entry.path() / kInUseFile, ec)) continue; // kept with --keep
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    fs::remove_all(entry.path(), ec);
  }
}

Result<fs::path> makeWorkDir(const RunRequest& request) {
  fs::path work = request.workDir;
  std::error_code ec;
  if (work.empty()) {
    removeStaleWorkDirs();
    std::string pattern =
        (fs::temp_directory_path() / fmt::format("ttlplan-run-{}-XXXXXX", getpid())).string();
    if (!mkdtemp(pattern.data())) return Error::io("cannot create a temporary directory");
    work = pattern;
    std::ofstream(work / kInUseFile) << "the work directory of a running `ttlplan run`\n";
  }
  fs::create_directories(work / "in", ec);
  fs::create_directories(work / "out", ec);
  return work;
}

/// Writes the generated files (with the emulator's) into `work`; the kernel files.
Result<std::vector<codegen::EmuKernelFile>> generate(const RunRequest& request,
                                                     const ir::Device& device, Lowered& lowered,
                                                     const fs::path& work) {
  codegen::EmitOptions emit;
  emit.sources = lowered.sources.get();
  emit.inputFile = request.lower.input;
  ir::DiagnosticEngine diags;
  auto files = codegen::emitModule(*lowered.module, device, &*lowered.plan, emit, diags);
  if (!files) return Error::located(diags, lowered.sources);
  std::vector<codegen::EmuKernelFile> kernelFiles = codegen::addEmuFiles(*files, device);
  if (Expected<std::vector<bool>> s = codegen::writeFiles(work.string(), *files); !s)
    return Error::io(s.error().message);
  return kernelFiles;
}

/// A step's child was stopped by a signal we got (^C, kill): the run ends there.
Error interrupted(int signal) {
  return Error::make(ErrorKind::Io, fmt::format("interrupted by signal {} ({}); its child process "
                                                "group was killed",
                                                signal, strsignal(signal)));
}

/// One compiler command; its output in the error when it fails.
Result<bool> compile(const std::vector<std::string>& command) {
  Expected<ProcessResult> r = runProcess(command);
  if (r && r->interruptedBy) return interrupted(r->interruptedBy);
  if (!r || r->exitCode != 0)
    return Error::make(ErrorKind::Build,
                       fmt::format("building the generated code failed:\n  {}\n{}",
                                   codegen::shellCommandLine(command),
                                   r ? r->output : r.error().message));
  return true;
}

/// g++ against the emulator: the kernel objects, the registry, the host program.
Result<bool> build(const RunRequest& request, const fs::path& work,
                   const std::vector<codegen::EmuKernelFile>& kernelFiles,
                   const std::string& kernelName) {
  codegen::EmuBuildOptions options;
  options.dir = work.string();
  std::tie(options.emuIncludeDir, options.emuLibrary) = emuIncludeAndLibrary(request);
  options.extraFlags = {TTLPLAN_EMU_CXX_STD, "-O1"};
  auto words = [](std::string_view text, std::vector<std::string>& out) {
    std::istringstream in{std::string(text)};
    std::string w;
    while (in >> w)
      out.push_back(w);
  };
  words(TTLPLAN_EMU_CXX_FLAGS, options.extraFlags);
  // host.cpp is glue (buffers, tilizing the inputs, launching the kernels) over 88k lines of
  // host API headers: optimising it under the sanitizers took g++ 5.2 s of the 5.8 s `run` of
  // examples/eltwise_add.ttl, and 2.2 s at -O0. The kernels, where the emulated work runs, keep
  // -O1.
  options.hostFlags = {"-O0"};
  words(TTLPLAN_EMU_LINK_LIBS, options.linkLibraries);
  for (const std::vector<std::string>& command :
       codegen::emuBuildCommands(options, kernelFiles, {kernelName}))
    if (Result<bool> built = compile(command); !built) return built;
  return true;
}

/// Every argument after the run against the reference's; --dump copies them.
std::vector<ArgumentCheck> check(const RunRequest& request, const Reference& ref,
                                 const std::map<std::string, reference::HostTensor>& expected,
                                 const fs::path& work) {
  std::vector<ArgumentCheck> out;
  std::error_code ec;
  for (const reference::ArgumentInfo& a : ref.args) {
    ArgumentCheck c;
    c.name = a.name;
    fs::path outPath = work / "out" / (a.name + ".npy");
    Expected<NpyArray> actual = readNpy(outPath.string());
    if (!actual) {
      c.missing = actual.error().message;
      out.push_back(std::move(c));
      continue;
    }
    int64_t reduction = 0;
    for (int64_t d : a.shape)
      reduction = std::max(reduction, d);
    reference::Tolerance tolerance = reference::toleranceFor(*a.dataType, reduction);
    reference::Comparison cmp =
        reference::compare(fromNpy(*actual), expected.at(a.name), tolerance);
    c.maxAbsError = cmp.maxAbsError;
    c.maxRelError = cmp.maxRelError;
    c.tolerance = tolerance.relative;
    c.summary = cmp.summary;
    c.withinTolerance = cmp.withinTolerance;
    if (!request.dumpDir.empty()) {
      fs::path dumped = fs::path(request.dumpDir) / (a.name + ".npy");
      fs::create_directories(request.dumpDir, ec);
      fs::copy_file(outPath, dumped, fs::copy_options::overwrite_existing, ec);
      if (ec)
        c.dumpError = fmt::format("--dump: cannot write {}: {}", dumped.string(), ec.message());
    }
    out.push_back(std::move(c));
  }
  return out;
}

/// The inputs (makeInputs), written to WORK/in/NAME.npy.
Result<std::map<std::string, reference::HostTensor>>
writeInputs(const Reference& ref, const RunRequest& request, const fs::path& work) {
  auto inputs = makeInputs(ref.args, request);
  if (!inputs) return inputs.error();
  for (const auto& [name, tensor] : *inputs)
    if (Status s = writeNpy((work / "in" / (name + ".npy")).string(), toNpy(tensor)); !s)
      return Error::io(s.error().message);
  return inputs;
}

/// The reference interpreter on the kernel as written, every argument compared with it, and
/// the verdict: the emulated program exited 0 and every argument is within tolerance.
Result<RunOutcome> judge(const RunRequest& request, Reference& ref,
                         const std::map<std::string, reference::HostTensor>& inputs,
                         const ir::Binding& binding, const ir::Device& device, const fs::path& work,
                         RunOutcome out) {
  reference::ReferenceOptions refOptions;
  refOptions.binding = binding;
  refOptions.timeLimitSeconds = request.timeoutSeconds;
  auto expected = reference::interpretKernel(ref.kernel, inputs, device, refOptions);
  // Its messages say "reference:" themselves, located at the op where there is one.
  if (!expected) return Error::input(expected.error().message);
  out.arguments = check(request, ref, *expected, work);
  out.passed = out.emulatorExit == 0;
  for (const ArgumentCheck& c : out.arguments)
    out.passed = out.passed && c.missing.empty() && c.withinTolerance && c.dumpError.empty();
  return out;
}

/// Generates, builds and emulates in `work`, and checks against the reference.
Result<RunOutcome> runIn(const fs::path& work, const RunRequest& request, const ir::Device& device,
                         Lowered& lowered, Reference& ref, RunOutcome out) {
  auto step = [&](const char* name) {
    if (request.onStep) request.onStep(name);
  };
  Result<std::vector<codegen::EmuKernelFile>> kernelFiles =
      generate(request, device, lowered, work);
  if (!kernelFiles) return kernelFiles.error();
  auto inputs = writeInputs(ref, request, work);
  if (!inputs) return inputs.error();

  auto buildStart = Clock::now();
  step("building with g++");
  if (Result<bool> built = build(request, work, *kernelFiles, ref.name); !built)
    return built.error();
  out.buildSeconds = secondsSince(buildStart);

  auto emulateStart = Clock::now();
  step("emulating");
  fs::path program = work / ref.name / "host";
  // The emulator stops its run at the limit and reports each thread (exit status 4); the
  // process limit, a little later, catches a program stuck outside the run.
  const bool limited = request.timeoutSeconds > 0;
  Expected<ProcessResult> ran =
      runProcess({program.string(), (work / "in").string(), (work / "out").string()},
                 {"TTLPLAN_EMU_DEVICE=" + (work / codegen::kEmuDeviceFile).string(),
                  fmt::format("TTLPLAN_EMU_TIMEOUT={}", request.timeoutSeconds),
                  fmt::format("TTLPLAN_EMU_PARENT={}", getpid())},
                 limited ? request.timeoutSeconds + kEmulatorGraceSeconds : 0);
  out.emulateSeconds = secondsSince(emulateStart);
  if (!ran) return Error::make(ErrorKind::Build, ran.error().message);
  if (ran->interruptedBy) return interrupted(ran->interruptedBy);
  if (ran->timedOut || (limited && ran->exitCode == kEmulatorStoppedExit))
    return Error::make(ErrorKind::Build,
                       fmt::format("the emulated program did not finish within --timeout {} s "
                                   "and was {} (a loop that does not end, or a wait nothing "
                                   "satisfies){}{}",
                                   request.timeoutSeconds, ran->timedOut ? "killed" : "stopped",
                                   ran->output.empty() ? "" : "; its output:\n", ran->output));
  out.emulatorOutput = ran->output;
  out.emulatorExit = ran->exitCode;
  return judge(request, ref, *inputs, lowered.plan->binding.binding, device, work, std::move(out));
}

/// Runs `body` in the work directory (the request's, or a temporary one) and tidies up as `run`
/// does: a temporary directory goes whatever happened, unless --keep; a kept one is named.
Result<RunOutcome>
inWorkDir(const RunRequest& request, RunOutcome out,
          const std::function<Result<RunOutcome>(const fs::path&, RunOutcome)>& body) {
  Result<fs::path> work = makeWorkDir(request);
  if (!work) return work.error();
  out.workDir = work->string();
  Result<RunOutcome> result = body(*work, std::move(out));
  bool keep = !request.workDir.empty() || request.keep;
  std::error_code ec;
  if (!keep)
    fs::remove_all(*work, ec);
  else if (request.workDir.empty())
    fs::remove(*work / kInUseFile, ec);
  if (!result) {
    Error e = result.error();
    if (keep) e.message += fmt::format("\n(work directory {} kept)", work->string());
    return e;
  }
  result->workDirRemoved = !keep;
  return result;
}

/// Where the pto emulator's headers are: under the prefix for an installed ttlplan, else the
/// source tree's (as emuIncludeAndLibrary).
std::string ptoEmuIncludeDir() {
  std::error_code ec;
  if (std::optional<fs::path> prefix = installPrefix()) {
    fs::path include = *prefix / TTLPLAN_INSTALL_PTO_EMU_INCLUDE_DIR;
    if (fs::exists(include / "pto" / "pto-inst.hpp", ec)) return include.string();
  }
  return TTLPLAN_PTO_EMU_INCLUDE_DIR;
}

/// `run --target pto` in `work`: the kernel and its host program written, built with g++
/// against the pto emulator, run on as many cores as the device has for the work, and checked
/// against the reference interpreter (which runs the kernel as written, whatever the target).
Result<RunOutcome> runPtoIn(const fs::path& work, const RunRequest& request,
                            const ir::pto::Device& device, const lower::PtoModulePlan& plan,
                            Reference& ref, RunOutcome out) {
  auto step = [&](const char* name) {
    if (request.onStep) request.onStep(name);
  };
  const lower::PtoKernelPlan& kernelPlan = plan.kernels.front();
  codegen::pto::KernelInput input{ref.kernel,          &kernelPlan.problem,
                                  &kernelPlan.plan,    plan.binding.binding,
                                  request.lower.input, ref.source.sources.get()};
  Expected<std::string> kernel = codegen::pto::writeKernel(input);
  if (!kernel) return Error::input(kernel.error().message);
  std::vector<codegen::pto::HostArgument> hostArgs;
  for (const reference::ArgumentInfo& a : ref.args) {
    Expected<std::string> element =
        codegen::pto::elementType(a.dataType ? ir::toString(*a.dataType) : "");
    if (!element || a.shape.size() != 2)
      return Error::input(fmt::format("run --target pto takes 2-d tensors of bf16, f16, f32, i32 "
                                      "or u32; argument %{} is not one",
                                      a.name));
    hostArgs.push_back({a.name, *element, a.shape[0], a.shape[1]});
  }
  // As many cores as the part has for the kind of work (lower::ptoCores).
  Expected<std::vector<int64_t>> workDims =
      lower::extractWorkDims(ref.kernel, plan.binding.binding);
  if (!workDims) return Error::input(workDims.error().message);
  const int blocks = lower::ptoCores(kernelPlan.problem, *workDims, device);
  std::vector<codegen::GeneratedFile> files = {
      {ref.name + ".cpp", *kernel},
      {"host.cpp", codegen::pto::writeHost(ref.name, ref.name + ".cpp", hostArgs, blocks)},
      {std::string(codegen::kNpyHeaderFile), std::string(codegen::npyHeader())}};
  if (Expected<std::vector<bool>> s = codegen::writeFiles(work.string(), files); !s)
    return Error::io(s.error().message);
  auto inputs = writeInputs(ref, request, work);
  if (!inputs) return inputs.error();

  auto buildStart = Clock::now();
  step("building with g++");
  const std::vector<std::string> command = {"g++",
                                            TTLPLAN_EMU_CXX_STD,
                                            "-O1",
                                            "-I",
                                            ptoEmuIncludeDir(),
                                            "-I",
                                            work.string(),
                                            (work / "host.cpp").string(),
                                            "-o",
                                            (work / "host").string(),
                                            "-pthread"};
  if (Result<bool> built = compile(command); !built) return built.error();
  out.buildSeconds = secondsSince(buildStart);

  auto emulateStart = Clock::now();
  step("emulating");
  Expected<ProcessResult> ran =
      runProcess({(work / "host").string(), (work / "in").string(), (work / "out").string()}, {},
                 request.timeoutSeconds);
  out.emulateSeconds = secondsSince(emulateStart);
  if (!ran) return Error::make(ErrorKind::Build, ran.error().message);
  if (ran->interruptedBy) return interrupted(ran->interruptedBy);
  if (ran->timedOut)
    return Error::make(ErrorKind::Build,
                       fmt::format("the emulated program did not finish within --timeout {} s and "
                                   "was killed{}{}",
                                   request.timeoutSeconds,
                                   ran->output.empty() ? "" : "; its output:\n", ran->output));
  out.emulatorOutput = ran->output;
  out.emulatorExit = ran->exitCode;

  // The reference reads the device only for an auto grid's shape, which changes no value.
  Expected<ir::Device> referenceDevice = ir::builtinDevice(ir::kDefaultDevice);
  if (!referenceDevice) return Error::input(referenceDevice.error().message);
  return judge(request, ref, *inputs, plan.binding.binding, *referenceDevice, work, std::move(out));
}

} // namespace

Result<RunOutcome> runOnEmulator(const RunRequest& request, const ir::Device& device,
                                 const Log& log) {
  auto start = Clock::now();
  if (request.onStep) request.onStep("lowering");
  Result<Source> source = parseImported(request.lower.input, request.lower.inputChunk);
  if (!source) return source.error();
  Source asWritten = copySource(*source);
  Result<Lowered> lowered = lowerSource(std::move(*source), request.lower, device, log);
  if (!lowered) return lowered.error();
  return runLowered(*lowered, std::move(asWritten), request, device, secondsSince(start));
}

Result<RunOutcome> runLowered(Lowered& lowered, Source asWritten, const RunRequest& request,
                              const ir::Device& device, double lowerSeconds) {
  RunOutcome out;
  out.lowerSeconds = lowerSeconds;
  Result<Reference> ref = referenceKernel(request, lowered, std::move(asWritten));
  if (!ref) return ref.error();
  return inWorkDir(request, std::move(out), [&](const fs::path& work, RunOutcome started) {
    return runIn(work, request, device, lowered, *ref, std::move(started));
  });
}

Result<RunOutcome> runPtoFile(const RunRequest& request, const ir::pto::Device& device,
                              const Log& log) {
  auto start = Clock::now();
  if (request.onStep) request.onStep("planning for pto");
  PlanRequest plan = planRequestOf(request.lower);
  Result<PtoPlanned> planned = planPtoFile(plan, device, log);
  if (!planned) return planned.error();
  std::vector<ir::Operation*> kernels = planned->source.module->topLevel("ttl.kernel");
  if (kernels.size() != 1 || planned->plan.kernels.size() != 1)
    return Error::input(fmt::format("run --target pto takes a file with exactly one ttl.kernel; "
                                    "{} has {}",
                                    request.lower.input, kernels.size()));
  Reference ref{std::move(planned->source), kernels.front(), "", {}};
  ref.name = ref.kernel->attribute("sym_name").stringValue();
  auto args = reference::kernelArguments(ref.kernel, planned->plan.binding.binding);
  if (!args) return Error::input(args.error().message);
  ref.args = std::move(*args);
  RunOutcome out;
  out.lowerSeconds = secondsSince(start);
  return inWorkDir(request, std::move(out), [&](const fs::path& work, RunOutcome started) {
    return runPtoIn(work, request, device, planned->plan, ref, std::move(started));
  });
}

} // namespace ttlplan::driver
