// `ttlplan db`: the tuning records of `ttlplan tune --db` (search/TuningDb.h). `show` summarises a
// file, `best` prints its best usable record like `tune --json`, `merge` joins search shards, and
// `rerank` re-costs records written under an older planner or cost model.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "ttlplan/driver/Documents.h"
#include "ttlplan/driver/Options.h"
#include "ttlplan/driver/RecordJson.h"
#include "ttlplan/planner/Options.h"
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/search/Tuner.h"
#include "ttlplan/search/TuningDb.h"
#include "ttlplan/search/cost/Model.h"
#include "ttlplan/support/JsonText.h"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ttlplan::tools {

using driver::pointText;
using driver::recordTableHeader;
using driver::recordTableRow;

namespace {

/// The flags of `db show|best|merge|rerank`; `action` says which of them was given.
struct DbFlags {
  std::string action;              ///< "show", "best", "merge" or "rerank" (set by the parser)
  std::string file;                ///< FILE (show, best, rerank)
  std::vector<std::string> inputs; ///< merge: A B ...
  std::string output;              ///< -o: merge's output (required), rerank's (default FILE)
  bool overwrite = false;          ///< merge --overwrite: replace an existing -o
  std::string jsonOutput;          ///< show, best: --json OUT ("-": stdout, instead of the table)
  std::string kernel;              ///< rerank --kernel TTL
  DeviceFlags device{"", "", "",
                     std::string(driver::kTenstorrentTarget)}; ///< rerank --device, --device-file,
                                                               ///< --grid ("": the db's device)
  int64_t nodeLimit = 0; ///< rerank --node-limit per planner sub-problem
};

using nlohmann::ordered_json;

void printWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings)
    std::cerr << "ttlplan: warning: " << w << "\n";
}

int fail(const std::string& message) {
  std::cerr << driver::errorLine(message);
  return kInvalidInput;
}

/// FILE read (its warnings printed); nullopt (error printed) when it is missing or not a db.
std::optional<search::DbFile> loadDb(const std::string& path) {
  driver::Result<search::DbFile> file = driver::readDb(path);
  if (!file) {
    report(file.error());
    return std::nullopt;
  }
  printWarnings(file->warnings);
  return std::move(*file);
}

void warnIfOld(const std::string& path, const search::DbHeader& header) {
  if (std::string warning = driver::staleDbWarning(path, header); !warning.empty())
    printWarnings({warning});
}

std::string rankedTable(const std::vector<search::Record>& top) {
  if (top.empty()) return "no usable record\n";
  std::string out = recordTableHeader();
  for (size_t i = 0; i < top.size(); ++i)
    out += recordTableRow(std::to_string(i + 1), top[i]);
  return out;
}

std::string showText(const std::string& path, const search::DbFile& file) {
  const search::DbHeader& h = file.header;
  driver::DbCounts c = driver::countRecords(file.records);
  std::string out = fmt::format("tuning db: {}\n", path);
  out += fmt::format("  kernel:   {} (kernel_hash {})\n", h.kernel, h.kernelHash);
  out += fmt::format("  device:   {} (device_hash {})\n", h.device, h.deviceHash);
  out += fmt::format("  bound:    {}\n", h.bound.empty() ? "(none)" : ir::str(h.bound));
  out += fmt::format("  versions: planner {}, cost_model {}, calibration {} ({})\n", h.planner,
                     h.costModel, h.calibration, h.tool);
  out += fmt::format("records: {} ({} ok, {} rejected, {} stale)\n", c.records, c.ok,
                     c.rejectedTotal(), c.stale);
  for (const auto& [reason, count] : c.rejected)
    out += fmt::format("  rejected by {:<16} {}\n", reason, count);
  return out + rankedTable(search::top(file.records, driver::kDbShowTop));
}

/// The table on stdout, or the JSON on stdout ("-") or into a file beside the table.
int emit(const std::string& table, const ordered_json& json, const std::string& jsonOutput) {
  std::string text = jsonText(json, 2) + "\n";
  if (jsonOutput == "-") return writeOutput("", text);
  std::cout << table << std::flush;
  return jsonOutput.empty() ? kSuccess : writeOutput(jsonOutput, text);
}

int runShow(const DbFlags& flags) {
  std::optional<search::DbFile> file = loadDb(flags.file);
  if (!file) return kInvalidInput;
  warnIfOld(flags.file, file->header);
  return emit(showText(flags.file, *file), driver::dbShowJson(flags.file, *file), flags.jsonOutput);
}

int runBest(const DbFlags& flags) {
  std::optional<search::DbFile> file = loadDb(flags.file);
  if (!file) return kInvalidInput;
  warnIfOld(flags.file, file->header);
  const search::Record* best = search::best(file->records);
  if (!best) {
    driver::DbCounts c = driver::countRecords(file->records);
    return fail(fmt::format("'{}' has no usable record ({} records: {} rejected, {} stale{})",
                            flags.file, c.records, c.rejectedTotal(), c.stale,
                            c.stale ? "; `ttlplan db rerank` re-costs stale ones" : ""));
  }
  return emit(recordTableHeader() + recordTableRow("best", *best),
              driver::dbBestJson(*best, file->header.bound), flags.jsonOutput);
}

int runMerge(const DbFlags& flags) {
  driver::Result<search::DbFile> merged =
      driver::mergeDbs(flags.inputs, flags.output, flags.overwrite);
  if (!merged) return report(merged.error());
  printWarnings(merged->warnings);
  driver::DbCounts c = driver::countRecords(merged->records);
  std::cout << fmt::format("merged {} files into {}: {} records, one per point ({} ok, {} "
                           "rejected, {} stale)\n",
                           flags.inputs.size(), flags.output, c.records, c.ok, c.rejectedTotal(),
                           c.stale);
  return kSuccess;
}

