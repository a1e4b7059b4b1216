#include "tools/Commands.h"

#include "tools/Knobs.h"
#include "tools/Terminal.h"
#include "ttlplan/driver/Options.h"
#include "ttlplan/ir/DataType.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/ExpectedDiagnostics.h"
#include "ttlplan/ir/ImportTtlang.h"
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/PassManager.h"
#include "ttlplan/lower/PlanReport.h"
#include "ttlplan/planner/Options.h"
#include "ttlplan/search/TuneOptions.h"
#include "ttlplan/support/ReadFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ttlplan::tools {

namespace {

/// Parses and verifies one chunk; returns the diagnostics.
std::vector<ir::Diagnostic> checkChunk(const std::string& text, const std::string& file) {
  ir::DiagnosticEngine diags;
  if (auto module = ir::parseSource(text, file, diags))
    if (ir::importTtlang(*module, diags)) (void)ir::verify(*module, diags);
  return diags.diagnostics();
}

} // namespace

int writeOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return kSuccess;
  }
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  if (out << text && out.flush()) return kSuccess;
  // The stream keeps no reason; the failed open or write left it in errno.
  std::cerr << fmt::format("ttlplan: error: cannot write '{}'{}\n", path,
                           errno ? std::string(": ") + std::strerror(errno) : "");
  return kInvalidInput;
}

int report(const driver::Error& error) {
  std::cerr << paintDiagnostics(error.text(), terminal().colourStderr);
  return error.exitCode();
}

int reportWithJson(const driver::Error& error, const std::string& jsonOutput) {
  if (error.infeasible && !jsonOutput.empty())
    writeOutput(jsonOutput == "-" ? "" : jsonOutput,
                lower::toJson(*error.infeasible).dump(2) + "\n");
  return report(error);
}

void logToStderr(const std::string& line) {
  // -q keeps warnings (and the errors, which report() prints) and drops the notes.
  if (terminal().verbosity == Verbosity::Quiet && line.find("warning:") == std::string::npos)
    return;
  std::cerr << paintDiagnostics(line, terminal().colourStderr);
}

std::optional<ir::Device> resolveDevice(const DeviceFlags& flags, int& exitCode) {
  driver::Result<ir::Device> device = driver::loadDevice(flags);
  if (device) return std::move(device).value();
  exitCode = report(device.error());
  return std::nullopt;
}

int forEachChunk(const std::string& path, bool split, const std::vector<std::string>& outputs,
                 const std::function<int(std::optional<size_t>)>& each) {
  if (!split) return each(std::nullopt);
  for (const std::string& output : outputs)
    if (!output.empty() && output != "-") {
      std::cerr << fmt::format("ttlplan: error: --split-input-file prints each chunk's output to "
                               "stdout; '{}' would keep only the last: drop the output file\n",
                               output);
      return kUsageError;
    }
  Expected<std::string> text = readTextFile(path);
  if (!text) {
    std::cerr << driver::errorLine(text.error().message);
    return kUsageError;
  }
  size_t count = ir::splitInputFile(*text).size();
  int worst = kSuccess;
  for (size_t i = 0; i < count; ++i) {
    if (i) std::cout << "// -----\n" << std::flush;
    worst = std::max(worst, each(i));
    std::cout << std::flush;
  }
  return worst;
}

int runPrint(const PrintFlags& flags) {
  ir::DiagnosticEngine diags;
  ir::SourceManager sources;
  auto module = ir::parseFile(flags.input, diags, &sources, flags.inputChunk);
  if (!module) {
    std::cerr << paintDiagnostics(ir::format(diags.diagnostics(), &sources),
                                  terminal().colourStderr);
    return kInvalidInput;
  }
  ir::PrintOptions options;
  options.generic = flags.generic;
  options.useAliases = !flags.noAliases;
  return writeOutput(flags.output, ir::print(*module, options));
}

int runVerify(const VerifyFlags& flags, const DeviceFlags& device) {
  int exitCode = kSuccess;
  if (!resolveDevice(device, exitCode)) return exitCode;
  Expected<std::string> read = readTextFile(flags.input);
  if (!read) {
    std::cerr << driver::errorLine(read.error().message);
    return kUsageError;
  }
  const std::string& text = *read;
  std::vector<std::string> chunks =
      flags.splitInputFile ? ir::splitInputFile(text) : std::vector<std::string>{text};
  ir::SourceManager sources;
  sources.add(flags.input, text);
  bool ok = true;
  for (const std::string& chunk : chunks) {
    std::vector<ir::Diagnostic> diags = checkChunk(chunk, flags.input);
    if (flags.verifyDiagnostics) {
      std::vector<ir::ExpectedDiagnostic> expected = ir::parseExpectedDiagnostics(chunk);
      std::string report;
      if (!ir::checkExpectedDiagnostics(flags.input, diags, expected, report)) {
        std::cerr << report;
        ok = false;
      }
      continue;
    }
    for (const ir::Diagnostic& d : diags) {
      std::cerr << paintDiagnostics(ir::format(d, &sources), terminal().colourStderr);
      ok = ok && d.severity != ir::Severity::Error;
    }
  }
  return ok ? kSuccess : kInvalidInput;
}

