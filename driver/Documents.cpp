#include "ttlplan/driver/Documents.h"

#include "ttlplan/driver/RecordJson.h"
#include "ttlplan/lower/PlanReport.h"

namespace ttlplan::driver {

using nlohmann::ordered_json;

nlohmann::json planJson(const lower::ModulePlan& plan, const search::cost::CostReport* cost) {
  nlohmann::json json = lower::toJson(plan);
  if (cost) search::cost::addCostToPlanJson(json, *cost);
  return json;
}

ordered_json tuneJson(const TuneRequest& request, const ir::Device& device, const Tuned& tuned) {
  const search::TuneResult& result = tuned.result;
  const ir::Binding& fixed = tuned.fixed;
  ordered_json j;
  j["schema_version"] = 1;
  j["device"] = device.name;
  j["bound_knobs"] = ordered_json::object();
  for (const auto& [name, value] : fixed)
    j["bound_knobs"][name] = knobJson(value);
  j["space"]["size"] = result.space.size();
  for (const search::Dimension& d : result.space.dimensions())
    j["space"]["dimensions"].push_back({{"name", d.name}, {"values", d.size()}});
  j["strategy"] = request.strategy;
  j["seed"] = request.seed;
  j["budget_evals"] = request.budgetEvals;
  j["evaluated"] = result.evaluated;
  j["reused"] = result.reused;
  j["feasible"] = result.feasible;
  j["rejected"] = result.rejected;
  j["stop"] = result.stop;
  j["best"] = result.top.empty() ? ordered_json() : recordJson(result.top.front(), fixed);
  j["top"] = ordered_json::array();
  for (const search::Record& r : result.top)
    j["top"].push_back(recordJson(r, fixed));
  if (tuned.baseline) {
    j["baseline"] = recordJson(tuned.baseline->record, fixed);
    j["baseline"]["name"] = "ttnn-default";
    if (!result.top.empty() && result.top.front().predictedNs)
      j["baseline"]["speedup"] =
          *tuned.baseline->record.predictedNs / *result.top.front().predictedNs;
  }
  if (tuned.rule && tuned.pick) {
    j["rule"] = recordJson(tuned.rule->record, fixed);
    j["rule"]["name"] = "tt-mlir-rule";
    j["rule"]["speedup"] = tuned.pick->predictedGain + 1;
  }
  if (tuned.pick) {
    j["pick"] = recordJson(tuned.pick->record, fixed);
    j["pick"]["source"] = tuned.pick->keptBaseline ? "rule" : "best";
    j["pick"]["predicted_gain"] = tuned.pick->predictedGain;
    j["pick"]["margin"] = tuned.pick->margin;
    j["pick"]["why"] = tuned.pick->why;
  }
  double perSecond = result.seconds > 0 ? double(result.evaluated) / result.seconds : 0;
  // Wall-clock figures only under "timing" (determinism: strip them to compare runs).
  j["evaluations_per_second"]["timing"] = perSecond;
  j["timing"] = {{"seconds", result.seconds},
                 {"cache_hits", result.cache.hits},
                 {"cache_misses", result.cache.misses}};
  return j;
}

size_t DbCounts::rejectedTotal() const {
  size_t n = 0;
  for (const auto& [reason, count] : rejected)
    n += count;
  return n;
}

DbCounts countRecords(const std::vector<search::Record>& records) {
  DbCounts c;
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

ordered_json dbShowJson(const std::string& path, const search::DbFile& file) {
  DbCounts c = countRecords(file.records);
  ordered_json j;
  j["schema_version"] = 1;
  j["file"] = path;
  j["header"] = ordered_json::parse(search::toJsonLine(file.header));
  j["counts"] = {
      {"records", c.records}, {"ok", c.ok}, {"rejected", c.rejected}, {"stale", c.stale}};
  j["warnings"] = file.warnings;
  j["top"] = ordered_json::array();
  for (const search::Record& r : search::top(file.records, kDbShowTop))
    j["top"].push_back(recordJson(r, file.header.bound));
  return j;
}

ordered_json dbBestJson(const search::Record& best, const ir::Binding& bound) {
  ordered_json j;
  j["best"] = recordJson(best, bound);
  return j;
}

nlohmann::json devicesJson(const std::vector<ir::Device>& devices) {
  nlohmann::json all = nlohmann::json::array();
  for (const ir::Device& d : devices)
    all.push_back(ir::toJson(d));
  return all;
}

} // namespace ttlplan::driver
