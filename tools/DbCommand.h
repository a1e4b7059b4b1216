#pragma once
// `ttlplan db` (tools/DbCommand.cpp): look into, merge and re-cost the JSON-lines tuning records
// that `ttlplan tune --db` writes (search/TuningDb.h, docs/tuning.md).
#include "tools/Commands.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ttlplan::tools {

/// The flags of `db show|best|merge|rerank`; `action` says which of them was given.
struct DbFlags {
  std::string action;              ///< "show", "best", "merge" or "rerank" (set by the parser)
  std::string file;                ///< FILE (show, best, rerank)
  std::vector<std::string> inputs; ///< merge: A B ...
  std::string output;              ///< -o: merge's output (required), rerank's (default FILE)
  bool overwrite = false;          ///< merge --overwrite: replace an existing -o
  std::string jsonOutput;          ///< show, best: --json OUT ("-": stdout, instead of the table)
  std::string kernel;              ///< rerank --kernel TTL
  DeviceFlags device{"", "", ""};  ///< rerank --device, --device-file, --grid ("": the db's device)
  int64_t nodeLimit = 0;           ///< rerank --node-limit per planner sub-problem
};

/// Adds the `db` subcommand and its show, best, merge and rerank subcommands to `app`.
CLI::App* addDbCommand(CLI::App& app, DbFlags& flags);
/// Runs the `db` subcommand `flags.action`.
int runDb(const DbFlags& flags);

} // namespace ttlplan::tools
