// `ttlplan cost`: plan every kernel of a TTL file and predict its device time with the cost model
// (search/cost/Report.h); a table on stdout, or JSON with --json.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/HtmlReport.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"
#include "ttlplan/report/Html.h"
#include "ttlplan/search/cost/Report.h"
#include "ttlplan/support/JsonText.h"

#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

namespace ttlplan::tools {

namespace {

struct CostFlags : driver::PlanRequest {
  std::string jsonOutput; ///< --json OUT ("-" for stdout, then no table)
  std::string htmlOutput; ///< --html OUT
};

/// `cost --target pto`: the plan costed per pipe (search/cost/pto/Model.h).
int runPtoCost(const CostFlags& flags, const DeviceFlags& deviceFlags) {
  driver::Result<ir::pto::Device> device = driver::loadPtoDevice(deviceFlags);
  if (!device) return report(device.error());
  std::optional<Progress> progress(std::in_place, "cost: planning for pto");
  driver::Result<driver::PtoCosted> costed = driver::costPtoFile(flags, *device, logToStderr);
  progress.reset();
  if (!costed) return reportWithJson(costed.error(), flags.jsonOutput);
  const nlohmann::json cost = driver::ptoCostJson(*costed);
  if (!flags.htmlOutput.empty())
    if (int rc =
            writeOutput(flags.htmlOutput,
                        report::renderPtoHtml("cost", lower::toJson(costed->planned.plan), cost));
        rc != kSuccess)
      return rc;
  std::string json = jsonText(cost, 2) + "\n";
  if (flags.jsonOutput == "-") return writeOutput("", json);
  std::cout << driver::formatPtoCost(*costed, *device);
  return flags.jsonOutput.empty() ? kSuccess : writeOutput(flags.jsonOutput, json);
}

int runCost(const CostFlags& flags, const DeviceFlags& deviceFlags) {
  if (deviceFlags.target == driver::kPtoTarget) return runPtoCost(flags, deviceFlags);
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  std::optional<Progress> progress(std::in_place, "cost: choosing the binding and planning");
  driver::Result<search::cost::CostReport> costed = driver::costFile(flags, *device, logToStderr);
  progress.reset();
  if (!costed) return reportWithJson(costed.error(), flags.jsonOutput);
  if (!flags.htmlOutput.empty())
    if (int rc = writeHtmlReport(flags.htmlOutput, "cost", *costed, *device); rc != kSuccess)
      return rc;
  std::string json = jsonText(search::cost::toJson(*costed), 2) + "\n";
  if (flags.jsonOutput == "-") return writeOutput("", json);
  std::cout << search::cost::formatCostReport(*costed);
  return flags.jsonOutput.empty() ? kSuccess : writeOutput(flags.jsonOutput, json);
}

} // namespace

Runner addCostCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<CostFlags>();
  CLI::App* cmd = app.add_subcommand(
      "cost", "Plan every kernel of a TTL file and predict its device time with the cost model: "
              "time, utilisation (ideal cycles / predicted), the bound (compute, dram, noc, "
              "latency, imbalance) and where the critical core's threads wait "
              "(docs/cost-model.md)");
  cmd->add_option("file", flags->input, "TTL file")->required()->check(CLI::ExistingFile);
  addKnobFlags(*cmd, flags->knobs, shared.device);
  addPlannerFlags(*cmd, flags->solver, flags->timeLimitSeconds, &flags->maxBlockCount);
  addExactRuleFlags(*cmd, flags->exact);
  const OptionTable& options = commandOptions("cost");
  addOption(*cmd, options.at("json"), flags->jsonOutput);
  addOption(*cmd, options.at("html"), flags->htmlOutput);

  addDeviceFlags(*cmd, shared.device);
  addSplitInputFileFlag(*cmd, shared);
  return [flags, &shared] {
    return runChunked(shared, flags->input, flags->inputChunk,
                      {flags->jsonOutput, flags->htmlOutput},
                      [&] { return runCost(*flags, shared.device); });
  };
}

} // namespace ttlplan::tools
