#pragma once
// --html FILE of `plan`, `cost` and `tune`: the report page (report/Html.h) from the reports' JSON.
#include "ttlplan/ir/Device.h"
#include "ttlplan/search/cost/Report.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ttlplan::tools {

/// Writes the page of `command` for `cost` (its plan and prediction) to `path`, with `tune` (the
/// tune JSON with points and pareto) when not null; an exit status (a write failure is reported).
int writeHtmlReport(const std::string& path, const std::string& command,
                    const search::cost::CostReport& cost, const ir::Device& device,
                    const nlohmann::json& tune = nullptr);

/// The same for a plan the cost model could not read (no prediction, no cost sections).
int writeHtmlReport(const std::string& path, const std::string& command,
                    const lower::ModulePlan& plan, const ir::Device& device);

} // namespace ttlplan::tools
