#pragma once
// The `ttlplan` commands as a table: each command's file defines its entry (the subcommand, its
// flags and what it runs); tools/main.cpp only adds the table's commands to the app, parses and
// runs the one given.
#include "tools/Commands.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::tools {

/// Flags more than one command takes: one set, since one command runs.
struct SharedFlags {
  DeviceFlags device;          ///< --device, --device-file, --grid
  bool splitInputFile = false; ///< --split-input-file (verify has its own meaning of it)
};

/// What a command runs once the command line parsed with it (the exit code).
using Runner = std::function<int()>;

/// One `ttlplan` command.
struct Command {
  std::string_view name; ///< "plan": `ttlplan plan ...`
  /// Adds the subcommand and its flags to `app`; the runner owns the flags' values.
  Runner (*add)(CLI::App& app, SharedFlags& shared);
};

/// Every command, in the order `ttlplan --help` lists them.
const std::vector<Command>& commandTable();

/// --split-input-file on a command that reads one TTL file.
void addSplitInputFileFlag(CLI::App& command, SharedFlags& shared);
/// runs `run` once per `// -----` chunk of `input` with --split-input-file (forEachChunk),
/// setting `chunk`, else once on the whole file.
int runChunked(const SharedFlags& shared, const std::string& input, std::optional<size_t>& chunk,
               const std::vector<std::string>& outputs, const std::function<int()>& run);

// The entries (tools/<Name>Command.cpp).
Runner addPrintCommand(CLI::App& app, SharedFlags& shared);
Runner addVerifyCommand(CLI::App& app, SharedFlags& shared);
Runner addDevicesCommand(CLI::App& app, SharedFlags& shared);
Runner addOpsCommand(CLI::App& app, SharedFlags& shared);
Runner addOptionsCommand(CLI::App& app, SharedFlags& shared);
Runner addAllocCommand(CLI::App& app, SharedFlags& shared);
Runner addPlanCommand(CLI::App& app, SharedFlags& shared);
Runner addLowerCommand(CLI::App& app, SharedFlags& shared);
Runner addCompileCommand(CLI::App& app, SharedFlags& shared);
Runner addRunCommand(CLI::App& app, SharedFlags& shared);
Runner addCostCommand(CLI::App& app, SharedFlags& shared);
Runner addTuneCommand(CLI::App& app, SharedFlags& shared);
Runner addDbCommand(CLI::App& app, SharedFlags& shared);

} // namespace ttlplan::tools
