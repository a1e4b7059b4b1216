// ttlplan: the command-line front end. Adds the command table's commands (tools/Command.h) to
// the app, parses, and runs the command given; holds no logic.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"
#include "ttlplan/driver/PythonFrontend.h"
#include "ttlplan/support/Version.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>

using namespace ttlplan::tools;

int main(int argc, char** argv) {
  CLI::App app{"ttlplan: a planning compiler for TTL kernels on Tenstorrent Tensix chips.\n"
               "Reads TTL (docs/language.md; start with docs/tutorial.md), verifies, plans,\n"
               "costs, tunes, compiles and emulates it; `ttlplan COMMAND --help` explains each.\n"
               "Exit status: 0 success, 1 invalid input (or no plan), "
               "2 usage error.",
               "ttlplan"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(ttlplan::kToolVersion));
  bool quiet = false, verbose = false;
  const ttlplan::OptionTable& common = commandOptions("every command");
  addOption(app, common.at("quiet"), quiet);
  addOption(app, common.at("verbose"), verbose);
  app.fallthrough(); // -q and -v may follow the command, as in `ttlplan run k.ttl -q`
  ttlplan::driver::PythonInput python;
  const ttlplan::OptionTable& pythonFlags = commandOptions("python kernels");
  // One value per occurrence: `--args a=64x64 k.py` must leave k.py to the command.
  addOption(app, pythonFlags.at("args"), python.args)->allow_extra_args(false);
  addOption(app, pythonFlags.at("knob"), python.knobs)->allow_extra_args(false);
  addOption(app, pythonFlags.at("buffer-factor"), python.bufferFactor);
  // Every command reads .py kernels, so every command's --help lists these flags of ttlplan's.
  std::string pythonFooter = pythonFlags.summary + "\n";
  for (const ttlplan::OptionRecord& record : pythonFlags.records)
    pythonFooter += fmt::format("  --{:<26}{}\n", record.name, record.help());

  SharedFlags shared;
  std::vector<std::pair<CLI::App*, Runner>> commands;
  std::vector<std::string_view> names;
  for (const Command& command : commandTable()) {
    Runner run = command.add(app, shared);
    app.get_subcommand(std::string(command.name))->footer(pythonFooter);
    commands.emplace_back(app.get_subcommand(std::string(command.name)), std::move(run));
    names.push_back(command.name);
  }
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    std::cerr << fmt::format("ttlplan: error: unknown command '{}'; commands are {} (see "
                             "'ttlplan --help')\n",
                             argv[1], fmt::join(names, ", "));
    return kUsageError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << fmt::format("ttlplan: error: {} (see 'ttlplan --help')\n", e.what());
    return kUsageError;
  }
  setTerminal(quiet ? Verbosity::Quiet : verbose ? Verbosity::Verbose : Verbosity::Normal);
  // grid="auto" in a Python kernel is the device's compute grid.
  if (auto device = ttlplan::driver::loadDevice(shared.device))
    python.deviceGrid =
        fmt::format("{}x{}", device->grid.compute.columns, device->grid.compute.rows);
  ttlplan::driver::setPythonInput(std::move(python));
  for (const auto& [command, run] : commands)
    if (command->parsed()) return run();
  return kUsageError; // require_subcommand(1) makes this unreachable
}
