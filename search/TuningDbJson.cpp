// The JSON line format of tuning records (TuningDbJson.h): headers and records to and from JSON.
#include "ttlplan/search/TuningDbJson.h"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ttlplan::search {
namespace dbjson {

// Invalid UTF-8 in a message is replaced instead of throwing (the API never throws).
std::string dump(const OJson& j) {
  return j.dump(-1, ' ', false, OJson::error_handler_t::replace);
}

namespace {
// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest is the useful part.
std::string jsonMessage(const std::exception& e) {
  std::string message = e.what();
  size_t close = message.find("] ");
  return close == std::string::npos ? message : message.substr(close + 2);
}
} // namespace

Expected<OJson> parseJson(const std::string& line) {
  try {
    return OJson::parse(line);
  } catch (const std::exception& e) {
    return Error{"not JSON: " + jsonMessage(e)};
  }
}

namespace {
OJson bindingJson(const ir::Binding& binding) {
  OJson j = OJson::object();
  for (const auto& [name, value] : binding)
    j[name] = value.isSymbol() ? OJson(value.symbol()) : OJson(value.integer());
  return j;
}

Expected<ir::Binding> bindingFrom(const OJson& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return Error{fmt::format("\"{}\" must be an object", key)};
  ir::Binding binding;
  for (const auto& [name, value] : it->items()) {
    if (value.is_string())
      binding[name] = ir::KnobValue::symbol(value.get<std::string>());
    else if (value.is_number_integer() &&
             !(value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX)))
      binding[name] = ir::KnobValue(value.get<int64_t>());
    else
      return Error{fmt::format("\"{}\".\"{}\" must be an integer or a symbol", key, name)};
  }
  return binding;
}
} // namespace

using StringField = std::pair<const char*, std::string*>;

namespace {
// A missing or mistyped member names itself, so a hand-edited line says what is wrong.
Status getString(const OJson& j, const char* key, std::string& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return Error{fmt::format("\"{}\" must be a string", key)};
  out = it->get<std::string>();
  return {};
}

Status getInt(const OJson& j, const char* key, int64_t& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer() ||
      (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(INT64_MAX)))
    return Error{fmt::format("\"{}\" must be an integer", key)};
  out = it->get<int64_t>();
  return {};
}

// Non-finite doubles are written as null (JSON has no NaN); null reads back as NaN.
Status getDouble(const OJson& j, const char* key, double& out) {
  auto it = j.find(key);
  if (it == j.end() || !(it->is_number() || it->is_null()))
    return Error{fmt::format("\"{}\" must be a number", key)};
  out = it->is_null() ? std::numeric_limits<double>::quiet_NaN() : it->get<double>();
  return {};
}
} // namespace

bool isHeaderJson(const OJson& j) {
  return j.is_object() && j.contains("ttlplan_tuning_db");
}

Expected<DbHeader> headerFrom(const OJson& j) {
  if (!isHeaderJson(j)) return Error{"not a tuning-db header (no \"ttlplan_tuning_db\")"};
  DbHeader h;
  int64_t format = 0;
  if (Status s = getInt(j, "ttlplan_tuning_db", format); !s) return s.error();
  if (format != kTuningDbFormat)
    return Error{fmt::format("tuning-db format {} is not supported (this ttlplan reads {})", format,
                             kTuningDbFormat)};
  h.format = int(format);
  for (auto [key, field] : std::initializer_list<StringField>{{"tool", &h.tool},
                                                              {"planner", &h.planner},
                                                              {"cost_model", &h.costModel},
                                                              {"calibration", &h.calibration},
                                                              {"device", &h.device},
                                                              {"device_hash", &h.deviceHash},
                                                              {"kernel", &h.kernel},
                                                              {"kernel_hash", &h.kernelHash}})
    if (Status s = getString(j, key, *field); !s) return s.error();
  Expected<ir::Binding> bound = bindingFrom(j, "bound");
  if (!bound) return bound.error();
  h.bound = std::move(*bound);
  return h;
}

namespace {
Status statusFields(const OJson& j, Record& r) {
  if (Status s = getString(j, "status", r.status); !s) return s;
  if (r.status != "ok" && r.status != "rejected")
    return Error{fmt::format("\"status\" must be \"ok\" or \"rejected\", not \"{}\"", r.status)};
  for (auto [key, field] : std::initializer_list<StringField>{
           {"reason", &r.reason}, {"detail", &r.detail}, {"bound", &r.bound}})
    if (Status s = getString(j, key, *field); !s) return s;
  return {};
}

Status numberFields(const OJson& j, Record& r) {
  if (j.contains("predicted_ns") && j["predicted_ns"].is_null()) {
    r.predictedNs.reset();
  } else {
    double ns = 0;
    if (Status s = getDouble(j, "predicted_ns", ns); !s) return s;
    r.predictedNs = ns;
  }
  int64_t cores = 0;
  if (Status s = getDouble(j, "utilization", r.utilization); !s) return s;
  if (Status s = getInt(j, "l1_bytes", r.l1Bytes); !s) return s;
  if (Status s = getInt(j, "cores", cores); !s) return s;
  if (cores < 0 || cores > std::numeric_limits<int>::max())
    return Error{fmt::format("\"cores\" {} is out of range", cores)};
  r.cores = int(cores);
  return {};
}

// "timing" is optional on read so that lines passed through stripTiming still load.
Status timingField(const OJson& j, Record& r) {
  auto it = j.find("timing");
  if (it == j.end()) return {};
  if (!it->is_object()) return Error{"\"timing\" must be an object"};
  return getDouble(*it, "ms", r.timingMs);
}
} // namespace

