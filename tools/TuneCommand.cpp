// `ttlplan tune`: the autotuner's command line (search/Tuner.h): the space, a progress line, the
// rejections by reason, the top K beside ttnn's default config and tt-mlir's rule, the pick, JSON,
// records, --emit.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/HtmlReport.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "tools/Terminal.h"
#include "ttlplan/driver/Documents.h"
#include "ttlplan/driver/PythonFrontend.h"
#include "ttlplan/driver/RecordJson.h"
#include "ttlplan/planner/Options.h"
#include "ttlplan/report/Html.h"
#include "ttlplan/search/TuneOptions.h"
#include "ttlplan/search/Tuner.h"
#include "ttlplan/support/JsonText.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace ttlplan::tools {

using driver::pointText;
using driver::recordTableHeader;
using driver::recordTableRow;

namespace {

struct TuneFlags : driver::TuneRequest {
  std::string jsonOutput;  ///< --json OUT ("-": stdout, instead of the table)
  std::string htmlOutput;  ///< --html OUT: the page with every point and the pick's plan
  std::string emitDir;     ///< --emit DIR
  bool verifyBest = false; ///< --verify-best
  bool quiet = false;      ///< --quiet
};

using nlohmann::ordered_json;

using Baseline = driver::TuneBaseline;

std::string describeSpace(const search::Space& space) {
  std::string dims;
  for (const search::Dimension& d : space.dimensions())
    dims += fmt::format("{}{} ({})", dims.empty() ? "" : ", ", d.name, d.size());
  return fmt::format("space: {} points{}{}\n", space.size(), dims.empty() ? "" : " over ", dims);
}

std::string formatTable(const driver::Tuned& tuned) {
  const search::TuneResult& result = tuned.result;
  const std::optional<Baseline>& baseline = tuned.baseline;
  std::string out = fmt::format("evaluated {} points ({} from the db), {} fit; stopped: {}\n",
                                result.evaluated, result.reused, result.feasible, result.stop);
  for (const auto& [reason, count] : result.rejected)
    out += fmt::format("  rejected by {:<16} {}\n", reason, count);
  out += fmt::format("{:.0f} evaluations per second ({:.2f} s; planner cache {} hits, {} "
                     "misses)\n",
                     result.seconds > 0 ? double(result.evaluated) / result.seconds : 0.0,
                     result.seconds, result.cache.hits, result.cache.misses);
  if (result.top.empty()) return out + "no point fits\n";
  out += recordTableHeader();
  auto row = [&](std::string rank, const search::Record& r) { out += recordTableRow(rank, r); };
  for (size_t i = 0; i < result.top.size(); ++i)
    row(std::to_string(i + 1), result.top[i]);
  if (baseline) {
    row("ttnn", baseline->record);
    out += fmt::format("predicted speedup over ttnn's default config: {:.2f}x\n",
                       *baseline->record.predictedNs / *result.top.front().predictedNs);
  }
  if (tuned.rule && tuned.pick) {
    row("rule", tuned.rule->record);
    out += fmt::format("predicted speedup over tt-mlir's rule: {:.2f}x\n",
                       tuned.pick->predictedGain + 1);
    out += fmt::format("pick: {} ({} {:.1f} % faster than tt-mlir's rule, {} the cost model's "
                       "ranking uncertainty of {:.1f} %; docs/tuning.md, \"The pick\")\n",
                       tuned.pick->keptBaseline ? "rule" : "1",
                       tuned.pick->keptBaseline ? "the fastest point is predicted only"
                                                : "the fastest point is predicted",
                       100 * tuned.pick->predictedGain,
                       tuned.pick->keptBaseline ? "within" : "beyond", 100 * tuned.pick->margin);
  }
  return out;
}

/// The progress reporter: a live line on a terminal, a line every few seconds otherwise.
std::function<void(const search::TuneProgress&)> progressLine(bool quiet) {
  if (quiet) return nullptr;
  bool terminal = isatty(fileno(stderr)) != 0;
  auto last = std::make_shared<double>(-1e9);
  return [terminal, last](const search::TuneProgress& p) {
    if (!terminal && p.seconds - *last < 5 && p.done < p.planned) return;
    *last = p.seconds;
    double rate = p.seconds > 0 ? double(p.done) / p.seconds : 0;
    double eta = rate > 0 && p.planned > p.done ? double(p.planned - p.done) / rate : 0;
    std::string best = p.best && p.best->predictedNs
                           ? fmt::format("{:.1f} us", *p.best->predictedNs / 1000.0)
                           : "none yet";
    std::cerr << fmt::format("{}tune: {}/{} points, {} fit, {:.0f}/s, best {}, ETA {:.0f} s{}",
                             terminal ? "\r" : "", p.done, p.planned, p.feasible, rate, best, eta,
                             terminal ? (p.done >= p.planned ? "\n" : "") : "\n");
  };
}

/// --emit and --verify-best: the pick lowered once, from the module the search read and with the
/// plans it made (driver::pickPlanOptions), then written as `compile` writes it and run on the
/// emulator as `run` runs it.
int emitBest(const TuneFlags& flags, const ir::Device& device, driver::Tuned& tuned) {
  driver::Result<lower::PlanOptions> options = driver::pickPlanOptions(tuned, flags.maxBlockCount);
  if (!options) return report(options.error());
  PipelineFlags pipeline;
  pipeline.input = flags.input;
  pipeline.inputChunk = flags.inputChunk;
  pipeline.maxBlockCount = flags.maxBlockCount;
  std::optional<driver::Source> asWritten;
  if (flags.verifyBest) asWritten = driver::copySource(tuned.source);
  if (!flags.emitDir.empty() && driver::isPythonKernel(flags.input) && tuned.pick) {
    // The author applies the tuned values to the Python by hand: which line, which value.
    std::string path = (std::filesystem::path(flags.emitDir) / "tuned_values.txt").string();
    std::error_code ec;
    std::filesystem::create_directories(flags.emitDir, ec);
    const search::Record& pick = tuned.pick->record;
    if (int rc = writeOutput(path, driver::tunedValuesReport(*tuned.source.module, pick.point,
                                                             flags.input, pick.predictedNs));
        rc != kSuccess)
      return rc;
    std::cout << fmt::format("wrote {} (the values to put back in {})\n", path, flags.input);
  }
  auto start = std::chrono::steady_clock::now();
  std::optional<Progress> progress(std::in_place, "tune: lowering the pick");
  driver::Result<driver::Lowered> lowered = driver::lowerSource(
      std::move(tuned.source), pipeline, device, logToStderr, std::move(*options));
  progress.reset();
  if (!lowered) return report(lowered.error());
  double lowerSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!flags.emitDir.empty()) {
    CompileFlags compile;
    compile.lower = pipeline;
    compile.output = flags.emitDir;
    driver::Result<driver::Compiled> compiled = driver::compileLowered(*lowered, compile, device);
    if (!compiled) return report(compiled.error());
    printCompiled(*compiled, compile.output);
  }
  if (!flags.verifyBest) return kSuccess;
  RunFlags run;
  run.lower = pipeline;
  run.onStep = progressSteps(progress, "run");
  driver::Result<driver::RunOutcome> outcome =
      driver::runLowered(*lowered, std::move(*asWritten), run, device, lowerSeconds);
  progress.reset();
  if (!outcome) return report(outcome.error());
  printRunOutcome(run, device.name, *outcome);
  return outcome->passed ? kSuccess : kInvalidInput;
}

