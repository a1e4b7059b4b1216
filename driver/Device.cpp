// loadDevice and parseVerified: the device and the source every workflow starts from.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/driver/PythonFrontend.h"
#include "ttlplan/ir/ImportTtlang.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/passes/Passes.h"

#include <algorithm>
#include <fmt/format.h>

namespace ttlplan::driver {

namespace {

// "8" -> 8; nullopt unless 1 to 4 digits.
std::optional<int> smallNumber(const std::string& text) {
  if (text.empty() || text.size() > 4 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(text);
}

} // namespace

Result<ir::Device> loadDevice(const DeviceRequest& request) {
  Expected<ir::Device> device =
      request.file.empty() ? ir::builtinDevice(request.name) : ir::loadDeviceFile(request.file);
  if (!device) {
    Error e = request.file.empty() ? Error::usage(device.error().message)
                                   : Error::input(device.error().message);
    return e;
  }
  if (request.grid.empty()) return std::move(device).value();
  size_t x = request.grid.find('x');
  std::optional<int> rows =
      x == std::string::npos ? std::nullopt : smallNumber(request.grid.substr(0, x));
  std::optional<int> cols =
      x == std::string::npos ? std::nullopt : smallNumber(request.grid.substr(x + 1));
  if (!rows || !cols)
    return Error::usage(fmt::format("--grid '{}' is not ROWSxCOLUMNS (e.g. 8x8)", request.grid));
  if (Status ok = ir::setComputeGrid(*device, *rows, *cols); !ok)
    return Error::usage("--grid: " + ok.error().message);
  return std::move(device).value();
}

std::unique_ptr<ir::Module> parseInputFile(const std::string& path, std::optional<size_t> chunk,
                                           ir::DiagnosticEngine& diags, ir::SourceManager& sources,
                                           Error& error) {
  if (!isPythonKernel(path)) {
    Result<std::string> text = readSourceFile(path);
    if (text) return ir::parseFileText(std::move(*text), path, diags, &sources, chunk);
    if (text.error().kind == ErrorKind::Usage) {
      error = text.error();
      return nullptr;
    }
    // A file that cannot be read is reported as ir::parseFile reports it: at the file.
    diags.error(ir::Location{std::make_shared<const std::string>(path), 0, 0},
                text.error().message);
    return nullptr;
  }
  if (chunk) {
    error = Error::usage("--split-input-file reads TTL files; a Python kernel is one file");
    return nullptr;
  }
  Result<InputText> input = readInput(path);
  if (!input) {
    error = std::move(input).error();
    return nullptr;
  }
  // The ops carry the Python lines (loc("kernel.py":L:C)), which the diagnostics show.
  std::unique_ptr<ir::Module> module = ir::parseSource(input->text, path, diags);
  sources.add(path, std::move(input->original));
  return module;
}

Result<Source> parseImported(const std::string& path, std::optional<size_t> chunk) {
  ir::DiagnosticEngine diags;
  Source out;
  out.sources = std::make_shared<ir::SourceManager>();
  Error error;
  out.module = parseInputFile(path, chunk, diags, *out.sources, error);
  if (!out.module && !diags.hasErrors()) return error;
  // A module in tt-lang's form is converted to ttlplan's first (docs/ttlang-interop.md).
  if (out.module && ir::importTtlang(*out.module, diags)) return out;
  return Error::located(diags, out.sources);
}

Result<Source> parseVerified(const std::string& path, std::optional<size_t> chunk,
                             ScalerCbs scalers) {
  Result<Source> out = parseImported(path, chunk);
  if (!out) return out;
  ir::DiagnosticEngine diags;
  if (!ir::verify(*out->module, diags)) return Error::located(diags, out->sources);
  // The reduce scaler CB belongs to the kernel as planned and run (lower/passes/Passes.h).
  if (scalers == ScalerCbs::Add)
    if (std::optional<std::string> error = lower::addReduceScalers(*out->module))
      return Error::make(ErrorKind::Input, *error);
  out->verified = true;
  return out;
}

} // namespace ttlplan::driver
