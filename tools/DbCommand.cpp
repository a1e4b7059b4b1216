// `ttlplan db`: the tuning records of `ttlplan tune --db` (search/TuningDb.h). `show` summarises a
// file, `best` prints its best usable record like `tune --json`, `merge` joins search shards, and
// `rerank` re-costs records written under an older planner or cost model.
#include "tools/DbCommand.h"

#include "tools/Knobs.h"
#include "ttlplan/driver/RecordJson.h"
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/search/Tuner.h"
#include "ttlplan/search/TuningDb.h"
#include "ttlplan/search/cost/Model.h"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

namespace ttlplan::tools {

using driver::knobJson;
using driver::pointText;
using driver::recordJson;
using driver::recordTableHeader;
using driver::recordTableRow;

namespace {

using nlohmann::ordered_json;

/// How many records `db show` lists.
constexpr size_t kShowTop = 10;

void printWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings)
    std::cerr << "ttlplan: warning: " << w << "\n";
}

int fail(const std::string& message) {
  std::cerr << "ttlplan: error: " << message << "\n";
  return kInvalidInput;
}

/// FILE read (its warnings printed); nullopt (error printed) when it is missing or not a db.
std::optional<search::DbFile> loadDb(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    fail(fmt::format("'{}' does not exist", path));
    return std::nullopt;
  }
  Expected<search::DbFile> file = search::read(path);
  if (!file) {
    fail(file.error().message);
    return std::nullopt;
  }
  printWarnings(file->warnings);
  return std::move(*file);
}

/// A warning when the file's current section was written by another planner or cost model than
/// this ttlplan's (its predictions are then out of date until `db rerank`).
void warnIfOld(const std::string& path, const search::DbHeader& h) {
  if (h.planner == planner::kernel::kPlannerVersion && h.costModel == search::cost::kModelVersion)
    return;
  printWarnings({fmt::format("'{}' was costed by {} / {}, this ttlplan is {} / {}; `ttlplan db "
                             "rerank {} --kernel TTL` re-costs it",
                             path, h.planner, h.costModel, planner::kernel::kPlannerVersion,
                             search::cost::kModelVersion, path)});
}

/// Records by status: current ok and rejected (by reason), and stale.
struct Counts {
  size_t records = 0;
  size_t ok = 0;
  size_t stale = 0;
  std::map<std::string, size_t> rejected;
};

Counts countRecords(const std::vector<search::Record>& records) {
  Counts c;
  c.records = records.size();
  for (const search::Record& r : records)
    if (r.stale)
      ++c.stale;
    else if (r.ok())
      ++c.ok;
    else
      ++c.rejected[r.reason];
  return c;
}

size_t rejectedTotal(const Counts& c) {
  size_t n = 0;
  for (const auto& [reason, count] : c.rejected)
    n += count;
  return n;
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
  Counts c = countRecords(file.records);
  std::string out = fmt::format("tuning db: {}\n", path);
  out += fmt::format("  kernel:   {} (kernel_hash {})\n", h.kernel, h.kernelHash);
  out += fmt::format("  device:   {} (device_hash {})\n", h.device, h.deviceHash);
  out += fmt::format("  bound:    {}\n", h.bound.empty() ? "(none)" : ir::str(h.bound));
  out += fmt::format("  versions: planner {}, cost_model {}, calibration {} ({})\n", h.planner,
                     h.costModel, h.calibration, h.tool);
  out += fmt::format("records: {} ({} ok, {} rejected, {} stale)\n", c.records, c.ok,
                     rejectedTotal(c), c.stale);
  for (const auto& [reason, count] : c.rejected)
    out += fmt::format("  rejected by {:<16} {}\n", reason, count);
  return out + rankedTable(search::top(file.records, kShowTop));
}

ordered_json showJson(const std::string& path, const search::DbFile& file) {
  Counts c = countRecords(file.records);
  ordered_json j;
  j["schema_version"] = 1;
  j["file"] = path;
  j["header"] = ordered_json::parse(search::toJsonLine(file.header));
  j["counts"] = {
      {"records", c.records}, {"ok", c.ok}, {"rejected", c.rejected}, {"stale", c.stale}};
  j["warnings"] = file.warnings;
  j["top"] = ordered_json::array();
  for (const search::Record& r : search::top(file.records, kShowTop))
    j["top"].push_back(recordJson(r, file.header.bound));
  return j;
}

/// The table on stdout, or the JSON on stdout ("-") or into a file beside the table.
int emit(const std::string& table, const ordered_json& json, const std::string& jsonOutput) {
  std::string text = json.dump(2) + "\n";
  if (jsonOutput == "-") return writeOutput("", text);
  std::cout << table << std::flush;
  return jsonOutput.empty() ? kSuccess : writeOutput(jsonOutput, text);
}