/// --html: the page of every point, with the pick's plan (the search's, not planned again) and
/// cost for its pictures.
int writeTunePage(const TuneFlags& flags, const ir::Device& device, const driver::Tuned& tuned,
                  const ordered_json& resultObject) {
  // The page reads nlohmann::json; the tune JSON is ordered_json (key order for the file).
  nlohmann::json tune = nlohmann::json::parse(jsonText(resultObject));
  nlohmann::json points = nlohmann::json::array();
  for (const search::PointSummary& p : tuned.result.points)
    points.push_back(
        {{"predicted_ns", p.predictedNs}, {"l1_bytes", p.l1Bytes}, {"bound", p.bound}});
  tune["points"] = std::move(points);
  tune["pareto"] = search::paretoFront(tuned.result.points);
  if (!tuned.pick) {
    logToStderr("warning: --html: no point fits, so the page has no plan\n");
    return writeOutput(flags.htmlOutput,
                       report::renderHtml({"tune", nlohmann::json::object(), nullptr, tune,
                                           device.grid.compute.rows, device.grid.compute.columns}));
  }
  driver::Result<lower::PlanOptions> options = driver::pickPlanOptions(tuned, flags.maxBlockCount);
  if (!options) return report(options.error());
  driver::Result<driver::Planned> planned =
      driver::planSource(driver::copySource(tuned.source), *options, device);
  if (!planned) return report(planned.error());
  if (!planned->cost) return writeHtmlReport(flags.htmlOutput, "tune", planned->plan, device);
  return writeHtmlReport(flags.htmlOutput, "tune", *planned->cost, device, tune);
}

