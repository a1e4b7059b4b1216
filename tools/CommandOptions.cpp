#include "tools/CommandOptions.h"

#include "ttlplan/lower/PassManager.h"

#include <stdexcept>
#include <string>

namespace ttlplan::tools {

namespace {

/// An off-by-default switch: `--NAME` (`-S` too with a short name).
OptionRecord flag(std::string_view name, std::string_view doc, std::string_view shortName = "") {
  return {name, doc, OptionType::Flag, 0, 0, {}, "false", shortName};
}

/// A file, a directory or a list: `--NAME VALUE` (`-S VALUE` too with a short name).
OptionRecord text(std::string_view name, std::string_view doc, std::string_view defaultValue = "",
                  std::string_view shortName = "") {
  return {name, doc, OptionType::Text, 0, 0, {}, defaultValue, shortName};
}

OptionRecord integer(std::string_view name, std::string_view doc, double min, double max,
                     std::string_view defaultValue) {
  return {name, doc, OptionType::Integer, min, max, {}, defaultValue};
}

constexpr std::string_view kJsonTable =
    "Write the result as JSON to this file ('-': stdout, instead of the table)";

const std::vector<OptionTable>& tables() {
  static const std::vector<OptionTable> kTables{
      {"every command",
       "Flags of `ttlplan` itself (before or after the command) and of every command that reads "
       "a TTL file.",
       {
           flag("quiet",
                "Errors and warnings only: no progress lines and no notes on standard error", "q"),
           flag("verbose", "Also say how long each slow step took", "v"),
           flag("split-input-file",
                "Treat each `// -----` chunk of the file as a file of its own (as mlir-opt "
                "does); their outputs are printed in order, separated by `// -----` (compile "
                "writes chunk N under DIR/N)"),
       }},
      {"python kernels",
       "Flags of `ttlplan` itself (before or after the command) for a tt-lang Python kernel "
       "(KERNEL.py, docs/python.md); the kernel's sidecar KERNEL.ttlplan.toml may hold them too.",
       {
           text("args", "Shapes (in elements) and dtypes of the operation's tensor arguments: "
                        "NAME=ROWSxCOLS[:DTYPE],... (dtype bf16 unless given; repeatable); an "
                        "argument left out is taken from the file's own call of the operation"),
           text("knob",
                "Make a module-level integer constant or a keyword default of the operation a "
                "knob: NAME=DOMAIN, the domain as 1,2,4,8 or as ttl.param writes it (range(1, 9), "
                "divisors(64)); repeatable"),
           text("buffer-factor",
                "auto: leave every dataflow buffer's block_count to the planner (`?`); keep: "
                "the kernel's own"),
       }},
      {"print command",
       "`ttlplan print`: read a TTL file and print it back.",
       {
           flag("generic",
                "Print generic MLIR form (accepted by mlir-opt-16 --allow-unregistered-dialect)"),
           flag("no-aliases",
                "Spell every type in full instead of using the file's !alias / #alias names"),
           text("output", "Write to this file instead of stdout", "", "o"),
       }},
      {"verify command",
       "`ttlplan verify`: parse and verify a TTL file.",
       {
           flag("verify-diagnostics", "Test mode: succeed only if the diagnostics match the file's "
                                      "`// expected-error@+N {{text}}` annotations one to one"),
       }},
      {"devices command",
       "`ttlplan devices`: the built-in device descriptions.",
       {
           flag("json", "Print the full descriptions as JSON"),
       }},
      {"ops command",
       "`ttlplan ops`: the op registry.",
       {
           flag("markdown", "Print the reference tables of docs/language.md (ops, attributes, "
                            "data types) instead"),
       }},
      {"options command",
       "`ttlplan options`: every option table.",
       {
           flag("markdown", "As Markdown (docs/options.md is this output)"),
       }},
      {"alloc command",
       "`ttlplan alloc`: place the buffers of a CSV (docs/alloc.md); it also takes the planner's "
       "solver, time-limit, node-limit and exact rules.",
       {
           integer("capacity", "Bytes available; 0 = unbounded, just minimise the peak", 0, 1e15,
                   "0"),
           text("output", "Write the CSV here instead of stdout", "", "o"),
       }},
      {"plan command",
       "`ttlplan plan`: the report's other forms.",
       {
           text("json", "Also write the report as JSON (schema_version 1) to this file ('-': "
                        "standard output, and the report goes to standard error)"),
           text("html", "Also write the report as one self-contained HTML page with pictures (L1 "
                        "map, core grid, multicast, DST rounds, cost breakdown; docs/reports.md)"),
           text("output", "Write the planned IR (ttl.bind_cb attributes, work ranges) to this file",
                "", "o"),
       }},
      {"pipeline",
       "The lowering pipeline of `lower`, `compile` and `run` (docs/lowering.md).",
       {
           text("pipeline",
                "Passes to run, comma-separated, each optionally with {opt=value,...} (`ttlplan "
                "lower --help` lists the passes)",
                lower::kDefaultPipeline),
           flag("print-ir-after-all", "Print the IR to stderr after every pass"),
           text("print-ir-after", "Print the IR to stderr after the named pass (repeatable)"),
           flag("generic", "Print IR (lower's output and every --print-ir-after dump) in generic "
                           "MLIR form, which mlir-opt-16 --allow-unregistered-dialect reads"),
           flag("time-passes", "Print each pass's wall time and statistics to stderr"),
       }},
      {"lower command",
       "`ttlplan lower`: where the lowered IR goes.",
       {
           text("output", "Write the IR here instead of stdout", "", "o"),
       }},
      {"compile command",
       "`ttlplan compile`: the generated files (docs/codegen.md).",
       {
           text("output", "Output directory (created if missing; required)", "", "o"),
           flag("timings",
                "Keep the solvers' wall-clock times in plan.json and report.txt (without it, "
                "compiling the same input twice gives byte-identical files)"),
           {"target",
            "What the output is for. metal: TT-Metalium C++ at the pinned tt-metal, a "
            "CMakeLists.txt for a real build (docs/codegen.md). emulator: the same C++ plus what "
            "building it against the CPU emulator needs (the same as --emulator). pto: pto-isa "
            "C++ for an Ascend AI core, DIR/K.cpp per kernel K (docs/pto.md)",
            OptionType::Choice,
            0,
            0,
            {"metal", "emulator", "pto"},
            "metal"},
           flag("emulator", "Also write what building the output against the CPU emulator needs: "
                            "DIR/ttlplan_emu_registry.cpp and DIR/device.json (docs/emulator.md)"),
           flag("list-outputs",
                "Print the paths compile would write, one per line, and write nothing; parses "
                "and verifies only, so it is quick (for build systems at configure time)"),
           text("depfile",
                "Write the files the output depends on (the TTL file, --device-file, --db) as a "
                "Makefile rule for the --stamp file (else DIR/plan.json)"),
           text("stamp",
                "Touch this file after a successful compile: an output that is newer than the "
                "inputs even when no generated file changed (build systems)"),
       }},
      {"run command",
       "`ttlplan run`: the emulator run and its inputs (docs/emulator.md).",
       {
           integer("seed", "Seed of the random inputs", 0, 1e15, "1"),
           text("inputs", "Read each argument from DIR/<name>.npy (float32, the argument's shape) "
                          "instead of random data"),
           text("dump", "Write every argument after the run to DIR/<name>.npy (float32)"),
           text("kernel", "The kernel to run, by name (as `plan` prints it after `kernel @`), of "
                          "a file that has several"),
           text("work-dir", "Generate, build and run in DIR and keep it (default: a temporary "
                            "directory, removed when the run ends, whatever its outcome)"),
           flag("keep", "Keep the temporary work directory (its path is printed)"),
           {"timeout",
            "Seconds the emulated program, and then the reference interpreter, may each run "
            "before they are stopped, 0 for no limit; the interpreter's report names what each "
            "thread was executing",
            OptionType::Real,
            0,
            1e6,
            {},
            "300"},
           flag("no-validate",
                "Do not run the plan validators (to see what a bad plan does in the emulator)"),
           text("force-cb-address",
                "Testing: move CB NAME to L1 ADDRESS in the plan (NAME=ADDRESS; repeatable)"),
       }},
      {"cost command",
       "`ttlplan cost`: the report's other forms.",
       {
           text("json",
                "Write the report as JSON to this file ('-': stdout, instead of the table)"),
           text("html", "Also write one self-contained HTML page: the plan's pictures and the "
                        "cost breakdown (docs/reports.md)"),
       }},
      {"tune command",
       "`ttlplan tune`: what is done with the result besides the table (the search's own options "
       "are the tune table's).",
       {
           text("json", kJsonTable),
           text("html", "Write one self-contained HTML page: every evaluated point (time against "
                        "L1 bytes, the Pareto front, the pick, ttnn's default), the top K and the "
                        "pick's plan with its pictures (docs/reports.md)"),
           text("emit", "Compile the pick into DIR (like `compile`): the fastest point, or "
                        "tt-mlir's rule's config for a matmul template when the fastest is "
                        "predicted faster by less than the cost model's ranking uncertainty "
                        "(docs/tuning.md, \"The pick\")"),
           flag("verify-best", "Run the pick on the emulator against the reference (like `run`)"),
           flag("quiet", "No progress line"),
       }},
      {"db show/best command",
       "`ttlplan db show` and `ttlplan db best`: read a tuning db.",
       {
           text("json", kJsonTable),
       }},
      {"db merge command",
       "`ttlplan db merge`: one db from the shards' dbs.",
       {
           text("output", "The merged db (may be one of the inputs with --overwrite; required)", "",
                "o"),
           flag("overwrite", "Replace -o when it exists"),
       }},
      {"db rerank command",
       "`ttlplan db rerank`: re-cost a db's records with today's cost model; it also takes the "
       "target's device-file and the planner's node-limit (as given to `tune`).",
       {
           text("kernel", "The TTL file the records were tuned from (required)"),
           text("output", "Write the new db here (default: replace FILE, through a temporary file)",
                "", "o"),
           text("device", "Device the records were tuned for (default: the db's)"),
           text("grid", "The --grid YxX the records were tuned with"),
       }},
  };
  return kTables;
}

} // namespace

const OptionTable& commandOptions(std::string_view command) {
  for (const OptionTable& table : tables()) {
    if (table.component == command || table.component == std::string(command) + " command")
      return table;
  }
  throw std::logic_error("no option table for command " + std::string(command));
}

std::vector<const OptionTable*> commandOptionTables() {
  std::vector<const OptionTable*> result;
  for (const OptionTable& table : tables())
    result.push_back(&table);
  return result;
}

} // namespace ttlplan::tools
