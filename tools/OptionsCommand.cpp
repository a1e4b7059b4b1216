// `ttlplan options`: every option table (planner, tune, target, passes); docs/options.md is its
// Markdown.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/OptionFlags.h"
#include "ttlplan/driver/Options.h"
#include "ttlplan/lower/PassManager.h"
#include "ttlplan/planner/Options.h"
#include "ttlplan/search/TuneOptions.h"

#include <fmt/format.h>
#include <iostream>
#include <memory>

namespace ttlplan::tools {

namespace {

int runOptions(bool markdown) {
  std::vector<OptionTable> passes = lower::passOptionTables();
  std::vector<const OptionTable*> tables = {&driver::targetOptions(), &planner::plannerOptions(),
                                            &search::tuneOptions()};
  for (const OptionTable& t : passes)
    tables.push_back(&t);
  for (const OptionTable* t : commandOptionTables())
    tables.push_back(t);
  if (markdown) {
    std::cout << optionsMarkdown(tables);
    return kSuccess;
  }
  for (const OptionTable* t : tables) {
    std::cout << t->component << ": " << t->summary << "\n";
    for (const OptionRecord& r : t->records)
      std::cout << fmt::format("  --{:<20} {}\n", r.name, r.help());
    std::cout << "\n";
  }
  return kSuccess;
}

} // namespace

Runner addOptionsCommand(CLI::App& app, SharedFlags&) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "options",
      "List every option table (target, planner, tune, passes, commands): name, default, "
      "range, doc");
  addOption(*cmd, commandOptions("options").at("markdown"), *markdown);
  return [markdown] { return runOptions(*markdown); };
}

} // namespace ttlplan::tools
