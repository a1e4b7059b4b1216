#pragma once
// `ttlplan tune` (tools/TuneCommand.cpp): search a template's knobs and the planner's `?` block
// counts with the cost model (docs/tuning.md).
#include "tools/Commands.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace ttlplan::tools {

struct TuneFlags : driver::TuneRequest {
  std::string jsonOutput;  ///< --json OUT ("-": stdout, instead of the table)
  std::string htmlOutput;  ///< --html OUT: the page with every point and the pick's plan
  std::string emitDir;     ///< --emit DIR
  bool verifyBest = false; ///< --verify-best
  bool quiet = false;      ///< --quiet
};

/// Adds the `tune` subcommand to `app` (with the device flags).
CLI::App* addTuneCommand(CLI::App& app, TuneFlags& flags, DeviceFlags& device);
int runTune(const TuneFlags& flags, const DeviceFlags& device);

} // namespace ttlplan::tools
