// _ttlplan: the driver library for Python (`import ttlplan`, python/ttlplan/__init__.py). Each
// function takes the kernel's path and a dict of options, runs the workflow the ttlplan command
// of that name runs, and returns a JSON document as text: the command's --json document (plan,
// cost, tune) or the outcome's fields (compile, run), or {"error": {...}} with the structured
// error. No C++ exception crosses into Python; the wrapper turns "error" into ttlplan.Error.
#include "ttlplan/driver/Documents.h"
#include "ttlplan/driver/Driver.h"
#include "ttlplan/driver/PythonFrontend.h"
#include "ttlplan/lower/PlanReport.h"
#include "ttlplan/search/cost/Report.h"
#include "ttlplan/support/JsonText.h"

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using nlohmann::json;
using namespace ttlplan;

namespace {

/// The options every function takes: the device, the binding and the Python kernel's flags.
struct Common {
  driver::DeviceRequest device;
  driver::KnobRequest knobs;
  driver::PythonInput python;
};

std::string text(const py::dict& options, const char* key, std::string fallback = "") {
  return options.contains(key) && !options[key].is_none()
             ? py::str(options[key]).cast<std::string>()
             : fallback;
}

std::vector<std::string> texts(const py::dict& options, const char* key) {
  std::vector<std::string> out;
  if (options.contains(key) && !options[key].is_none())
    for (py::handle h : options[key])
      out.push_back(py::str(h).cast<std::string>());
  return out;
}

Common common(const py::dict& options) {
  Common c;
  c.device.name = text(options, "device", std::string(ir::kDefaultDevice));
  c.device.file = text(options, "device_file");
  c.device.grid = text(options, "grid");
  c.knobs.bind = text(options, "bind");
  c.knobs.config = text(options, "config");
  c.knobs.db = text(options, "db");
  c.python.args = texts(options, "args");
  c.python.knobs = texts(options, "knobs");
  c.python.bufferFactor = text(options, "buffer_factor");
  return c;
}

json diagnosticJson(const ir::Diagnostic& d) {
  json notes = json::array();
  for (const ir::Diagnostic& n : d.notes)
    notes.push_back(diagnosticJson(n));
  return {{"severity", std::string(ir::toString(d.severity))},
          {"file", d.location.file ? *d.location.file : ""},
          {"line", d.location.line},
          {"column", d.location.column},
          {"message", d.message},
          {"notes", notes}};
}

std::string errorDocument(const driver::Error& e) {
  json diagnostics = json::array();
  for (const ir::Diagnostic& d : e.diagnostics)
    diagnostics.push_back(diagnosticJson(d));
  json error = {{"kind", std::string(driver::errorKindName(e.kind))},
                {"message", e.message},
                {"diagnostics", diagnostics},
                {"text", e.text()}};
  if (e.infeasible) error["infeasible"] = lower::toJson(*e.infeasible);
  return jsonText(json{{"error", error}});
}

/// Loads the device and sets the Python kernel's flags (grid="auto" is the device's grid).
driver::Result<ir::Device> prepare(Common& c) {
  driver::Result<ir::Device> device = driver::loadDevice(c.device);
  if (!device) return device;
  c.python.deviceGrid = std::to_string(device->grid.compute.columns) + "x" +
                        std::to_string(device->grid.compute.rows);
  driver::setPythonInput(c.python);
  return device;
}

const driver::Log kQuiet = [](const std::string&) {};

/// The request's device loaded and its Python flags set, then `work(options, device)`; the JSON
/// document it returns, or the error's.
template <typename Work> std::string withDevice(const py::dict& options, Work work) {
  Common c = common(options);
  driver::Result<ir::Device> device = prepare(c);
  if (!device) return errorDocument(device.error());
  return work(c, *device);
}

/// A result's JSON document (`document(value)`), or its error's.
template <typename T, typename Document>
std::string documentOf(const driver::Result<T>& result, Document document) {
  return result ? document(*result) : errorDocument(result.error());
}

driver::PlanRequest planRequest(const std::string& kernel, const Common& c) {
  driver::PlanRequest request;
  request.input = kernel;
  request.knobs = c.knobs;
  return request;
}

std::string plan(const std::string& kernel, const py::dict& options) {
  return withDevice(options, [&](Common& c, const ir::Device& device) {
    return documentOf(driver::planFile(planRequest(kernel, c), device, kQuiet),
                      [](const driver::Planned& p) {
                        return jsonText(driver::planJson(p.plan, p.cost ? &*p.cost : nullptr));
                      });
  });
}

std::string cost(const std::string& kernel, const py::dict& options) {
  return withDevice(options, [&](Common& c, const ir::Device& device) {
    return documentOf(
        driver::costFile(planRequest(kernel, c), device, kQuiet),
        [](const search::cost::CostReport& r) { return jsonText(search::cost::toJson(r)); });
  });
}

template <typename T> void number(const py::dict& options, const char* key, T& target) {
  if (options.contains(key) && !options[key].is_none()) target = options[key].cast<T>();
}

std::string tune(const std::string& kernel, const py::dict& options) {
  return withDevice(options, [&](Common& c, const ir::Device& device) {
    driver::TuneRequest request;
    request.input = kernel;
    request.knobs = c.knobs;
    request.strategy = text(options, "strategy", "exhaustive");
    number(options, "budget_evals", request.budgetEvals);
    number(options, "time_limit", request.timeLimitSeconds);
    number(options, "threads", request.threads);
    number(options, "seed", request.seed);
    number(options, "top", request.top);
    request.db = text(options, "db_out");
    py::gil_scoped_release release; // the search runs on its own threads
    return documentOf(driver::tuneFile(request, device, kQuiet), [&](const driver::Tuned& t) {
      return jsonText(driver::tuneJson(request, device, t));
    });
  });
}

driver::LowerRequest lowerRequest(const std::string& kernel, const Common& c) {
  driver::LowerRequest lower;
  lower.input = kernel;
  lower.knobs = c.knobs;
  return lower;
}

std::string compiledJson(const driver::Compiled& compiled, const std::string& output) {
  json files = json::array();
  for (size_t i = 0; i < compiled.files.size(); ++i)
    files.push_back({{"path", compiled.files[i].path}, {"written", bool(compiled.written[i])}});
  json warnings = json::array();
  for (const ir::Diagnostic& d : compiled.warnings)
    warnings.push_back(diagnosticJson(d));
  return jsonText(json{{"output", output}, {"files", files}, {"warnings", warnings}});
}

std::string compile(const std::string& kernel, const std::string& output, const py::dict& options) {
  return withDevice(options, [&](Common& c, const ir::Device& device) {
    driver::CompileRequest request;
    request.lower = lowerRequest(kernel, c);
    request.output = output;
    request.emulator = text(options, "target", "metal") == "emulator";
    request.deviceFile = c.device.file;
    return documentOf(driver::compileFile(request, device, kQuiet),
                      [&](const driver::Compiled& done) { return compiledJson(done, output); });
  });
}

std::string outcomeJson(const driver::RunOutcome& outcome) {
  json arguments = json::array();
  for (const driver::ArgumentCheck& a : outcome.arguments)
    arguments.push_back({{"name", a.name},
                         {"missing", a.missing},
                         {"max_abs_error", a.maxAbsError},
                         {"max_rel_error", a.maxRelError},
                         {"tolerance", a.tolerance},
                         {"within_tolerance", a.withinTolerance},
                         {"summary", a.summary}});
  return jsonText(json{{"passed", outcome.passed},
                       {"arguments", arguments},
                       {"emulator_exit", outcome.emulatorExit},
                       {"emulator_output", outcome.emulatorOutput},
                       {"lower_seconds", outcome.lowerSeconds},
                       {"build_seconds", outcome.buildSeconds},
                       {"emulate_seconds", outcome.emulateSeconds}});
}

std::string run(const std::string& kernel, const py::dict& options) {
  return withDevice(options, [&](Common& c, const ir::Device& device) {
    driver::RunRequest request;
    request.lower = lowerRequest(kernel, c);
    number(options, "seed", request.seed);
    number(options, "timeout", request.timeoutSeconds);
    request.inputsDir = text(options, "inputs");
    request.dumpDir = text(options, "dump");
    request.workDir = text(options, "work_dir");
    py::gil_scoped_release release; // g++ and the emulated program run meanwhile
    return documentOf(driver::runOnEmulator(request, device, kQuiet), outcomeJson);
  });
}

std::string print(const std::string& kernel, const py::dict& options) {
  return withDevice(options, [&](Common&, const ir::Device&) {
    driver::PrintRequest request;
    request.input = kernel;
    return documentOf(driver::printFile(request), [](const std::string& ttl) {
      return jsonText(json{{"ttl", ttl}});
    });
  });
}

} // namespace

PYBIND11_MODULE(_ttlplan, m) {
  m.doc() = "ttlplan's driver library (use the ttlplan package: import ttlplan)";
  m.def("plan", &plan, py::arg("kernel"), py::arg("options"));
  m.def("cost", &cost, py::arg("kernel"), py::arg("options"));
  m.def("tune", &tune, py::arg("kernel"), py::arg("options"));
  m.def("compile", &compile, py::arg("kernel"), py::arg("output"), py::arg("options"));
  m.def("run", &run, py::arg("kernel"), py::arg("options"));
  m.def("print", &print, py::arg("kernel"), py::arg("options"));
}
