#pragma once
// The option tables of the commands' own flags: output files and report formats, the pipeline
// dumps, the emulator run's inputs, the db subcommands. The flags every planning command shares
// come from the target table (driver/Options.h), the planner's (planner/Options.h) and the
// search's (search/TuneOptions.h); with these, every flag of `ttlplan` is a record, so `--help`,
// its check and docs/options.md come from one place.
#include "ttlplan/support/Options.h"

#include <string_view>
#include <vector>

namespace ttlplan::tools {

/// The table of `command` ("every command", "print", "pipeline", "db rerank", ...; the names
/// commandOptionTables lists without their " command" suffix). Throws on an unknown name (a
/// programming error).
const OptionTable& commandOptions(std::string_view command);

/// Every command table, in the order `ttlplan options` lists them.
std::vector<const OptionTable*> commandOptionTables();

} // namespace ttlplan::tools