/// `tune --target pto`: the space, progress, rejections, the top K by predicted time on the
/// Ascend core (search::PtoPointEvaluator), the pick; --json; --emit compiles the pick.
int runPtoTune(const TuneFlags& flags, const DeviceFlags& deviceFlags) {
  driver::Result<ir::pto::Device> device = driver::loadPtoDevice(deviceFlags);
  if (!device) return report(device.error());
  if (!flags.htmlOutput.empty() || flags.verifyBest)
    return report(driver::Error::usage(fmt::format(
        "{}: under --target pto `tune` prints the table, --json and --emit so far; check the pick "
        "with `ttlplan run --target pto --bind ...`",
        flags.htmlOutput.empty() ? "--verify-best" : "--html")));
  const bool jsonToStdout = flags.jsonOutput == "-";
  const bool quiet = flags.quiet || terminal().verbosity == Verbosity::Quiet;
  auto printSpace = [&](const search::Space& space) {
    if (jsonToStdout && terminal().verbosity == Verbosity::Quiet) return;
    (jsonToStdout ? std::cerr : std::cout) << describeSpace(space) << std::flush;
  };
  driver::Result<driver::PtoTuned> tuned =
      driver::tunePtoFile(flags, *device, printSpace, progressLine(quiet));
  if (!tuned) return report(tuned.error());
  const search::TuneResult& result = tuned->result;
  ordered_json top = ordered_json::array();
  for (const search::Record& r : result.top)
    top.push_back(driver::recordJson(r, tuned->fixed));
  ordered_json json = {{"schema_version", 1},          {"target", "pto"},
                       {"file", flags.input},          {"device", device->name},
                       {"space", result.space.size()}, {"evaluated", result.evaluated},
                       {"feasible", result.feasible},  {"rejected", result.rejected},
                       {"stop", result.stop},          {"top", top}};
  std::string out = fmt::format("evaluated {} points, {} fit; stopped: {}\n", result.evaluated,
                                result.feasible, result.stop);
  for (const auto& [reason, count] : result.rejected)
    out += fmt::format("  rejected by {:<16} {}\n", reason, count);
  if (result.top.empty()) {
    out += "no point fits\n";
  } else {
    out += fmt::format("\n{:>4}  {:>12}  {:<10}  {:>12}  {:>5}  {}\n", "rank", "predicted", "bound",
                       "on-chip B", "cores", "point");
    for (size_t i = 0; i < result.top.size(); ++i) {
      const search::Record& r = result.top[i];
      out += fmt::format("{:>4}  {:>9.3f} us  {:<10}  {:>12}  {:>5}  {}\n", i + 1,
                         r.predictedNs.value_or(0) / 1000.0, r.bound,
                         planner::l1::withThousands(r.l1Bytes), r.cores, pointText(r));
    }
    out += fmt::format("pick: 1 ({}); `ttlplan run --target pto --bind ...` runs it on the "
                       "emulator\n",
                       pointText(result.top.front()));
  }
  if (jsonToStdout) {
    if (int rc = writeOutput("", jsonText(json, 2) + "\n"); rc != kSuccess) return rc;
  } else {
    std::cout << out;
    if (!flags.jsonOutput.empty())
      if (int rc = writeOutput(flags.jsonOutput, jsonText(json, 2) + "\n"); rc != kSuccess)
        return rc;
  }
  if (flags.emitDir.empty()) return kSuccess;
  if (result.top.empty()) return kInvalidInput;
  driver::CompileRequest compile;
  compile.lower.input = flags.input;
  compile.lower.inputChunk = flags.inputChunk;
  compile.lower.maxBlockCount = flags.maxBlockCount;
  ir::Binding pick = tuned->fixed;
  for (const auto& [name, value] : result.top.front().point)
    pick[name] = value;
  compile.lower.knobs.bind = ir::str(pick);
  compile.output = flags.emitDir;
  driver::Result<driver::Compiled> compiled = driver::compilePtoFile(compile, *device, logToStderr);
  if (!compiled) return report(compiled.error());
  for (size_t i = 0; i < compiled->files.size(); ++i)
    logToStderr(fmt::format("wrote {}/{}\n", flags.emitDir, compiled->files[i].path));
  return kSuccess;
}