Expected<Record> recordFrom(const OJson& j) {
  if (!j.is_object()) return Error{"a record must be a JSON object"};
  Record r;
  Expected<ir::Binding> point = bindingFrom(j, "point");
  if (!point) return point.error();
  r.point = std::move(*point);
  if (Status s = statusFields(j, r); !s) return s.error();
  if (Status s = numberFields(j, r); !s) return s.error();
  if (Status s = timingField(j, r); !s) return s.error();
  if (auto it = j.find("plans"); it != j.end()) {
    if (!it->is_array()) return Error{"\"plans\" must be an array"};
    r.plans = dump(*it);
  }
  return r;
}

// What is wrong with a line, or nothing when it is a whole header or record.
std::optional<std::string> lineProblem(const Expected<OJson>& j) {
  if (!j) return j.error().message;
  if (isHeaderJson(*j)) {
    Expected<DbHeader> h = headerFrom(*j);
    return h ? std::nullopt : std::optional(h.error().message);
  }
  Expected<Record> r = recordFrom(*j);
  return r ? std::nullopt : std::optional(r.error().message);
}

namespace {
OJson doubleJson(double x) {
  return std::isfinite(x) ? OJson(x) : OJson(nullptr);
}

void stripTimingIn(OJson& j) {
  if (j.is_object()) j.erase("timing");
  if (j.is_structured())
    for (OJson& child : j)
      stripTimingIn(child);
}
} // namespace

} // namespace dbjson

using namespace dbjson;

// ----- Lines ------------------------------------------------------------------------------------

std::string toJsonLine(const DbHeader& h) {
  OJson j = {{"ttlplan_tuning_db", h.format}, {"tool", h.tool},
             {"planner", h.planner},          {"cost_model", h.costModel},
             {"calibration", h.calibration},  {"device", h.device},
             {"device_hash", h.deviceHash},   {"kernel", h.kernel},
             {"kernel_hash", h.kernelHash},   {"bound", bindingJson(h.bound)}};
  return dump(j);
}

std::string toJsonLine(const Record& r) {
  OJson j = {{"point", bindingJson(r.point)},
             {"status", r.status},
             {"reason", r.reason},
             {"detail", r.detail},
             {"predicted_ns", r.predictedNs ? doubleJson(*r.predictedNs) : OJson(nullptr)},
             {"utilization", doubleJson(r.utilization)},
             {"bound", r.bound},
             {"l1_bytes", r.l1Bytes},
             {"cores", r.cores}};
  std::string line = dump(j);
  // "plans" is already compact JSON (storedPlansJson, or dump() of a record read back): spliced
  // in as it is, not parsed and dumped again on the db's append path. Text that is not an array
  // (a hand-made Record) is left out.
  line.pop_back(); // the closing '}'
  if (r.plans.size() >= 2 && r.plans.front() == '[' && r.plans.back() == ']')
    line += ",\"plans\":" + r.plans;
  line += ",\"timing\":" + dump(OJson{{"ms", doubleJson(r.timingMs)}}) + "}";
  return line;
}

Expected<DbHeader> parseHeader(const std::string& line) {
  Expected<OJson> j = parseJson(line);
  if (!j) return j.error();
  try {
    return headerFrom(*j);
  } catch (const std::exception& e) { // the checks above should make this unreachable
    return Error{jsonMessage(e)};
  }
}

Expected<Record> parseRecord(const std::string& line) {
  Expected<OJson> j = parseJson(line);
  if (!j) return j.error();
  try {
    return recordFrom(*j);
  } catch (const std::exception& e) {
    return Error{jsonMessage(e)};
  }
}

std::string stripTiming(std::string_view jsonLines) {
  std::string out;
  size_t begin = 0;
  while (begin < jsonLines.size()) {
    size_t end = std::min(jsonLines.find('\n', begin), jsonLines.size());
    std::string line(jsonLines.substr(begin, end - begin));
    Expected<OJson> j = parseJson(line);
    if (j) stripTimingIn(*j);
    out += j ? dump(*j) : line;
    if (end < jsonLines.size()) out += '\n';
    begin = end + 1;
  }
  return out;
}

} // namespace ttlplan::search
