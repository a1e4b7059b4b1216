// `ttlplan plan` (driver::planFile): the report, --json, the planned IR.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/HtmlReport.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"
#include "ttlplan/driver/Documents.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/lower/ApplyPlan.h"
#include "ttlplan/lower/PlanReport.h"
#include "ttlplan/report/Html.h"
#include "ttlplan/search/cost/Report.h"
#include "ttlplan/support/JsonText.h"

#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <optional>

namespace ttlplan::tools {

namespace {

struct PlanFlags : driver::PlanRequest {
  std::string jsonOutput; ///< --json OUT ('-': stdout)
  std::string htmlOutput; ///< --html OUT
  std::string output;     ///< -o: the planned IR (ttl.bind_cb attributes) goes here
};

/// `plan --target pto`: the Ascend report and its JSON (docs/pto.md).
int runPtoPlan(const PlanFlags& flags, const DeviceFlags& deviceFlags) {
  driver::Result<ir::pto::Device> device = driver::loadPtoDevice(deviceFlags);
  if (!device) return report(device.error());
  if (!flags.output.empty())
    return report(driver::Error::usage(
        "-o: under --target pto `plan` writes the report, --json and --html; `compile --target "
        "pto -o DIR` writes the planned kernel as pto-isa C++"));
  std::optional<Progress> progress(std::in_place, "plan: planning for pto");
  driver::Result<driver::PtoPlanned> planned = driver::planPtoFile(flags, *device, logToStderr);
  progress.reset();
  if (!planned) return report(planned.error());
  const bool jsonToStdout = flags.jsonOutput == "-";
  (jsonToStdout ? std::cerr : std::cout) << lower::formatReport(planned->plan);
  const nlohmann::json json = lower::toJson(planned->plan);
  if (!flags.htmlOutput.empty())
    if (int rc = writeOutput(flags.htmlOutput, report::renderPtoHtml("plan", json, nullptr));
        rc != kSuccess)
      return rc;
  if (flags.jsonOutput.empty()) return kSuccess;
  return writeOutput(jsonToStdout ? "" : flags.jsonOutput, jsonText(json, 2) + "\n");
}

int runPlan(const PlanFlags& flags, const DeviceFlags& deviceFlags) {
  if (deviceFlags.target == driver::kPtoTarget) return runPtoPlan(flags, deviceFlags);
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  std::optional<Progress> progress(std::in_place, "plan: choosing the binding and planning");
  driver::Result<driver::Planned> planned = driver::planFile(flags, *device, logToStderr);
  progress.reset();
  if (!planned) return reportWithJson(planned.error(), flags.jsonOutput);
  const lower::ModulePlan& plan = planned->plan;
  // `--json -`: the JSON is standard output (for scripts), and the report goes to stderr.
  const bool jsonToStdout = flags.jsonOutput == "-";
  std::vector<std::string> notes;
  if (planned->cost)
    notes = search::cost::planNotes(*planned->cost);
  else
    logToStderr(fmt::format("warning: no predicted time: {}\n", planned->costError));
  (jsonToStdout ? std::cerr : std::cout) << lower::formatReport(plan, lower::Timings::Shown, notes);
  if (!flags.jsonOutput.empty()) {
    nlohmann::json json = driver::planJson(plan, planned->cost ? &*planned->cost : nullptr);
    if (int rc = writeOutput(jsonToStdout ? "" : flags.jsonOutput, jsonText(json, 2) + "\n");
        rc != kSuccess)
      return rc;
  }
  if (!flags.htmlOutput.empty()) {
    int rc = planned->cost ? writeHtmlReport(flags.htmlOutput, "plan", *planned->cost, *device)
                           : writeHtmlReport(flags.htmlOutput, "plan", plan, *device);
    if (rc != kSuccess) return rc;
  }
  if (flags.output.empty()) return kSuccess;
  lower::applyPlan(*planned->source.module, plan);
  return writeOutput(flags.output, ir::print(*planned->source.module, ir::PrintOptions{}));
}

} // namespace

Runner addPlanCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<PlanFlags>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Plan every kernel of a TTL file (L1 placement, CB indices, DST sub-blocks, core "
              "assignment, multicast) and print the report (docs/plan.md)");
  cmd->add_option("file", flags->input, "TTL file")->required()->check(CLI::ExistingFile);
  addDeviceFlags(*cmd, shared.device);
  addPlannerFlags(*cmd, flags->solver, flags->timeLimitSeconds, &flags->maxBlockCount);
  addExactRuleFlags(*cmd, flags->exact);
  const OptionTable& options = commandOptions("plan");
  addOption(*cmd, options.at("json"), flags->jsonOutput);
  addOption(*cmd, options.at("html"), flags->htmlOutput);
  addKnobFlags(*cmd, flags->knobs, shared.device);
  addOption(*cmd, options.at("output"), flags->output);
  addSplitInputFileFlag(*cmd, shared);
  return [flags, &shared] {
    return runChunked(shared, flags->input, flags->inputChunk,
                      {flags->output, flags->jsonOutput, flags->htmlOutput},
                      [&] { return runPlan(*flags, shared.device); });
  };
}

} // namespace ttlplan::tools
