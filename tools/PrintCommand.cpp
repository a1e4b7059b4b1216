// `ttlplan print`: parse a TTL file and print it back (custom or generic form).
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"

#include <iostream>
#include <memory>

namespace ttlplan::tools {

namespace {

struct PrintFlags {
  std::string input;                ///< FILE
  std::optional<size_t> inputChunk; ///< only this `// -----` chunk (--split-input-file)
  std::string output;               ///< -o; stdout when empty
  bool generic = false;             ///< --generic
  bool noAliases = false;           ///< --no-aliases
};

int runPrint(const PrintFlags& flags) {
  ir::DiagnosticEngine diags;
  ir::SourceManager sources;
  auto module = ir::parseFile(flags.input, diags, &sources, flags.inputChunk);
  if (!module) {
    std::cerr << paintDiagnostics(ir::format(diags.diagnostics(), &sources),
                                  terminal().colourStderr);
    return kInvalidInput;
  }
  ir::PrintOptions options;
  options.generic = flags.generic;
  options.useAliases = !flags.noAliases;
  return writeOutput(flags.output, ir::print(*module, options));
}

} // namespace

Runner addPrintCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<PrintFlags>();
  CLI::App* cmd = app.add_subcommand("print", "Parse a TTL file and print it back");
  cmd->add_option("file", flags->input, "TTL file (custom or generic form)")
      ->required()
      ->check(CLI::ExistingFile);
  const OptionTable& options = commandOptions("print");
  addOption(*cmd, options.at("generic"), flags->generic);
  addOption(*cmd, options.at("no-aliases"), flags->noAliases);
  addOption(*cmd, options.at("output"), flags->output);
  addSplitInputFileFlag(*cmd, shared);
  return [flags, &shared] {
    return runChunked(shared, flags->input, flags->inputChunk, {flags->output},
                      [&] { return runPrint(*flags); });
  };
}

} // namespace ttlplan::tools
