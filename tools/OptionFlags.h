#pragma once
// Command-line flags from option records (support/Options.h): the flag's name, help, range
// check and default come from the record, so `--help`, pipelines and docs/options.md agree.
#include "ttlplan/planner/l1/ExactSolver.h"
#include "ttlplan/support/Options.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ttlplan::tools {

/// --NAME for an Integer or Real record, checked against its range.
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, int& target);
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, int64_t& target);
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, uint64_t& target);
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, double& target);
/// --NAME for a Choice or Text record (the value is checked where it is used, whose error lists
/// the accepted values).
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, std::string& target);
/// --NAME for a Text record that may be given more than once.
CLI::Option* addOption(CLI::App& command, const OptionRecord& record,
                       std::vector<std::string>& target);
/// --NAME for a Flag record, and --no-NAME when it is on by default.
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, bool& target);

/// --solver, --time-limit, --max-block-count (and with `nodeLimit`, --node-limit) from the
/// planner's table.
void addPlannerFlags(CLI::App& command, std::string& solver, double& timeLimitSeconds,
                     int* maxBlockCount, int64_t* nodeLimit = nullptr);
/// --no-canonical-order, --no-section-bound, ...: each pruning rule of the exact L1 solver.
void addExactRuleFlags(CLI::App& command, planner::l1::ExactParams& params);

} // namespace ttlplan::tools
