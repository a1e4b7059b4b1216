#include "tools/Command.h"

#include "tools/CommandOptions.h"
#include "tools/OptionFlags.h"

namespace ttlplan::tools {

const std::vector<Command>& commandTable() {
  static const std::vector<Command> table = {
      {"print", addPrintCommand}, {"verify", addVerifyCommand},   {"devices", addDevicesCommand},
      {"ops", addOpsCommand},     {"options", addOptionsCommand}, {"alloc", addAllocCommand},
      {"plan", addPlanCommand},   {"lower", addLowerCommand},     {"compile", addCompileCommand},
      {"run", addRunCommand},     {"cost", addCostCommand},       {"tune", addTuneCommand},
      {"db", addDbCommand},
  };
  return table;
}

void addSplitInputFileFlag(CLI::App& command, SharedFlags& shared) {
  addOption(command, commandOptions("every command").at("split-input-file"), shared.splitInputFile);
}

int runChunked(const SharedFlags& shared, const std::string& input, std::optional<size_t>& chunk,
               const std::vector<std::string>& outputs, const std::function<int()>& run) {
  return forEachChunk(input, shared.splitInputFile, outputs, [&](std::optional<size_t> i) {
    chunk = i;
    return run();
  });
}

} // namespace ttlplan::tools