// ----- rerank -----------------------------------------------------------------------------------

std::string nsText(const search::Record* r) {
  return r ? fmt::format("{:.1f} us", r->predictedNs.value_or(0) / 1000.0) : "none";
}

/// "best: POINT, 7.1 us under planner-1 / cost-0 -> 6.9 us now", or both points when it moved.
std::string bestChange(const search::DbFile& before, const std::vector<search::Record>& after) {
  const search::Record* old = search::best(before.records);
  const search::Record* now = search::best(after);
  std::string under = fmt::format("under {} / {}", before.header.planner, before.header.costModel);
  if (old && now && old->point == now->point)
    return fmt::format("best unchanged: {}, {} {} -> {} now\n", pointText(*now), nsText(old), under,
                       nsText(now));
  return fmt::format("best changed: {} ({} {}) -> {} ({} now)\n", old ? pointText(*old) : "none",
                     nsText(old), under, now ? pointText(*now) : "none", nsText(now));
}

std::string rerankSummary(const search::DbFile& before, const driver::Reranked& after,
                          const search::DbHeader& current, const std::string& output) {
  std::string out = fmt::format(
      "re-costed {} points from their stored plans and planned {} again under {} / {}; kept {} "
      "current records; dropped {} stale rejected and {} stale duplicate records; wrote {} "
      "records to {}\n",
      after.recosted, after.replanned, current.planner, current.costModel, after.kept,
      after.droppedRejected, after.droppedDuplicates, after.records.size(), output);
  return out + bestChange(before, after.records);
}

int runRerank(const DbFlags& flags) {
  driver::RerankRequest request{flags.file, flags.kernel, flags.device, flags.output,
                                flags.nodeLimit};
  driver::Result<driver::Reranked> reranked = driver::rerankDb(request, logToStderr);
  if (!reranked) return report(reranked.error());
  std::cout << rerankSummary(reranked->before, *reranked, reranked->current, reranked->output);
  return kSuccess;
}

// ----- Flags ------------------------------------------------------------------------------------

CLI::App* addSub(CLI::App& db, DbFlags& flags, const std::string& name,
                 const std::string& description) {
  CLI::App* cmd = db.add_subcommand(name, description);
  cmd->callback([&flags, name] { flags.action = name; });
  return cmd;
}

void addJsonFlag(CLI::App& cmd, DbFlags& flags) {
  addOption(cmd, commandOptions("db show/best").at("json"), flags.jsonOutput);
}

void addShowAndBest(CLI::App& db, DbFlags& flags) {
  CLI::App* show = addSub(
      db, flags, "show",
      "Print a tuning db's header (kernel, device, bound knobs, versions), its records by status "
      "(ok, rejected by reason, stale) and the best 10; skipped lines are warned about");
  show->add_option("file", flags.file, "Tuning db (JSON lines)")->required();
  addJsonFlag(*show, flags);
  CLI::App* best = addSub(db, flags, "best",
                          "Print the best usable record of a tuning db (with --json, the same "
                          "`best` object as `ttlplan tune --json`); exit 1 when there is none");
  best->add_option("file", flags.file, "Tuning db (JSON lines)")->required();
  addJsonFlag(*best, flags);
}

void addMerge(CLI::App& db, DbFlags& flags) {
  CLI::App* merge = addSub(
      db, flags, "merge",
      "Merge tuning dbs of one kernel, bound and device (e.g. the --shard I/N runs of a search) "
      "into one: one record per point, the same whatever the order of the inputs");
  merge->add_option("files", flags.inputs, "Tuning dbs")->required();
  const OptionTable& options = commandOptions("db merge");
  addOption(*merge, options.at("output"), flags.output)->required();
  addOption(*merge, options.at("overwrite"), flags.overwrite);
}

void addRerank(CLI::App& db, DbFlags& flags) {
  CLI::App* rerank = addSub(
      db, flags, "rerank",
      "Re-cost the records of a tuning db written under an older cost model or calibration: "
      "each stale feasible point is costed by this ttlplan from the plans its record keeps, "
      "without planning again (records of another planner version, or written before records "
      "kept plans, are planned again); stale rejected records are dropped. Writes a db whose "
      "header has the current versions");
  rerank->add_option("file", flags.file, "Tuning db (JSON lines)")->required();
  const OptionTable& options = commandOptions("db rerank");
  addOption(*rerank, options.at("kernel"), flags.kernel)->required();
  addOption(*rerank, options.at("output"), flags.output);
  addOption(*rerank, options.at("device"), flags.device.name);
  addOption(*rerank, driver::targetOptions().at("device-file"), flags.device.file)
      ->check(CLI::ExistingFile);
  addOption(*rerank, options.at("grid"), flags.device.grid);
  addOption(*rerank, planner::plannerOptions().at("node-limit"), flags.nodeLimit);
}

int runDb(const DbFlags& flags) {
  if (flags.action == "show") return runShow(flags);
  if (flags.action == "best") return runBest(flags);
  if (flags.action == "merge") return runMerge(flags);
  return runRerank(flags);
}

} // namespace

Runner addDbCommand(CLI::App& app, SharedFlags&) {
  auto flags = std::make_shared<DbFlags>();
  CLI::App* db = app.add_subcommand(
      "db", "Inspect, merge and re-cost the tuning records of `ttlplan tune --db` "
            "(docs/tuning.md): db show|best|merge|rerank");
  db->require_subcommand(1);
  addShowAndBest(*db, *flags);
  addMerge(*db, *flags);
  addRerank(*db, *flags);
  return [flags] { return runDb(*flags); };
}

} // namespace ttlplan::tools
