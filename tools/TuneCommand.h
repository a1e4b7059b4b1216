#pragma once
// `ttlplan tune` (tools/TuneCommand.cpp): search a template's knobs and the planner's `?` block
// counts with the cost model (docs/tuning.md).
#include "tools/Commands.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace ttlplan::tools {

struct TuneFlags {
  std::string input;                   ///< FILE
  KnobFlags knobs;                     ///< --bind (the knobs not searched), --config
  std::string strategy = "exhaustive"; ///< --strategy
  uint64_t budgetEvals = 0;            ///< --budget-evals; 0 = the whole space (exhaustive only)
  double timeLimitSeconds = 0;         ///< --time-limit
  int threads = 0;                     ///< --threads; 0 = every hardware thread
  uint64_t seed = 1;                   ///< --seed
  std::string db;                      ///< --db FILE
  bool resume = false;                 ///< --resume
  std::string shard;                   ///< --shard I/N
  size_t top = 5;                      ///< --top K
  std::string jsonOutput;              ///< --json OUT ("-": stdout, instead of the table)
  std::string emitDir;                 ///< --emit DIR
  bool verifyBest = false;             ///< --verify-best
  bool quiet = false;                  ///< --quiet
  int maxBlockCount = 4;               ///< --max-block-count
  int64_t nodeLimit = 0;               ///< --node-limit per planner sub-problem
};

/// Adds the `tune` subcommand to `app` (with the device flags).
CLI::App* addTuneCommand(CLI::App& app, TuneFlags& flags, DeviceFlags& device);
int runTune(const TuneFlags& flags, const DeviceFlags& device);

} // namespace ttlplan::tools
