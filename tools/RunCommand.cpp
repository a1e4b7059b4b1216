// `ttlplan run`: plan, lower and compile a kernel, build the generated C++ with g++ against the
// CPU emulator (docs/emulator.md), run it on random (or given) inputs and compare every argument
// with the independent reference (docs/reference.md).
#include "emu_build_info.h"
#include "tools/Pipeline.h"
#include "ttlplan/codegen/Codegen.h"
#include "ttlplan/codegen/EmuBuild.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/reference/Compare.h"
#include "ttlplan/reference/Interpret.h"
#include "ttlplan/reference/RandomInputs.h"
#include "ttlplan/support/Npy.h"
#include "ttlplan/support/Process.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <sstream>
#include <tuple>

namespace ttlplan::tools {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Where the emulator's headers and library are: under the prefix when this executable is an
/// installed one (PREFIX/bin/ttlplan, cmake/Install.cmake), else in the build tree it was built in.
std::pair<std::string, std::string> emuIncludeAndLibrary() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.parent_path().filename() == TTLPLAN_INSTALL_BINDIR) {
    fs::path prefix = exe.parent_path().parent_path();
    if (fs::exists(prefix / TTLPLAN_INSTALL_EMU_LIBRARY, ec))
      return {(prefix / TTLPLAN_INSTALL_EMU_INCLUDE_DIR).string(),
              (prefix / TTLPLAN_INSTALL_EMU_LIBRARY).string()};
  }
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
std::optional<std::map<std::string, reference::HostTensor>>
makeInputs(const std::vector<reference::ArgumentInfo>& args, const RunFlags& flags) {
  std::map<std::string, reference::HostTensor> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const reference::ArgumentInfo& a = args[i];
    if (flags.inputsDir.empty()) {
      out[a.name] = reference::randomTensor(a.shape, *a.dataType, flags.seed, static_cast<int>(i));
      continue;
    }
    std::string path = (fs::path(flags.inputsDir) / (a.name + ".npy")).string();
    Expected<NpyArray> npy = readNpy(path);
    if (!npy) {
      std::cerr << fmt::format("ttlplan: error: --inputs: {}\n", npy.error().message);
      return std::nullopt;
    }
    if (npy->shape != a.shape) {
      std::cerr << fmt::format("ttlplan: error: --inputs: {} has shape [{}] but argument %{} is "
                               "[{}]\n",
                               path, fmt::join(npy->shape, ", "), a.name, fmt::join(a.shape, ", "));
      return std::nullopt;
    }
    reference::HostTensor t = fromNpy(*npy);
    reference::roundTensorToDataType(t, *a.dataType);
    out[a.name] = std::move(t);
  }
  return out;
}

/// The lines of the emulator's output worth showing (its reports and its speed line).
void relayEmulatorOutput(const std::string& output) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line))
    std::cerr << line << "\n";
}

} // namespace

