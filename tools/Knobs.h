#pragma once
// The flags that choose what a command plans (docs/cli.md): --bind, --config, --db, --no-tune and
// --grid, defined once for plan, lower, compile, run and cost (and, without --db, for tune). What
// binding they give is the driver's (driver::choosePlanBinding, driver/Binding.cpp).
#include "tools/Commands.h"

#include <CLI/CLI.hpp>
#include <string>

namespace ttlplan::tools {

/// The commands the knob flags serve: the planning commands (plan, lower, compile, run, cost)
/// tune the knobs --bind leaves out or read them from --db; `tune` searches them (its --db is
/// its own flag).
enum class KnobUse { Plan, Tune };

/// Adds --bind and --config (and for KnobUse::Plan --db) into `knobs`, and --grid (into `device`),
/// to `command`.
void addKnobFlags(CLI::App& command, KnobFlags& knobs, DeviceFlags& device,
                  KnobUse use = KnobUse::Plan);

/// Adds --device and --device-file into `device`.
/// Whether a command takes the shared --target (tenstorrent, pto) or has one of its own (compile).
enum class TargetFlag { Shared, Own };
/// --target (unless the command has its own), --device and --device-file; returns --device.
CLI::Option* addDeviceFlags(CLI::App& command, DeviceFlags& device,
                            TargetFlag targetFlag = TargetFlag::Shared);
/// Under --target pto with no --device given: the default Ascend description.
void choosePtoDefault(DeviceFlags& device, const CLI::Option& name);

} // namespace ttlplan::tools