int runTune(const TuneFlags& flags, const DeviceFlags& deviceFlags) {
  if (deviceFlags.target == driver::kPtoTarget) return runPtoTune(flags, deviceFlags);
  int exitCode = kSuccess;
  std::optional<ir::Device> device = resolveDevice(deviceFlags, exitCode);
  if (!device) return exitCode;
  bool jsonToStdout = flags.jsonOutput == "-";
  bool quiet = flags.quiet || terminal().verbosity == Verbosity::Quiet;
  auto printSpace = [&](const search::Space& space) {
    // With --json -, the space is a note on stderr, which -q drops (tune's own --quiet drops
    // the progress line only).
    if (jsonToStdout && terminal().verbosity == Verbosity::Quiet) return;
    (jsonToStdout ? std::cerr : std::cout) << describeSpace(space) << std::flush;
    // An exhaustive search with no bound over a space this size runs for hours or days; say so
    // before it starts rather than leave it to the progress line's ETA.
    constexpr uint64_t kLargeSpace = 100'000'000;
    if (flags.strategy == "exhaustive" && flags.budgetEvals == 0 && flags.timeLimitSeconds == 0 &&
        space.size() > kLargeSpace && terminal().verbosity != Verbosity::Quiet)
      std::cerr << fmt::format("note: an exhaustive search of all {} points, with no "
                               "--budget-evals or --time-limit; bind knobs (--bind), or use "
                               "--strategy evolve --budget-evals N\n",
                               space.size());
  };
  driver::TuneRequest request = flags;
  request.keepPoints = !flags.htmlOutput.empty();
  request.keepPickPlans = !flags.htmlOutput.empty() || !flags.emitDir.empty() || flags.verifyBest;
  driver::Result<driver::Tuned> tuned =
      driver::tuneFile(request, *device, logToStderr, printSpace, progressLine(quiet));
  if (!tuned) return report(tuned.error());
  ordered_json resultObject = driver::tuneJson(flags, *device, *tuned);
  if (!flags.htmlOutput.empty())
    if (int rc = writeTunePage(flags, *device, *tuned, resultObject); rc != kSuccess) return rc;
  std::string json = jsonText(resultObject, 2) + "\n";
  if (jsonToStdout) {
    if (int rc = writeOutput("", json); rc != kSuccess) return rc;
  } else {
    std::cout << formatTable(*tuned);
    if (!flags.jsonOutput.empty())
      if (int rc = writeOutput(flags.jsonOutput, json); rc != kSuccess) return rc;
  }
  if (!tuned->pick) return (flags.emitDir.empty() && !flags.verifyBest) ? kSuccess : kInvalidInput;
  if (flags.emitDir.empty() && !flags.verifyBest) return kSuccess;
  return emitBest(flags, *device, *tuned);
}

} // namespace

Runner addTuneCommand(CLI::App& app, SharedFlags& shared) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Search the unbound knobs of a TTL template (and the planner's `?` block counts) "
              "for the fastest predicted kernel: every point is checked against the "
              "ttl.requires, planned and costed; prints the space, the rejections by reason and "
              "the top K beside ttnn's default config and tt-mlir's rule, and the pick "
              "(docs/tuning.md)");
  cmd->add_option("file", flags->input, "TTL file")->required()->check(CLI::ExistingFile);
  addKnobFlags(*cmd, flags->knobs, shared.device, KnobUse::Tune);
  const OptionTable& tune = search::tuneOptions();
  addOption(*cmd, tune.at("strategy"), flags->strategy);
  addOption(*cmd, tune.at("budget-evals"), flags->budgetEvals);
  addOption(*cmd, tune.at("time-limit"), flags->timeLimitSeconds);
  addOption(*cmd, tune.at("threads"), flags->threads);
  addOption(*cmd, tune.at("seed"), flags->seed);
  addOption(*cmd, tune.at("db"), flags->db);
  addOption(*cmd, tune.at("resume"), flags->resume);
  addOption(*cmd, tune.at("shard"), flags->shard);
  addOption(*cmd, tune.at("top"), flags->top);
  const OptionTable& options = commandOptions("tune");
  addOption(*cmd, options.at("json"), flags->jsonOutput);
  addOption(*cmd, options.at("html"), flags->htmlOutput);
  addOption(*cmd, options.at("emit"), flags->emitDir);
  addOption(*cmd, options.at("verify-best"), flags->verifyBest);
  addOption(*cmd, options.at("quiet"), flags->quiet);
  addOption(*cmd, planner::plannerOptions().at("max-block-count"), flags->maxBlockCount);
  addOption(*cmd, planner::plannerOptions().at("node-limit"), flags->nodeLimit);

  addDeviceFlags(*cmd, shared.device);
  addSplitInputFileFlag(*cmd, shared);
  return [flags, &shared] {
    return runChunked(shared, flags->input, flags->inputChunk,
                      {flags->jsonOutput, flags->htmlOutput, flags->emitDir},
                      [&] { return runTune(*flags, shared.device); });
  };
}

} // namespace ttlplan::tools