int runDevices(const DeviceFlags& device, bool json) {
  std::vector<ir::Device> devices;
  if (!device.file.empty()) {
    Expected<ir::Device> d = ir::loadDeviceFile(device.file);
    if (!d) {
      std::cerr << d.error().message << "\n";
      return kInvalidInput;
    }
    devices.push_back(*d);
  } else {
    for (const std::string& name : ir::builtinDeviceNames()) {
      Expected<ir::Device> d = ir::builtinDevice(name);
      if (!d) { // only a broken build can get here: the embedded files are tested
        std::cerr << driver::errorLine(d.error().message);
        return kInvalidInput;
      }
      devices.push_back(*d);
    }
  }
  if (!json) {
    std::cout << ir::formatDeviceTable(devices);
    return kSuccess;
  }
  nlohmann::json all = nlohmann::json::array();
  for (const ir::Device& d : devices)
    all.push_back(ir::toJson(d));
  std::cout << all.dump(2) << "\n";
  return kSuccess;
}

int runOptions(bool markdown) {
  std::vector<OptionTable> passes = lower::passOptionTables();
  std::vector<const OptionTable*> tables = {&driver::targetOptions(), &planner::plannerOptions(),
                                            &search::tuneOptions()};
  for (const OptionTable& t : passes)
    tables.push_back(&t);
  if (markdown) {
    std::cout << optionsMarkdown(tables);
    return kSuccess;
  }
  for (const OptionTable* t : tables) {
    std::cout << t->component << ": " << t->summary << "\n";
    for (const OptionRecord& r : t->records)
      std::cout << fmt::format("  --{:<20} {}\n", r.name, r.help());
    std::cout << "\n";
  }
  return kSuccess;
}

namespace {

/// docs/language.md's generated section: every op, attribute and data type, from the registry.
std::string opsMarkdown() {
  std::string out = std::string(kOpsMarkdownBegin) + "\n";
  out += "### Every op\n\n"
         "The op registry (ir/OpRegistry.cpp) as `ttlplan ops --markdown` prints it: where each "
         "op may appear (the verifier enforces it), how many operands, results and regions it "
         "takes (-1: any number), and its custom form (`$N` is operand N, `[{..}]` an optional "
         "attribute dictionary, `T`/`R` the operand and result types).\n\n"
         "| op | may appear in | operands | results | regions | custom form | what it does |\n"
         "|---|---|---|---|---|---|---|\n";
  for (const ir::OpDef& def : ir::registeredOps())
    out += fmt::format("| `{}` | {} | {} | {} | {} | `{}` | {} |\n", def.name,
                       ir::toString(def.placement), def.numOperands, def.numResults, def.numRegions,
                       ir::syntaxOf(def.format), def.summary);
  out += "\n### Compute ops\n\n"
         "Each compute op's record: its kind (what the verifier, DST extraction and lower-compute "
         "treat it as), the TT-Metalium compute kernel API call lower-compute emits and the init "
         "before it, and the device's per-tile cost that prices it (docs/devices.md, "
         "docs/cost-model.md).\n\n"
         "| op | kind | kernel API call | init | priced by |\n|---|---|---|---|---|\n";
  for (const ir::OpDef& def : ir::registeredOps())
    if (def.compute.kind != ir::ComputeKind::None)
      out += fmt::format("| `{}` | {} | `{}` | {} | `{}` |\n", def.name,
                         ir::toString(def.compute.kind), def.compute.apiFn,
                         def.compute.apiInit.empty() ? std::string("none")
                                                     : fmt::format("`{}`", def.compute.apiInit),
                         ir::toString(def.compute.cost));
  out += "\n### Attributes\n\n| op | attribute | meaning | values | when absent |\n"
         "|---|---|---|---|---|\n";
  for (const ir::AttrDef& a : ir::registeredAttributes())
    out += fmt::format("| `{}` | `{}` | {} | `{}` | {} |\n", a.op, a.name, a.summary, a.values,
                       a.defaultValue);
  out += "\n### Tile data types\n\n| spelling |\n|---|\n";
  for (ir::DataType t : ir::kAllDataTypes)
    out += fmt::format("| `{}` |\n", ir::toString(t));
  out += std::string(kOpsMarkdownEnd) + "\n";
  return out;
}

} // namespace

int runOps(bool markdown) {
  if (markdown) {
    std::cout << opsMarkdown();
    return kSuccess;
  }
  for (const ir::OpDef& def : ir::registeredOps())
    std::cout << fmt::format("{:<24} {:<22} {}\n", def.name, ir::toString(def.placement),
                             def.summary);
  std::cout << "\nattributes:\n";
  for (const ir::AttrDef& a : ir::registeredAttributes())
    std::cout << fmt::format("{} {:<14} {} (values {}; default {})\n", a.op, a.name, a.summary,
                             a.values, a.defaultValue);
  return kSuccess;
}

} // namespace ttlplan::tools
