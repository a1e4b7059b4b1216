#pragma once
// `ttlplan cost` (tools/CostCommand.cpp): predict every kernel's device time (docs/cost-model.md).
#include "tools/Commands.h"

#include <CLI/CLI.hpp>
#include <string>

namespace ttlplan::tools {

struct CostFlags : driver::PlanRequest {
  std::string jsonOutput; ///< --json OUT ("-" for stdout, then no table)
  std::string htmlOutput; ///< --html OUT
};

/// Adds the `cost` subcommand with its file, knob and --json flags to `app` (the caller adds the
/// device flags).
CLI::App* addCostCommand(CLI::App& app, CostFlags& flags, DeviceFlags& device);
int runCost(const CostFlags& flags, const DeviceFlags& device);

} // namespace ttlplan::tools
