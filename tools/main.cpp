// ttlplan: the command-line front end. Parses flags and calls the library; holds no logic.
#include "tools/Commands.h"
#include "tools/CostCommand.h"
#include "tools/DbCommand.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Pipeline.h"
#include "tools/Terminal.h"
#include "tools/TuneCommand.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/planner/l1/Solve.h"
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
  app.add_flag("-q,--quiet", quiet,
               "Errors and warnings only: no progress lines and no notes on standard error");
  app.add_flag("-v,--verbose", verbose, "Also say how long each slow step took");
  app.fallthrough(); // -q and -v may follow the command, as in `ttlplan run k.ttl -q`

  PrintFlags print;
  CLI::App* printCmd = app.add_subcommand("print", "Parse a TTL file and print it back");
  printCmd->add_option("file", print.input, "TTL file (custom or generic form)")
      ->required()
      ->check(CLI::ExistingFile);
  printCmd->add_flag(
      "--generic", print.generic,
      "Print generic MLIR form (accepted by mlir-opt-16 --allow-unregistered-dialect)");
  printCmd->add_flag("--no-aliases", print.noAliases,
                     "Spell every type in full instead of using the file's !alias / #alias names");
  printCmd->add_option("-o,--output", print.output, "Write to this file instead of stdout");

  VerifyFlags verify;
  DeviceFlags device;
  CLI::App* verifyCmd = app.add_subcommand(
      "verify", "Check placement, circular-buffer protocol, types and knobs; print diagnostics");
  verifyCmd->add_option("file", verify.input, "TTL file")->required()->check(CLI::ExistingFile);
  verifyCmd->add_flag("--split-input-file", verify.splitInputFile,
                      "Treat each `// -----` separated chunk as its own module");
  verifyCmd->add_flag("--verify-diagnostics", verify.verifyDiagnostics,
                      "Test mode: succeed only if the diagnostics match the file's "
                      "`// expected-error@+N {{text}}` annotations one to one");
  addDeviceFlags(*verifyCmd, device);

  bool json = false;
  CLI::App* devicesCmd = app.add_subcommand(
      "devices", "List the built-in device descriptions (or check --device-file)");
  devicesCmd->add_flag("--json", json, "Print the full descriptions as JSON");
  addDeviceFlags(*devicesCmd, device);

  bool opsMarkdown = false;
  CLI::App* opsCmd = app.add_subcommand(
      "ops", "List the ops ttlplan knows, where they may appear, and what they do");
  opsCmd->add_flag("--markdown", opsMarkdown,
                   "Print the reference tables of docs/language.md (ops, attributes, data types) "
                   "instead");
  bool optionsMarkdown = false;
  CLI::App* optionsCmd = app.add_subcommand(
      "options", "List every option table (planner, tune, passes): name, default, range, doc");
  optionsCmd->add_flag("--markdown", optionsMarkdown,
                       "As Markdown (docs/options.md is this output)");

  AllocFlags alloc;
  CLI::App* allocCmd = app.add_subcommand(
      "alloc", "Place buffers in L1 (or any memory) from a CSV of id,lower,upper,size[,alignment]: "
               "print a report to stderr and the CSV with an offset column");
  allocCmd->add_option("file", alloc.input, "CSV file with a header row (docs/alloc.md)")
      ->required()
      ->check(CLI::ExistingFile);
  allocCmd
      ->add_option("--capacity", alloc.capacity,
                   "Bytes available; 0 (default) = unbounded, just minimise the peak")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            // Digits only, and no clamping: CLI11 reads 99999999999999999999 as INT64_MAX.
            bool digits = !text.empty() && text.find_first_not_of("0123456789") == text.npos;
            if (digits &&
                (text.size() < 19 || (text.size() == 19 && text <= "9223372036854775807")))
              return "";
            return fmt::format("expected a whole number of bytes in [0, 9223372036854775807], "
                               "got '{}'",
                               text);
          },
          "BYTES"));
  addPlannerFlags(*allocCmd, alloc.solver, alloc.timeLimitSeconds, nullptr, &alloc.nodeLimit);
  addExactRuleFlags(*allocCmd, alloc.exact);
  allocCmd->add_option("-o,--output", alloc.output, "Write the CSV here instead of stdout");

  PlanFlags plan;
  CLI::App* planCmd = app.add_subcommand(
      "plan", "Plan every kernel of a TTL file (L1 placement, CB indices, DST sub-blocks, core "
              "assignment, multicast) and print the report (docs/plan.md)");
  planCmd->add_option("file", plan.input, "TTL file")->required()->check(CLI::ExistingFile);
  addDeviceFlags(*planCmd, device);
  addPlannerFlags(*planCmd, plan.solver, plan.timeLimitSeconds, &plan.maxBlockCount);
  addExactRuleFlags(*planCmd, plan.exact);
  planCmd->add_option("--json", plan.jsonOutput,
                      "Also write the report as JSON (schema_version 1) to this file ('-': "
                      "standard output, and the report goes to standard error)");
  planCmd->add_option("--html", plan.htmlOutput,
                      "Also write the report as one self-contained HTML page with pictures (L1 "
                      "map, core grid, multicast, DST rounds, cost breakdown; docs/reports.md)");
  addKnobFlags(*planCmd, plan.knobs, device);
  planCmd->add_option("-o,--output", plan.output,
                      "Write the planned IR (ttl.bind_cb attributes, work ranges) to this file");

  LowerFlags lowerFlags;
  CLI::App* lowerCmd = app.add_subcommand(
      "lower", "Plan a TTL file and lower it through the pass pipeline to TT-Metalium-level IR; "
               "print the result (docs/lowering.md)");
  addPipelineFlags(*lowerCmd, lowerFlags.pipeline);
  addDeviceFlags(*lowerCmd, device);
  addKnobFlags(*lowerCmd, lowerFlags.pipeline.knobs, device);
  lowerCmd->add_option("-o,--output", lowerFlags.output, "Write the IR here instead of stdout");

  CompileFlags compileFlags;
  CLI::App* compileCmd = app.add_subcommand(
      "compile", "Lower a TTL file through the pass pipeline and write TT-Metalium C++: per kernel "
                 "K, DIR/K/{reader,compute,writer,host}.cpp, plus DIR/plan.json and "
                 "DIR/report.txt (docs/codegen.md)");
  addPipelineFlags(*compileCmd, compileFlags.lower);
  addDeviceFlags(*compileCmd, device);
  addKnobFlags(*compileCmd, compileFlags.lower.knobs, device);
  compileCmd
      ->add_option("-o,--output", compileFlags.output, "Output directory (created if missing)")
      ->required();
  compileCmd->add_flag("--timings", compileFlags.timings,
                       "Keep the solvers' wall-clock times in plan.json and report.txt (without "
                       "it, compiling the same input twice gives byte-identical files)");
  compileCmd->add_flag("--emulator", compileFlags.emulator,
                       "Also write what building the output against the CPU emulator needs: "
                       "DIR/ttlplan_emu_registry.cpp and DIR/device.json (docs/emulator.md)");
  compileCmd->add_flag("--list-outputs", compileFlags.listOutputs,
                       "Print the paths compile would write, one per line, and write nothing; "
                       "parses and verifies only, so it is quick (for build systems at configure "
                       "time)");
  compileCmd->add_option("--depfile", compileFlags.depfile,
                         "Write the files the output depends on (the TTL file, --device-file, "
                         "--db) as a Makefile rule for the --stamp file (else DIR/plan.json)");
  compileCmd->add_option("--stamp", compileFlags.stamp,
                         "Touch this file after a successful compile: an output that is newer "
                         "than the inputs even when no generated file changed (build systems)");

  RunFlags runFlags;
  CLI::App* runCmd = app.add_subcommand(
      "run", "Plan, lower and compile a TTL kernel, build the C++ with g++ against the CPU "
             "emulator, run it on random inputs and compare every argument with an independent "
             "reference (exit 1 on a mismatch beyond the data type's tolerance or an emulator "
             "error; docs/emulator.md, docs/reference.md)");
  addPipelineFlags(*runCmd, runFlags.lower);
  addDeviceFlags(*runCmd, device);
  addKnobFlags(*runCmd, runFlags.lower.knobs, device);
  runCmd->add_option("--seed", runFlags.seed, "Seed of the random inputs (default 1)");
  runCmd
      ->add_option("--inputs", runFlags.inputsDir,
                   "Read each argument from DIR/<name>.npy (float32, the argument's shape) "
                   "instead of random data")
      ->check(CLI::ExistingDirectory);
  runCmd->add_option("--dump", runFlags.dumpDir,
                     "Write every argument after the run to DIR/<name>.npy (float32)");
  runCmd->add_option("--work-dir", runFlags.workDir,
                     "Generate, build and run in DIR and keep it (default: a temporary directory, "
                     "removed when the run ends, whatever its outcome)");
  runCmd->add_flag("--keep", runFlags.keep,
                   "Keep the temporary work directory (its path is printed)");
  // One record, so that --timeout gets the same number check as every table option (NaN too).
  static const ttlplan::OptionRecord kTimeout{
      "timeout",
      "Seconds the emulated program, and then the reference interpreter, may each run before "
      "they are stopped, 0 for no limit; the interpreter's report names what each thread was "
      "executing",
      ttlplan::OptionType::Real,
      0,
      1e6,
      {},
      "300"};
  addOption(*runCmd, kTimeout, runFlags.timeoutSeconds);
  runCmd->add_flag("--no-validate", runFlags.noValidate,
                   "Do not run the plan validators (to see what a bad plan does in the emulator)");
  runCmd->add_option("--force-cb-address", runFlags.forceCbAddress,
                     "Testing: move CB NAME to L1 ADDRESS in the plan (NAME=ADDRESS; repeatable)");

  CostFlags costFlags;
  CLI::App* costCmd = addCostCommand(app, costFlags, device);
  addDeviceFlags(*costCmd, device);

  TuneFlags tuneFlags;
  CLI::App* tuneCmd = addTuneCommand(app, tuneFlags, device);
  addDeviceFlags(*tuneCmd, device);
  // Every command that reads one TTL file takes --split-input-file (verify has its own).
  bool splitInputFile = false;
  for (CLI::App* command : {printCmd, planCmd, costCmd, lowerCmd, runCmd, compileCmd, tuneCmd})
    command->add_flag("--split-input-file", splitInputFile,
                      "Treat each `// -----` chunk of the file as a file of its own (as mlir-opt "
                      "does); their outputs are printed in order, separated by `// -----` "
                      "(compile writes chunk N under DIR/N)");

  DbFlags dbFlags;
  CLI::App* dbCmd = addDbCommand(app, dbFlags);

  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({}))
    names.push_back(command->get_name());
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
  // --split-input-file: each `// -----` chunk on its own (verify handles its own).
  auto chunked = [&](const std::string& input, std::optional<size_t>& chunk,
                     std::vector<std::string> outputs, const std::function<int()>& run) {
    return forEachChunk(input, splitInputFile, outputs, [&](std::optional<size_t> i) {
      chunk = i;
      return run();
    });
  };
  if (printCmd->parsed())
    return chunked(print.input, print.inputChunk, {print.output}, [&] { return runPrint(print); });
  if (verifyCmd->parsed()) return runVerify(verify, device);
  if (devicesCmd->parsed()) return runDevices(device, json);
  if (allocCmd->parsed()) return runAlloc(alloc);
  if (planCmd->parsed())
    return chunked(plan.input, plan.inputChunk, {plan.output, plan.jsonOutput, plan.htmlOutput},
                   [&] { return runPlan(plan, device); });
  if (lowerCmd->parsed())
    return chunked(lowerFlags.pipeline.input, lowerFlags.pipeline.inputChunk, {lowerFlags.output},
                   [&] { return runLower(lowerFlags, device); });
  if (runCmd->parsed())
    return chunked(runFlags.lower.input, runFlags.lower.inputChunk,
                   {runFlags.dumpDir, runFlags.workDir}, [&] { return runRun(runFlags, device); });
  if (compileCmd->parsed()) {
    const std::string dir = compileFlags.output;
    std::optional<size_t>& chunk = compileFlags.lower.inputChunk;
    return chunked(
        compileFlags.lower.input, chunk, {compileFlags.depfile, compileFlags.stamp}, [&] {
          if (chunk) compileFlags.output = fmt::format("{}/{}", dir, *chunk); // chunk N under DIR/N
          return runCompile(compileFlags, device);
        });
  }
  if (costCmd->parsed())
    return chunked(costFlags.input, costFlags.inputChunk,
                   {costFlags.jsonOutput, costFlags.htmlOutput},
                   [&] { return runCost(costFlags, device); });
  if (tuneCmd->parsed())
    return chunked(tuneFlags.input, tuneFlags.inputChunk,
                   {tuneFlags.jsonOutput, tuneFlags.htmlOutput, tuneFlags.emitDir},
                   [&] { return runTune(tuneFlags, device); });
  if (dbCmd->parsed()) return runDb(dbFlags);
  if (optionsCmd->parsed()) return runOptions(optionsMarkdown);
  return runOps(opsMarkdown);
}
