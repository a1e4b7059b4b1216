// `ttlplan cost`: plan every kernel of a TTL file and predict its device time with the cost model
// (search/cost/Report.h); a table on stdout, or JSON with --json.
#include "tools/CostCommand.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "lower/Extract.h"
#include "search/cost/Report.h"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>

namespace ttlplan::tools {

CLI::App* addCostCommand(CLI::App& app, CostFlags& flags, DeviceFlags& device) {
  CLI::App* cmd = app.add_subcommand(
      "cost", "Plan every kernel of a TTL file and predict its device time with the cost model: "
              "time, utilisation (ideal cycles / predicted), the bound (compute, dram, noc, "
              "latency, imbalance) and where the critical core's threads wait "
              "(docs/cost-model.md)");
  cmd->add_option("file", flags.input, "TTL file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--device", device.name,
                  "Built-in device description (default wormhole_b0; see `ttlplan devices`)");
  cmd->add_option("--device-file", device.file, "Device description JSON (wins over --device)");
  cmd->add_option("--bind", flags.bind,
                  "Knob values NAME=V,... (default: the first binding that satisfies every "
                  "ttl.require)");
  cmd->add_option("--grid", flags.grid,
                  "Use a YxX compute grid instead of the device's (at most its Tensix grid)");
  cmd->add_option("--json", flags.jsonOutput,
                  "Write the report as JSON to this file ('-': stdout, instead of the table)");
  return cmd;
}

bool applyGridFlag(const std::string& grid, ir::Device& device, int& exitCode) {
  if (grid.empty()) return true;
  std::smatch m;
  if (!std::regex_match(grid, m, std::regex(R"(([0-9]{1,4})x([0-9]{1,4}))"))) {
    std::cerr << fmt::format("ttlplan: error: --grid '{}' is not ROWSxCOLUMNS (e.g. 8x8)\n", grid);
    exitCode = kUsageError;
    return false;
  }
  Status ok = ir::setComputeGrid(device, std::stoi(m[1]), std::stoi(m[2]));
  if (ok) return true;
  std::cerr << "ttlplan: error: --grid: " << ok.error().message << "\n";
  exitCode = kUsageError;
  return false;
}

int runCost(const CostFlags& flags, const DeviceFlags& deviceFlags) {
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device || !applyGridFlag(flags.grid, *device, exitCode)) return exitCode;
  lower::PlanOptions options;
  if (!flags.bind.empty()) {
    Expected<ir::Binding> binding = lower::parseBindingList(flags.bind);
    if (!binding) {
      std::cerr << "ttlplan: error: " << binding.error().message << "\n";
      return kUsageError;
    }
    options.binding = *binding;
  }
  ir::DiagnosticEngine diags;
  ir::SourceManager sources;
  auto module = ir::parseFile(flags.input, diags, &sources);
  if (!module || !ir::verify(*module, diags)) {
    std::cerr << ir::format(diags.diagnostics(), &sources);
    return kInvalidInput;
  }
  Expected<search::cost::CostReport> report = search::cost::costModule(*module, *device, options);
  if (!report) {
    std::cerr << "ttlplan: error: " << report.error().message << "\n";
    return kInvalidInput;
  }
  std::string json = search::cost::toJson(*report).dump(2) + "\n";
  if (flags.jsonOutput == "-") return writeOutput("", json);
  std::cout << search::cost::formatCostReport(*report);
  return flags.jsonOutput.empty() ? kSuccess : writeOutput(flags.jsonOutput, json);
}

} // namespace ttlplan::tools
