#pragma once
// `ttlplan cost` (tools/CostCommand.cpp): predict every kernel's device time (docs/cost-model.md).
#include "tools/Commands.h"

#include <CLI/CLI.hpp>
#include <string>

namespace ttlplan::tools {

struct CostFlags {
  std::string input;      ///< FILE
  std::string bind;       ///< --bind NAME=V,...
  std::string grid;       ///< --grid YxX: the device's compute grid for this run
  std::string jsonOutput; ///< --json OUT ("-" for stdout, then no table)
};

/// Adds the `cost` subcommand and its flags to `app`.
CLI::App* addCostCommand(CLI::App& app, CostFlags& flags, DeviceFlags& device);
int runCost(const CostFlags& flags, const DeviceFlags& device);

/// `--grid YxX` applied to `device`; false (message printed, `exitCode` set) when malformed or
/// larger than the device allows.
bool applyGridFlag(const std::string& grid, ir::Device& device, int& exitCode);

} // namespace ttlplan::tools
