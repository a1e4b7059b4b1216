#include "tools/Command.h"

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
  command.add_flag("--split-input-file", shared.splitInputFile,
                   "Treat each `// -----` chunk of the file as a file of its own (as mlir-opt "
                   "does); their outputs are printed in order, separated by `// -----` "
                   "(compile writes chunk N under DIR/N)");
}

int runChunked(const SharedFlags& shared, const std::string& input, std::optional<size_t>& chunk,
               const std::vector<std::string>& outputs, const std::function<int()>& run) {
  return forEachChunk(input, shared.splitInputFile, outputs, [&](std::optional<size_t> i) {
    chunk = i;
    return run();
  });
}

} // namespace ttlplan::tools
