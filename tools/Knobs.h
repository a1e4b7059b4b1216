#pragma once
// The flags that choose what a command plans (docs/cli.md): --bind, --config, --db and --grid,
// defined once for plan, lower, compile, run and cost (and, without --db, for tune), and the
// binding they give: the knobs they leave unbound are tuned (tools/TunedBinding.cpp).
#include "tools/Commands.h"
#include "ttlplan/lower/KernelPlanner.h"

#include <CLI/CLI.hpp>
#include <cstdint>
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

/// The planning commands search the unbound knobs exhaustively when the space (knobs and `?`
/// block counts) has at most this many points, else this many points of the seeded evolve
/// strategy (seed 1; docs/tuning.md compares the strategies): `ttlplan tune --strategy evolve
/// --budget-evals 20000` finds the same.
inline constexpr uint64_t kPlanTuneBudget = 20000;

/// The binding a planning command plans with, set in `options` (binding, bindingSource,
/// kernelBlockCounts): --bind and --config; when they leave knobs of the module unbound, the
/// best point search::tune finds over them with the bound ones fixed (exhaustive up to
/// kPlanTuneBudget points, else kPlanTuneBudget of a seeded evolve search; every thread, the same
/// result at any count) and its `?` block counts, or with --db the best usable record of that
/// tuning db (always, also when every knob is bound). Prints one line on stderr saying what it
/// chose. `options.maxBlockCount` is the deepest block count searched. False (the error printed,
/// `exitCode` set) when a flag is bad, --bind does not fit the module, no point fits, or the db
/// has no usable record for this kernel, binding and device.
bool choosePlanBinding(const KnobFlags& flags, const ir::Module& module, const ir::Device& device,
                       lower::PlanOptions& options, int& exitCode);

/// `--grid YxX` applied to `device`; false (message printed, `exitCode` set) when malformed or
/// larger than the device allows.
bool applyGridFlag(const std::string& grid, ir::Device& device, int& exitCode);

} // namespace ttlplan::tools
