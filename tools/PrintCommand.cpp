// `ttlplan print`: parse a TTL file and print it back (custom or generic form).
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"

#include <iostream>
#include <memory>

namespace ttlplan::tools {

namespace {

struct PrintFlags {
  driver::PrintRequest request;
  bool noAliases = false; ///< --no-aliases
  std::string output;     ///< -o; stdout when empty
};

int runPrint(PrintFlags& flags) {
  flags.request.useAliases = !flags.noAliases;
  driver::Result<std::string> text = driver::printFile(flags.request);
  if (!text) return report(text.error());
  return writeOutput(flags.output, *text);
}

} // namespace

Runner addPrintCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<PrintFlags>();
  CLI::App* cmd = app.add_subcommand("print", "Parse a TTL file and print it back");
  cmd->add_option("file", flags->request.input, "TTL file (custom or generic form)")
      ->required()
      ->check(CLI::ExistingFile);
  const OptionTable& options = commandOptions("print");
  addOption(*cmd, options.at("generic"), flags->request.generic);
  addOption(*cmd, options.at("no-aliases"), flags->noAliases);
  addOption(*cmd, options.at("output"), flags->output);
  addSplitInputFileFlag(*cmd, shared);
  return [flags, &shared] {
    return runChunked(shared, flags->request.input, flags->request.inputChunk, {flags->output},
                      [&] { return runPrint(*flags); });
  };
}

} // namespace ttlplan::tools
