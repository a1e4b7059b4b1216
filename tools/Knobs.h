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
void addDeviceFlags(CLI::App& command, DeviceFlags& device);

} // namespace ttlplan::tools
