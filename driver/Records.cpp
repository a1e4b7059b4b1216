// rerankDb: the records of a tuning db costed again under this ttlplan (docs/tuning.md, "db
// rerank"): from their stored plans when the planner is the same, else planned again.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/search/cost/Model.h"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <unistd.h>

namespace ttlplan::driver {

namespace {

/// Empty when `module` on `device` is what the records of `file` are for; else the error.
std::string keyMismatch(const RerankRequest& flags, const search::DbHeader& file,
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
void rerankRecords(Reranked& out, const search::DbFile& file, const search::DbHeader& current,
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
  if (status && ec) return ttlplan::Error{fmt::format("cannot write '{}': {}", path, ec.message())};
  return status;
}

} // namespace

Result<Reranked> rerankDb(const RerankRequest& request, const Log& log) {
  std::error_code ec;
  if (!std::filesystem::exists(request.file, ec))
    return Error::input(fmt::format("'{}' does not exist", request.file));
  Expected<search::DbFile> file = search::read(request.file);
  if (!file) return Error::input(file.error().message);
  for (const std::string& w : file->warnings)
    log("ttlplan: warning: " + w + "\n");
  DeviceRequest deviceRequest = request.device;
  if (deviceRequest.name.empty()) deviceRequest.name = file->header.device;
  Result<ir::Device> device = loadDevice(deviceRequest);
  if (!device) return device.error();
  Result<Source> source = parseVerified(request.kernel);
  if (!source) return source.error();
  Reranked out;
  out.current = search::tuningHeader(*source->module, *device, file->header.bound);
  if (std::string error = keyMismatch(request, file->header, out.current); !error.empty())
    return Error::input(error);
  planner::kernel::PlanOptions options;
  options.limits.nodeLimit = request.nodeLimit;
  rerankRecords(out, *file, out.current, *source->module, *device, options);
  for (const std::string& w : out.warnings)
    log("ttlplan: warning: " + w + "\n");
  out.output = request.output.empty() ? request.file : request.output;
  if (Status s = writeDb(out.output, out.current, out.records); !s)
    return Error::io(s.error().message);
  out.before = std::move(*file);
  return out;
}

Result<search::DbFile> readDb(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Error::input(fmt::format("'{}' does not exist", path));
  Expected<search::DbFile> file = search::read(path);
  if (!file) return Error::input(file.error().message);
  return std::move(*file);
}

std::string staleDbWarning(const std::string& path, const search::DbHeader& header) {
  if (header.planner == planner::kernel::kPlannerVersion &&
      header.costModel == search::cost::kModelVersion)
    return "";
  return fmt::format("'{}' was costed by {} / {}, this ttlplan is {} / {}; `ttlplan db rerank {} "
                     "--kernel TTL` re-costs it",
                     path, header.planner, header.costModel, planner::kernel::kPlannerVersion,
                     search::cost::kModelVersion, path);
}

Result<search::DbFile> mergeDbs(const std::vector<std::string>& inputs, const std::string& output,
                                bool overwrite) {
  Expected<search::DbFile> merged = search::merge(
      inputs, output, overwrite ? search::CreateMode::Overwrite : search::CreateMode::FailIfExists);
  if (!merged) return Error::input(merged.error().message);
  return std::move(*merged);
}

} // namespace ttlplan::driver
