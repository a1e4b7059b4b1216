#pragma once
// The pipeline flags of `lower`, `compile` and `run` (driver::LowerRequest).
#include "tools/Commands.h"

#include <CLI/CLI.hpp>

namespace ttlplan::tools {

/// Adds FILE, --pipeline, --print-ir-after-all, --print-ir-after, --time-passes and the planner
/// flags.
void addPipelineFlags(CLI::App& command, PipelineFlags& flags);

} // namespace ttlplan::tools