int runShow(const DbFlags& flags) {
  std::optional<search::DbFile> file = loadDb(flags.file);
  if (!file) return kInvalidInput;
  warnIfOld(flags.file, file->header);
  return emit(showText(flags.file, *file), showJson(flags.file, *file), flags.jsonOutput);
}

int runBest(const DbFlags& flags) {
  std::optional<search::DbFile> file = loadDb(flags.file);
  if (!file) return kInvalidInput;
  warnIfOld(flags.file, file->header);
  const search::Record* best = search::best(file->records);
  if (!best) {
    Counts c = countRecords(file->records);
    return fail(fmt::format("'{}' has no usable record ({} records: {} rejected, {} stale{})",
                            flags.file, c.records, rejectedTotal(c), c.stale,
                            c.stale ? "; `ttlplan db rerank` re-costs stale ones" : ""));
  }
  ordered_json j;
  j["best"] = recordJson(*best, file->header.bound);
  return emit(recordTableHeader() + recordTableRow("best", *best), j, flags.jsonOutput);
}

int runMerge(const DbFlags& flags) {
  Expected<search::DbFile> merged = search::merge(
      flags.inputs, flags.output,
      flags.overwrite ? search::CreateMode::Overwrite : search::CreateMode::FailIfExists);
  if (!merged) return fail(merged.error().message);
  printWarnings(merged->warnings);
  Counts c = countRecords(merged->records);
  std::cout << fmt::format("merged {} files into {}: {} records, one per point ({} ok, {} "
                           "rejected, {} stale)\n",
                           flags.inputs.size(), flags.output, c.records, c.ok, rejectedTotal(c),
                           c.stale);
  return kSuccess;
}

// ----- rerank -----------------------------------------------------------------------------------

/// The device the records were tuned for: the flags, or the db's device name when none is given.
std::optional<ir::Device> rerankDevice(const DbFlags& flags, const search::DbHeader& header,
                                       int& exitCode) {
  DeviceFlags d = flags.device;
  if (d.name.empty()) d.name = header.device;
  return resolveDevice(d, exitCode);
}

/// Empty when `module` on `device` is what the records of `file` are for; else the error.
std::string keyMismatch(const DbFlags& flags, const search::DbHeader& file,
                        const search::DbHeader& current) {
  if (file.kernelHash != current.kernelHash)
    return fmt::format("'{}' is not the kernel the records of '{}' are for: its kernel_hash is {} "
                       "({}), the db's {} ({})",
                       flags.kernel, flags.file, current.kernelHash, current.kernel,
                       file.kernelHash, file.kernel);
  std::vector<std::string> diff = search::keyDifferences(file, current);
  if (diff.empty()) return "";
  return fmt::format("the records of '{}' were tuned for another device than {} ({} differs); "
                     "give the --device, --device-file and --grid they were tuned with",
                     flags.file, current.device, fmt::join(diff, ", "));
}

/// What a rerank did.
struct Reranked {
  std::vector<search::Record> records; ///< the new db's records, in the old file order
  size_t kept = 0;                     ///< current records copied as they are
  size_t recosted = 0;                 ///< stale ok points costed again from their stored plans
  size_t replanned = 0;                ///< stale ok points planned again (see rerankOne)
  size_t droppedRejected = 0;          ///< stale rejected records left out
  size_t droppedDuplicates = 0;        ///< stale records of a point already current
  std::vector<std::string> warnings;   ///< stored plans that could not be used
};

/// A stale ok record under this ttlplan: re-costed from its stored plans when `plansCurrent`
/// (they are the current planner's), else planned again (records of another planner version, or
/// written before records kept plans, or whose plans do not decode: a warning says which).
search::Record rerankOne(const search::Record& r, bool plansCurrent,
                         const search::PointEvaluator& evaluator, Reranked& out) {
  if (plansCurrent && !r.plans.empty()) {
    Expected<search::Record> recosted = evaluator.recost(r);
    if (recosted) {
      ++out.recosted;
      return std::move(*recosted);
    }
    out.warnings.push_back(fmt::format("{}; planned again", recosted.error().message));
  }
  ++out.replanned;
  return evaluator.evaluate(r.point);
}

