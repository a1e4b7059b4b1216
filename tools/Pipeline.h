#pragma once
// Parsing a TTL file and running the lowering pipeline on it, for `lower`, `compile` and `run`.
#include "tools/Commands.h"
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/lower/KernelPlanner.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>

namespace ttlplan::tools {

/// The lowered module and the plan the pipeline made (when it had a `plan` pass).
struct Lowered {
  std::unique_ptr<ir::Module> module;
  std::optional<lower::ModulePlan> plan;
  ir::SourceManager sources;
};

/// Adds --pipeline, --print-ir-after-all, --print-ir-after, --time-passes and the planner flags.
void addPipelineFlags(CLI::App& command, PipelineFlags& flags);

/// What `ttlplan run` changes in a pipeline run to test that corrupted plans are caught.
struct LowerHooks {
  std::vector<std::pair<std::string, int64_t>> forcedCbAddresses; ///< lower::PassContext's
  bool validatePlan = true;                                       ///< lower::PassContext's
};

/// Parses, then runs the pipeline; prints diagnostics and sets `exitCode` on failure.
std::optional<Lowered> lowerFile(const PipelineFlags& flags, const ir::Device& device,
                                 int& exitCode, const LowerHooks& hooks = {});

} // namespace ttlplan::tools
