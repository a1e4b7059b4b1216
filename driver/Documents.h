#pragma once
// The JSON documents ttlplan writes, one function each, so that the command line, the HTML
// report and library callers get the same shape from one place: the plan report (`plan --json`,
// the page's plan), the tune result (`tune --json`, the page's tune section), `db show --json`,
// `db best --json` and `devices --json`. Records and knob values inside them are
// driver/RecordJson.h's.
#include "ttlplan/driver/Driver.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ttlplan::driver {

/// The plan report (schema_version 1, docs/schema/plan.schema.json), with the cost model's
/// figures when `cost` is given.
nlohmann::json planJson(const lower::ModulePlan& plan, const search::cost::CostReport* cost);

/// The result of `tune` (docs/schema/tune.schema.json): the space, the counts, the best, the top,
/// ttnn's default, tt-mlir's rule and the pick; wall-clock figures only under "timing".
nlohmann::ordered_json tuneJson(const TuneRequest& request, const ir::Device& device,
                                const Tuned& tuned);

/// A db's records by status: current ok and rejected (by reason), and stale.
struct DbCounts {
  size_t records = 0;
  size_t ok = 0;
  size_t stale = 0;
  std::map<std::string, size_t> rejected; ///< by reason
  size_t rejectedTotal() const;
};
DbCounts countRecords(const std::vector<search::Record>& records);

/// How many records `db show` lists.
inline constexpr size_t kDbShowTop = 10;

/// `db show --json`: the header, the counts, the warnings and the best kDbShowTop records.
nlohmann::ordered_json dbShowJson(const std::string& path, const search::DbFile& file);

/// `db best --json`: {"best": record}.
nlohmann::ordered_json dbBestJson(const search::Record& best, const ir::Binding& bound);

/// `devices --json`: the descriptions, as device files hold them.
nlohmann::json devicesJson(const std::vector<ir::Device>& devices);

} // namespace ttlplan::driver