/// Current records as they are; each stale ok point re-costed once (unless a current record has
/// it); stale rejected records dropped. A record is current when its section has `current`'s
/// versions (read() marks the others of the file's last section stale).
Reranked rerankRecords(const search::DbFile& file, const search::DbHeader& current,
                       const ir::Module& module, const ir::Device& device,
                       const planner::kernel::PlanOptions& options) {
  bool lastIsCurrent = search::versionDifferences(file.header, current).empty();
  bool lastPlannerIsCurrent = file.header.planner == current.planner;
  auto isCurrent = [&](const search::Record& r) { return lastIsCurrent && !r.stale; };
  std::set<ir::Binding> done;
  for (const search::Record& r : file.records)
    if (isCurrent(r)) done.insert(r.point);
  planner::kernel::PlanCache cache;
  search::PointEvaluator evaluator(module, device, current.bound, options, &cache);
  evaluator.setKeepPlans(true);
  Reranked out;
  for (const search::Record& r : file.records) {
    if (isCurrent(r)) {
      out.records.push_back(r);
      ++out.kept;
    } else if (!r.ok()) {
      ++out.droppedRejected;
    } else if (!done.insert(r.point).second) {
      ++out.droppedDuplicates;
    } else {
      out.records.push_back(rerankOne(r, lastPlannerIsCurrent && !r.planStale, evaluator, out));
    }
  }
  for (search::Record& r : out.records) {
    r.stale = false;
    r.planStale = false;
  }
  return out;
}

/// Writes a new db at `path` through a temporary file and a rename (`path` may be the input).
Status writeDb(const std::string& path, const search::DbHeader& header,
               const std::vector<search::Record>& records) {
  std::string temp = fmt::format("{}.rerank{}", path, ::getpid());
  Status status = [&]() -> Status {
    Expected<search::TuningDb> db =
        search::TuningDb::create(temp, header, search::CreateMode::Overwrite);
    if (!db) return db.error();
    for (const search::Record& r : records)
      if (Status s = db->append(r); !s) return s;
    return {};
  }();
  std::error_code ec;
  if (status) std::filesystem::rename(temp, path, ec);
  if (!status || ec) std::filesystem::remove(temp, ec);
  if (status && ec) return Error{fmt::format("cannot write '{}': {}", path, ec.message())};
  return status;
}

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

std::string rerankSummary(const search::DbFile& before, const Reranked& after,
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
  std::optional<search::DbFile> file = loadDb(flags.file);
  if (!file) return kInvalidInput;
  int exitCode = kSuccess;
  std::optional<ir::Device> device = rerankDevice(flags, file->header, exitCode);
  if (!device) return exitCode;
  std::unique_ptr<ir::Module> module = parseVerified(flags.kernel, exitCode);
  if (!module) return exitCode;
  search::DbHeader current = search::tuningHeader(*module, *device, file->header.bound);
  if (std::string error = keyMismatch(flags, file->header, current); !error.empty())
    return fail(error);
  planner::kernel::PlanOptions options;
  options.limits.nodeLimit = flags.nodeLimit;
  Reranked reranked = rerankRecords(*file, current, *module, *device, options);
  printWarnings(reranked.warnings);
  std::string output = flags.output.empty() ? flags.file : flags.output;
  if (Status s = writeDb(output, current, reranked.records); !s) return fail(s.error().message);
  std::cout << rerankSummary(*file, reranked, current, output);
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
  cmd.add_option("--json", flags.jsonOutput,
                 "Write the result as JSON to this file ('-': stdout, instead of the table)");
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
  merge
      ->add_option("-o,--output", flags.output,
                   "The merged db (may be one of the inputs with "
                   "--overwrite)")
      ->required();
  merge->add_flag("--overwrite", flags.overwrite, "Replace -o when it exists");
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
  rerank->add_option("--kernel", flags.kernel, "The TTL file the records were tuned from")
      ->required();
  rerank->add_option("-o,--output", flags.output,
                     "Write the new db here (default: replace FILE, through a temporary file)");
  rerank->add_option("--device", flags.device.name,
                     "Device the records were tuned for (default: the db's)");
  rerank
      ->add_option("--device-file", flags.device.file,
                   "A device description JSON file (docs/devices.md); wins over --device")
      ->check(CLI::ExistingFile);
  rerank->add_option("--grid", flags.device.grid, "The --grid YxX the records were tuned with");
  rerank->add_option("--node-limit", flags.nodeLimit,
                     "Node budget per planner sub-problem, as given to `tune` (0 = none)");
}

} // namespace

CLI::App* addDbCommand(CLI::App& app, DbFlags& flags) {
  CLI::App* db = app.add_subcommand(
      "db", "Inspect, merge and re-cost the tuning records of `ttlplan tune --db` "
            "(docs/tuning.md): db show|best|merge|rerank");
  db->require_subcommand(1);
  addShowAndBest(*db, flags);
  addMerge(*db, flags);
  addRerank(*db, flags);
  return db;
}

int runDb(const DbFlags& flags) {
  if (flags.action == "show") return runShow(flags);
  if (flags.action == "best") return runBest(flags);
  if (flags.action == "merge") return runMerge(flags);
  return runRerank(flags);
}

} // namespace ttlplan::tools