int runRun(const RunFlags& flags, const DeviceFlags& deviceFlags) {
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  auto start = Clock::now();

  // 1. Plan and lower (the same pipeline as `ttlplan compile`).
  LowerHooks hooks;
  hooks.validatePlan = !flags.noValidate;
  for (const std::string& entry : flags.forceCbAddress) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      std::cerr << fmt::format(
          "ttlplan: error: --force-cb-address expects NAME=ADDRESS, got '{}'\n", entry);
      return kUsageError;
    }
    std::string name = entry.substr(0, eq);
    if (name.empty() || name[0] != '%') name = "%" + name;
    hooks.forcedCbAddresses.emplace_back(name, std::strtoll(entry.c_str() + eq + 1, nullptr, 0));
  }
  std::optional<Lowered> lowered = lowerFile(flags.pipeline, *device, exitCode, hooks);
  if (!lowered) return exitCode;
  double lowerSeconds = secondsSince(start);

  // The reference reads the kernel as written (a fresh parse), never the lowered IR.
  ir::DiagnosticEngine diags;
  auto original = ir::parseFile(flags.pipeline.input, diags);
  if (!original || !ir::verify(*original, diags)) {
    std::cerr << ir::format(diags.diagnostics());
    return kInvalidInput;
  }
  std::vector<ir::Operation*> kernels = original->topLevel("ttl.kernel");
  if (kernels.size() != 1 || !lowered->plan || lowered->plan->kernels.size() != 1) {
    std::cerr << fmt::format("ttlplan: error: run takes a file with exactly one ttl.kernel (and a "
                             "pipeline that plans it); {} has {}\n",
                             flags.pipeline.input, kernels.size());
    return kInvalidInput;
  }
  ir::Operation* kernel = kernels.front();
  std::string kernelName = kernel->attribute("sym_name").stringValue();
  auto args = reference::kernelArguments(kernel, lowered->plan->binding.binding);
  if (!args) {
    std::cerr << "ttlplan: error: " << args.error().message << "\n";
    return kInvalidInput;
  }
  for (const reference::ArgumentInfo& a : *args)
    if (!a.dataType) {
      std::cerr << fmt::format("ttlplan: error: run cannot make data for argument %{} (its element "
                               "type has no device data type)\n",
                               a.name);
      return kInvalidInput;
    }

  // 2. Generate the C++ into the work directory.
  fs::path work = flags.workDir;
  bool temporary = work.empty();
  if (temporary) {
    std::string pattern = (fs::temp_directory_path() / "ttlplan-run-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      std::cerr << "ttlplan: error: cannot create a temporary directory\n";
      return kInvalidInput;
    }
    work = pattern;
  }
  std::error_code ec;
  fs::create_directories(work / "in", ec);
  fs::create_directories(work / "out", ec);
  codegen::EmitOptions emit;
  emit.sources = &lowered->sources;
  emit.inputFile = flags.pipeline.input;
  ir::DiagnosticEngine emitDiags;
  auto files = codegen::emitModule(*lowered->module, *device, &*lowered->plan, emit, emitDiags);
  if (!files) {
    std::cerr << ir::format(emitDiags.diagnostics(), &lowered->sources);
    return kInvalidInput;
  }
  std::vector<codegen::EmuKernelFile> kernelFiles = codegen::emuKernelFiles(*files);
  codegen::addEmuFiles(*files, *device);
  if (Expected<std::vector<bool>> s = codegen::writeFiles(work.string(), *files); !s) {
    std::cerr << "ttlplan: error: " << s.error().message << "\n";
    return kInvalidInput;
  }

  // 3. Inputs.
  auto inputs = makeInputs(*args, flags);
  if (!inputs) return kInvalidInput;
  for (const auto& [name, tensor] : *inputs)
    if (Status s = writeNpy((work / "in" / (name + ".npy")).string(), toNpy(tensor)); !s) {
      std::cerr << "ttlplan: error: " << s.error().message << "\n";
      return kInvalidInput;
    }

  // 4. Build with g++ against the emulator.
  auto buildStart = Clock::now();
  codegen::EmuBuildOptions build;
  build.dir = work.string();
  std::tie(build.emuIncludeDir, build.emuLibrary) = emuIncludeAndLibrary();
  build.extraFlags = {TTLPLAN_EMU_CXX_STD, "-O1"};
  auto words = [](std::string_view text, std::vector<std::string>& out) {
    std::istringstream in{std::string(text)};
    std::string w;
    while (in >> w)
      out.push_back(w);
  };
  words(TTLPLAN_EMU_CXX_FLAGS, build.extraFlags);
  words(TTLPLAN_EMU_LINK_LIBS, build.linkLibraries);
  for (const std::vector<std::string>& command :
       codegen::emuBuildCommands(build, kernelFiles, {kernelName})) {
    Expected<ProcessResult> r = runProcess(command);
    if (!r || r->exitCode != 0) {
      std::cerr << fmt::format("ttlplan: error: building the generated code failed:\n  {}\n{}",
                               codegen::shellCommandLine(command),
                               r ? r->output : r.error().message);
      return kInvalidInput;
    }
  }
  double buildSeconds = secondsSince(buildStart);

  // 5. Run it.
  auto emulateStart = Clock::now();
  fs::path program = work / kernelName / "host";
  Expected<ProcessResult> ran =
      runProcess({program.string(), (work / "in").string(), (work / "out").string()},
                 {"TTLPLAN_EMU_DEVICE=" + (work / codegen::kEmuDeviceFile).string()});
  double emulateSeconds = secondsSince(emulateStart);
  if (!ran) {
    std::cerr << "ttlplan: error: " << ran.error().message << "\n";
    return kInvalidInput;
  }
  relayEmulatorOutput(ran->output);
  bool failed = ran->exitCode != 0;
  if (failed)
    std::cerr << fmt::format("ttlplan: error: the emulated program exited with status {}{}\n",
                             ran->exitCode,
                             ran->exitCode == 3 ? " (the emulator found errors, above)" : "");

  // 6. Reference and comparison.
  reference::ReferenceOptions refOptions;
  refOptions.binding = lowered->plan->binding.binding;
  auto expected = reference::interpretKernel(kernel, *inputs, *device, refOptions);
  if (!expected) {
    std::cerr << "ttlplan: error: reference: " << expected.error().message << "\n";
    return kInvalidInput;
  }
  std::cout << fmt::format("run {} on {} (seed {}): lower {:.2f} s, build {:.2f} s, emulate "
                           "{:.2f} s\n",
                           flags.pipeline.input, device->name, flags.seed, lowerSeconds,
                           buildSeconds, emulateSeconds);
  std::cout << fmt::format("  {:<10} {:>12} {:>12} {:>12}  {}\n", "argument", "max abs err",
                           "max rel err", "tolerance", "verdict");
  for (const reference::ArgumentInfo& a : *args) {
    fs::path outPath = work / "out" / (a.name + ".npy");
    Expected<NpyArray> actual = readNpy(outPath.string());
    if (!actual) {
      std::cout << fmt::format("  {:<10} no output: {}\n", a.name, actual.error().message);
      failed = true;
      continue;
    }
    int64_t reduction = 0;
    for (int64_t d : a.shape)
      reduction = std::max(reduction, d);
    reference::Tolerance tolerance = reference::toleranceFor(*a.dataType, reduction);
    reference::Comparison c = reference::compare(fromNpy(*actual), expected->at(a.name), tolerance);
    std::cout << fmt::format("  {:<10} {:>12.3e} {:>12.3e} {:>12.3e}  {}\n", a.name, c.maxAbsError,
                             c.maxRelError, tolerance.relative, c.summary);
    failed = failed || !c.withinTolerance;
    if (!flags.dumpDir.empty()) {
      fs::create_directories(flags.dumpDir, ec);
      fs::copy_file(outPath, fs::path(flags.dumpDir) / (a.name + ".npy"),
                    fs::copy_options::overwrite_existing, ec);
      if (ec) {
        std::cerr << fmt::format("ttlplan: error: --dump: cannot write {}: {}\n",
                                 (fs::path(flags.dumpDir) / (a.name + ".npy")).string(),
                                 ec.message());
        failed = true;
      }
    }
  }
  std::cout << (failed ? "FAIL" : "PASS")
            << fmt::format(" (work directory {}{})\n", work.string(),
                           temporary && !flags.keep && !failed ? ", removed" : "");
  if (temporary && !flags.keep && !failed) fs::remove_all(work, ec);
  return failed ? kInvalidInput : kSuccess;
}

} // namespace ttlplan::tools
