#include "tools/HtmlReport.h"

#include "tools/Commands.h"
#include "ttlplan/driver/Documents.h"
#include "ttlplan/lower/PlanReport.h"
#include "ttlplan/report/Html.h"

namespace ttlplan::tools {

namespace {

int write(const std::string& path, report::PageInput input, const ir::Device& device) {
  input.deviceRows = device.grid.compute.rows;
  input.deviceCols = device.grid.compute.columns;
  if (int rc = writeOutput(path, report::renderHtml(input)); rc != kSuccess) return rc;
  logToStderr("wrote " + path + "\n");
  return kSuccess;
}

} // namespace

int writeHtmlReport(const std::string& path, const std::string& command,
                    const search::cost::CostReport& cost, const ir::Device& device,
                    const nlohmann::json& tune) {
  report::PageInput input;
  input.command = command;
  input.plan = driver::planJson(cost.plan, &cost);
  input.cost = search::cost::toJson(cost);
  input.tune = tune;
  return write(path, std::move(input), device);
}

int writeHtmlReport(const std::string& path, const std::string& command,
                    const lower::ModulePlan& plan, const ir::Device& device) {
  report::PageInput input;
  input.command = command;
  input.plan = driver::planJson(plan, nullptr);
  return write(path, std::move(input), device);
}

} // namespace ttlplan::tools
