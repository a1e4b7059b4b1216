// Tuning records as JSON objects and table rows (driver/RecordJson.h).
#include "ttlplan/driver/RecordJson.h"

#include "ttlplan/search/Tuner.h"

#include <fmt/format.h>

namespace ttlplan::driver {

using nlohmann::ordered_json;

ordered_json knobJson(const ir::KnobValue& value) {
  return value.isSymbol() ? ordered_json(value.symbol()) : ordered_json(value.integer());
}

ordered_json bindingJson(const ir::Binding& binding) {
  ordered_json j = ordered_json::object();
  for (const auto& [name, value] : binding)
    j[name] = knobJson(value);
  return j;
}

ordered_json recordJson(const search::Record& r, const ir::Binding& fixed) {
  search::PointParts parts = search::splitPoint(r.point, fixed);
  ordered_json j;
  j["binding"] = bindingJson(parts.knobs);
  j["block_counts"] = parts.blockCounts;
  j["predicted_ns"] = r.predictedNs ? ordered_json(*r.predictedNs) : ordered_json();
  j["utilization"] = r.utilization;
  j["bound"] = r.bound;
  j["l1_bytes"] = r.l1Bytes;
  j["cores"] = r.cores;
  return j;
}

std::string pointText(const search::Record& r) {
  std::string out;
  for (const auto& [name, value] : r.point)
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value.str());
  return out.empty() ? "(no free knobs)" : out;
}

std::string recordTableHeader() {
  return fmt::format("\n{:>4}  {:>12}  {:>6}  {:<9}  {:>9}  {:>5}  {}\n", "rank", "predicted",
                     "util", "bound", "L1 bytes", "cores", "point");
}

std::string recordTableRow(const std::string& rank, const search::Record& r) {
  return fmt::format("{:>4}  {:>9.1f} us  {:>5.1f}%  {:<9}  {:>9}  {:>5}  {}\n", rank,
                     r.predictedNs.value_or(0) / 1000.0, 100.0 * r.utilization, r.bound, r.l1Bytes,
                     r.cores, pointText(r));
}

} // namespace ttlplan::driver
