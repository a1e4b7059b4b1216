// readInput: TTL files as they are, tt-lang Python kernels through the Python front end.
#include "ttlplan/driver/PythonFrontend.h"

#include "python_frontend_paths.h"
#include "ttlplan/support/Process.h"
#include "ttlplan/support/ReadFile.h"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <regex>
#include <unistd.h>

namespace ttlplan::driver {

namespace fs = std::filesystem;

namespace {

PythonInput& current() {
  static PythonInput input;
  return input;
}

/// The front end reads a kernel in well under a second; a minute means something is wrong.
constexpr double kFrontendTimeLimitSeconds = 60;

/// The folder holding the `ttlplan` Python package: $TTLPLAN_PYTHONPATH, else the installed one
/// when this program is an installed ttlplan (PREFIX/bin/ttlplan), else the source tree's.
std::string packageDir() {
  if (const char* dir = std::getenv("TTLPLAN_PYTHONPATH"); dir && *dir) return dir;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.parent_path().filename() == TTLPLAN_INSTALL_BINDIR) {
    fs::path installed = exe.parent_path().parent_path() / TTLPLAN_INSTALL_PYTHONDIR;
    if (fs::exists(installed / "ttlplan" / "frontend", ec)) return installed.string();
  }
  return TTLPLAN_PYTHON_SOURCE_DIR;
}

/// A located front-end message ("k.py:3:5: error: ...") as a diagnostic, with the kernel's source
/// so that the error shows its line.
Error locatedError(const std::string& output, const std::string& path, const std::string& source) {
  static const std::regex kLocated(R"(^(.*):([0-9]+):([0-9]+): error: (.*)$)");
  std::string first = output.substr(0, output.find('\n'));
  std::smatch m;
  if (!std::regex_match(first, m, kLocated)) {
    std::string message = first.starts_with("ttlplan: error: ") ? first.substr(16) : first;
    return Error::input(message.empty() ? "the Python front end failed without a message"
                                        : message);
  }
  ir::DiagnosticEngine diags;
  auto file = std::make_shared<const std::string>(m[1].str());
  diags.error(ir::Location{file, static_cast<uint32_t>(std::stoul(m[2].str())),
                           static_cast<uint32_t>(std::stoul(m[3].str()))},
              m[4].str());
  auto sources = std::make_shared<ir::SourceManager>();
  sources->add(path, source);
  return Error::located(diags, sources);
}

std::string interpreter() {
  return current().python.empty() ? std::string(TTLPLAN_PYTHON) : current().python;
}

std::vector<std::string> frontendCommand(const std::string& path, const std::string& output) {
  const PythonInput& in = current();
  // -P: no folder of the kernel or the working directory on sys.path (a `ttlplan` package
  // there must not shadow ours); -B: no bytecode written into the package's folder.
  // Every option as --NAME=VALUE and the kernel after "--": a file name or a value that starts
  // with '-' is never taken for an option of the front end's own argument parser.
  std::vector<std::string> argv = {interpreter(),       "-P", "-B", "-m", "ttlplan.frontend",
                                   "--output=" + output};
  for (const std::string& a : in.args)
    argv.push_back("--args=" + a);
  for (const std::string& k : in.knobs)
    argv.push_back("--knob=" + k);
  if (!in.bufferFactor.empty()) argv.push_back("--buffer-factor=" + in.bufferFactor);
  if (!in.deviceGrid.empty()) argv.push_back("--device-grid=" + in.deviceGrid);
  argv.insert(argv.end(), {"--", path});
  return argv;
}

/// A file name for the front end's output, removed when this goes out of scope.
class ScratchFile {
public:
  ScratchFile() {
    std::error_code ec;
    fs::path dir = fs::temp_directory_path(ec);
    std::string pattern = ((ec ? fs::path("/tmp") : dir) / "ttlplan-py-XXXXXX").string();
    int fd = mkstemp(pattern.data());
    if (fd >= 0) {
      close(fd);
      path_ = pattern;
    }
  }
  ~ScratchFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

} // namespace

void setPythonInput(PythonInput input) {
  current() = std::move(input);
}
const PythonInput& pythonInput() {
  return current();
}

bool isPythonKernel(const std::string& path) {
  return path.ends_with(".py");
}

Result<std::string> readSourceFile(const std::string& path) {
  Expected<std::string> text = readTextFile(path);
  if (text) return std::move(*text);
  if (text.error().message == tooLargeMessage(path)) return Error::usage(text.error().message);
  return Error::io(text.error().message);
}

Result<InputText> readInput(const std::string& path) {
  Result<std::string> text = readSourceFile(path);
  if (!text) return text.error();
  if (!isPythonKernel(path)) return InputText{*text, path, *text};
  ScratchFile scratch;
  if (scratch.path().empty())
    return Error::io("cannot create a temporary file for the Python front end's output");
  Expected<ProcessResult> run = runProcess(
      frontendCommand(path, scratch.path()),
      {"PYTHONPATH=" + packageDir(), "PYTHONDONTWRITEBYTECODE=1"}, kFrontendTimeLimitSeconds);
  if (!run)
    return Error::usage(fmt::format("reading the Python kernel {} needs {} (the tt-lang front "
                                    "end is Python): {}",
                                    path, interpreter(), run.error().message));
  if (run->timedOut)
    return Error::input(fmt::format("{}:1:1: error: the Python front end took more than {:.0f} s",
                                    path, kFrontendTimeLimitSeconds));
  if (run->exitCode == 2) {
    std::string message = run->output.substr(0, run->output.find('\n'));
    if (message.starts_with("ttlplan: error: ")) message = message.substr(16);
    return Error::usage(message);
  }
  if (run->exitCode != 0) return locatedError(run->output, path, *text);
  Expected<std::string> ttl = readTextFile(scratch.path());
  if (!ttl) return Error::io(ttl.error().message);
  return InputText{*ttl, path, *text};
}

std::string tunedValuesReport(const ir::Module& module, const ir::Binding& point,
                              const std::string& kernel, std::optional<double> predictedNs) {
  std::map<std::string, ir::Location> knobs, buffers;
  module.op->walk([&](ir::Operation* op) {
    if (op->isa("ttl.param")) {
      ir::Attribute name = op->attribute("sym_name");
      if (name.is(ir::AttrKind::String) || name.is(ir::AttrKind::SymbolRef))
        knobs[name.stringValue()] = op->location();
    } else if (op->isa("ttl.create_cb") && op->numResults() == 1) {
      buffers["%" + op->result()->nameHint()] = op->location();
    }
  });
  std::string out =
      fmt::format("# The tuned values of {}, to apply by hand (ttlplan tune --emit)", kernel);
  out += predictedNs ? fmt::format("; predicted {:.2f} us\n", *predictedNs / 1000) : "\n";
  constexpr std::string_view kBlockCount = "block_count(";
  for (const auto& [name, value] : point) {
    if (name.starts_with(kBlockCount) && name.ends_with(")")) {
      std::string cb = name.substr(kBlockCount.size(), name.size() - kBlockCount.size() - 1);
      auto it = buffers.find(cb);
      std::string where = it == buffers.end() ? kernel : it->second.str();
      out += fmt::format("{}: {}: block_count={}\n", where, cb.substr(cb.starts_with("%")), value);
      continue;
    }
    auto it = knobs.find(name);
    out += fmt::format("{}: {} = {}\n", it == knobs.end() ? kernel : it->second.str(), name, value);
  }
  return out;
}

} // namespace ttlplan::driver
