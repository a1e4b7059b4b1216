#pragma once
// The flags that choose what a command plans (docs/cli.md): --bind, --config and --grid, defined
// once for plan, lower, compile, run and cost.
#include "tools/Commands.h"

#include <CLI/CLI.hpp>
#include <string>

namespace ttlplan::tools {

/// Adds --bind and --config (into `knobs`) and --grid (into `device`) to `command`.
void addKnobFlags(CLI::App& command, KnobFlags& knobs, DeviceFlags& device);

/// `--grid YxX` applied to `device`; false (message printed, `exitCode` set) when malformed or
/// larger than the device allows.
bool applyGridFlag(const std::string& grid, ir::Device& device, int& exitCode);

} // namespace ttlplan::tools
