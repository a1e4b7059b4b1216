// The workflows that read without planning a kernel: `devices`, `print`, `verify` and `alloc`.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/driver/PythonFrontend.h"
#include "ttlplan/ir/ExpectedDiagnostics.h"
#include "ttlplan/ir/ImportTtlang.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/planner/l1/Csv.h"
#include "ttlplan/support/ReadFile.h"

namespace ttlplan::driver {

Result<std::vector<ir::Device>> listDevices(const DeviceRequest& request) {
  std::vector<ir::Device> devices;
  if (!request.file.empty()) {
    Expected<ir::Device> device = ir::loadDeviceFile(request.file);
    if (!device) return Error::input(device.error().message);
    devices.push_back(std::move(*device));
    return devices;
  }
  for (const std::string& name : ir::builtinDeviceNames()) {
    Expected<ir::Device> device = ir::builtinDevice(name);
    if (!device) // only a broken build gets here: the embedded files are tested
      return Error::input(device.error().message);
    devices.push_back(std::move(*device));
  }
  return devices;
}

Result<std::string> printFile(const PrintRequest& request) {
  ir::DiagnosticEngine diags;
  auto sources = std::make_shared<ir::SourceManager>();
  Error error;
  std::unique_ptr<ir::Module> module =
      parseInputFile(request.input, request.inputChunk, diags, *sources, error);
  if (!module && !diags.hasErrors()) return error;
  if (!module) return Error::located(diags, sources);
  ir::PrintOptions options;
  options.generic = request.generic;
  options.useAliases = request.useAliases;
  return ir::print(*module, options);
}

Result<Verified> verifyFile(const VerifyRequest& request) {
  Result<InputText> input = readInput(request.input);
  if (!input) return std::move(input).error();
  const std::string* text = &input->text;
  std::vector<std::string> chunks =
      request.splitInputFile ? ir::splitInputFile(*text) : std::vector<std::string>{*text};
  Verified out;
  out.sources = std::make_shared<ir::SourceManager>();
  out.sources->add(request.input, input->original);
  out.passed = true;
  for (const std::string& chunk : chunks) {
    ir::DiagnosticEngine diags;
    if (auto module = ir::parseSource(chunk, request.input, diags))
      if (ir::importTtlang(*module, diags)) (void)ir::verify(*module, diags);
    if (request.verifyDiagnostics) {
      std::vector<ir::ExpectedDiagnostic> expected = ir::parseExpectedDiagnostics(chunk);
      std::string report;
      if (!ir::checkExpectedDiagnostics(request.input, diags.diagnostics(), expected, report)) {
        out.mismatches += report;
        out.passed = false;
      }
      continue;
    }
    for (const ir::Diagnostic& d : diags.diagnostics()) {
      out.diagnostics.push_back(d);
      out.passed = out.passed && d.severity != ir::Severity::Error;
    }
  }
  return out;
}

Result<Allocated> allocateFile(const AllocRequest& request) {
  Expected<planner::l1::L1Solver> solver = planner::l1::parseL1Solver(request.solver);
  if (!solver) return Error::usage(solver.error().message);
  Expected<planner::l1::CsvFile> csv = planner::l1::readCsv(request.input);
  if (!csv) return Error::input(csv.error().message);
  Allocated out;
  out.problem = std::move(csv->problem);
  out.problem.capacity = request.capacity;
  planner::SolveLimits limits;
  limits.timeLimitSeconds = request.timeLimitSeconds;
  limits.nodeLimit = request.nodeLimit;
  out.result = planner::l1::solve(out.problem, *solver, limits, request.exact);
  return out;
}

} // namespace ttlplan::driver
