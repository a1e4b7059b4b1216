#include "tools/OptionFlags.h"

#include "ttlplan/planner/Options.h"

namespace ttlplan::tools {

namespace {

/// "--NAME", or "-S,--NAME" with a short name.
std::string flagName(const OptionRecord& record) {
  std::string name = "--" + std::string(record.name);
  return record.shortName.empty() ? name : "-" + std::string(record.shortName) + "," + name;
}

template <typename T>
CLI::Option* addNumber(CLI::App& command, const OptionRecord& record, T& target) {
  // The table's own check (OptionRecord::number): in range, an integer where it must be, and
  // finite (CLI::Range lets `nan` through, since every comparison with NaN is false).
  OptionRecord checked = record;
  CLI::Validator inTable(
      [checked](std::string& text) {
        Expected<double> value = checked.number(text);
        if (value) return std::string();
        std::string message = value.error().message; // "NAME: ...": CLI11 names the flag itself
        std::string prefix = std::string(checked.name) + ": ";
        return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
      },
      record.range());
  return command.add_option(flagName(record), target, record.help())->check(inTable);
}

} // namespace

CLI::Option* addOption(CLI::App& command, const OptionRecord& record, int& target) {
  return addNumber(command, record, target);
}
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, int64_t& target) {
  return addNumber(command, record, target);
}
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, uint64_t& target) {
  return addNumber(command, record, target);
}
CLI::Option* addOption(CLI::App& command, const OptionRecord& record, double& target) {
  return addNumber(command, record, target);
}

CLI::Option* addOption(CLI::App& command, const OptionRecord& record, std::string& target) {
  return command.add_option(flagName(record), target, record.help());
}

CLI::Option* addOption(CLI::App& command, const OptionRecord& record,
                       std::vector<std::string>& target) {
  return command.add_option(flagName(record), target, record.help());
}

CLI::Option* addOption(CLI::App& command, const OptionRecord& record, bool& target) {
  // A switch that is on by default needs --no-NAME to turn it off; one that is off does not.
  if (record.defaultValue != "true")
    return command.add_flag(flagName(record), target, record.help());
  return command.add_flag(flagName(record) + ",!--no-" + std::string(record.name), target,
                          record.help());
}

void addPlannerFlags(CLI::App& command, std::string& solver, double& timeLimitSeconds,
                     int* maxBlockCount, int64_t* nodeLimit) {
  const OptionTable& table = planner::plannerOptions();
  addOption(command, table.at("solver"), solver);
  addOption(command, table.at("time-limit"), timeLimitSeconds);
  if (maxBlockCount) addOption(command, table.at("max-block-count"), *maxBlockCount);
  if (nodeLimit) addOption(command, table.at("node-limit"), *nodeLimit);
}

void addExactRuleFlags(CLI::App& command, planner::l1::ExactParams& params) {
  for (std::string_view name : planner::exactRuleNames())
    addOption(command, planner::plannerOptions().at(name), *planner::exactRule(params, name));
}

} // namespace ttlplan::tools
