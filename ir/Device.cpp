#include "ttlplan/ir/Device.h"

#include "ttlplan/ir/EmbeddedDevices.h"
#include "ttlplan/support/GridLimits.h"
#include "ttlplan/support/ReadFile.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace ttlplan::ir {

using nlohmann::json;

int64_t FidelityCycles::forPhases(int phases) const {
  switch (std::clamp(phases, 1, 4)) {
  case 1:
    return lofi;
  case 2:
    return hifi2;
  case 3:
    return hifi3;
  default:
    return hifi4;
  }
}

int64_t Device::tileBytes(DataType type) const {
  switch (type) {
  case DataType::BF16:
    return tiles.bf16;
  case DataType::F32:
    return tiles.f32;
  case DataType::F16:
    return tiles.f16;
  case DataType::BFP8_B:
    return tiles.bfp8_b;
  case DataType::BFP4_B:
    return tiles.bfp4_b;
  case DataType::I32:
    return tiles.i32;
  case DataType::U32:
    return tiles.u32;
  }
  return 0;
}

int Device::dstCapacityTiles(bool fullSync, bool fp32Accumulation) const {
  if (fp32Accumulation) return fullSync ? dst.tilesFullSyncFp32 : dst.tilesHalfSyncFp32;
  return fullSync ? dst.tilesFullSync : dst.tilesHalfSync;
}

namespace {

constexpr int64_t kMaxSmallCount = 257;
constexpr int64_t kMaxBytes = int64_t{1} << 32;
constexpr int64_t kMaxCycles = 1000000;
constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

// Accepted values are [lo, hi); `bound` names the field that set a limit, for the message.
struct Range {
  int64_t lo;
  int64_t hi;
  std::string bound = {};
};

// Upper limit `limit` inclusive when it is known, else `fallbackHi`.
Range upTo(std::optional<int64_t> limit, int64_t fallbackHi, std::string bound) {
  if (!limit) return {1, fallbackHi};
  return {1, *limit + 1, std::move(bound)};
}

std::string typeName(const json& value) {
  return value.is_number_float() ? "float" : value.type_name();
}

// Walks a parsed document by dotted paths and collects one message per problem. It remembers every
// path it was asked for, so that whatever is left over can be reported as unknown.
class Reader {
public:
  Reader(const json& root, std::string_view origin) : root_(root), origin_(origin) {}

  std::optional<int64_t> integer(const std::string& path, const Range& range);
  std::optional<std::vector<int64_t>> list(const std::string& path, size_t minSize, size_t maxSize,
                                           const std::function<Range(size_t)>& rangeOf);
  std::optional<std::string> text(const std::string& path);
  std::optional<std::string> choice(const std::string& path,
                                    const std::vector<std::string>& allowed);
  std::optional<bool> flag(const std::string& path);
  // A number (integer or float) in [lo, hi]; `bound` names the field that set hi, if one did.
  std::optional<double> real(const std::string& path, double lo, double hi,
                             const std::string& bound = {});
  // Looks up a field that may be absent (nullptr then) without reporting it.
  const json* peek(const std::string& path);
  // Reports `path` as a problem; `what` follows the field's name.
  void problem(const std::string& path, const std::string& what);
  bool isKnown(const std::string& path) const {
    return known_.count(path) > 0 || sections_.count(path) > 0;
  }
  // Reports fields nobody asked for, then returns the collected messages.
  std::vector<std::string> finish();

private:
  const json* find(const std::string& path, bool required);
  void reportMissing(const std::string& prefix, const std::string& path);
  bool typeIs(const std::string& path, const json& value, bool ok, const char* expected);
  void outOfRange(const std::string& path, const std::string& value, const Range& range);
  void reportUnknown(const json& object, const std::string& prefix);

  const json& root_;
  std::string origin_;
  std::vector<std::string> messages_;
  std::set<std::string> reported_; // paths with a message already (a missing section counts once)
  std::set<std::string> known_;    // leaf fields asked for
  std::set<std::string> sections_; // objects on the way to a leaf
  // A missing section is one message; the fields asked for below it are listed in that message.
  std::map<std::string, std::pair<size_t, std::vector<std::string>>> missingSections_;
};

void Reader::reportMissing(const std::string& prefix, const std::string& path) {
  auto section = missingSections_.find(prefix);
  if (section == missingSections_.end() && !reported_.count(prefix)) {
    section = missingSections_
                  .emplace(prefix, std::make_pair(messages_.size(), std::vector<std::string>{}))
                  .first;
    problem(prefix, "is missing");
    reported_.insert(prefix);
  }
  if (section != missingSections_.end() && path != prefix)
    section->second.second.push_back(path.substr(prefix.size() + 1));
}

const json* Reader::find(const std::string& path, bool required) {
  known_.insert(path);
  const json* node = &root_;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string prefix = path.substr(0, dot);
    std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
    auto it = node->find(key);
    if (it == node->end()) {
      if (required) reportMissing(prefix, path);
      return nullptr;
    }
    node = &*it;
    if (dot == std::string::npos) return node;
    sections_.insert(prefix);
    if (!typeIs(prefix, *node, node->is_object(), "object")) return nullptr;
    start = dot + 1;
  }
}

bool Reader::typeIs(const std::string& path, const json& value, bool ok, const char* expected) {
  if (ok) return true;
  if (!reported_.count(path))
    problem(path, "has type " + typeName(value) + ", expected " + expected);
  reported_.insert(path);
  return false;
}

void Reader::problem(const std::string& path, const std::string& what) {
  messages_.push_back(origin_ + ": field '" + path + "' " + what);
}

void Reader::outOfRange(const std::string& path, const std::string& value, const Range& range) {
  std::string hi = range.hi == kNoLimit ? "inf" : std::to_string(range.hi);
  std::string why = range.bound.empty() ? "" : " (limited by " + range.bound + ")";
  problem(path,
          "= " + value + " is out of range [" + std::to_string(range.lo) + ", " + hi + ")" + why);
}

std::optional<int64_t> Reader::integer(const std::string& path, const Range& range) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_number_integer(), "integer")) return std::nullopt;
  if (value->is_number_unsigned() && value->get<uint64_t>() > uint64_t(kNoLimit)) {
    outOfRange(path, value->dump(), range);
    return std::nullopt;
  }
  int64_t number = value->get<int64_t>();
  if (number < range.lo || number >= range.hi) {
    outOfRange(path, std::to_string(number), range);
    return std::nullopt;
  }
  return number;
}

std::optional<std::vector<int64_t>> Reader::list(const std::string& path, size_t minSize,
                                                 size_t maxSize,
                                                 const std::function<Range(size_t)>& rangeOf) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_array(), "array")) return std::nullopt;
  size_t size = value->size();
  if (size < minSize || size > maxSize) {
    std::string expected = minSize == maxSize ? std::to_string(minSize)
                           : size < minSize   ? "at least " + std::to_string(minSize)
                                              : "at most " + std::to_string(maxSize);
    problem(path, "has " + std::to_string(size) + " elements, expected " + expected);
    return std::nullopt;
  }
  std::vector<int64_t> numbers;
  bool ok = true;
  for (size_t i = 0; i < size; ++i) {
    std::string element = path + "[" + std::to_string(i) + "]";
    const json& item = (*value)[i];
    if (!typeIs(element, item, item.is_number_integer(), "integer")) {
      ok = false;
      continue;
    }
    Range range = rangeOf(i);
    int64_t number = item.is_number_unsigned() && item.get<uint64_t>() > uint64_t(kNoLimit)
                         ? kNoLimit
                         : item.get<int64_t>();
    if (number < range.lo || number >= range.hi) {
      outOfRange(element, item.dump(), range);
      ok = false;
    }
    numbers.push_back(number);
  }
  if (!ok) return std::nullopt;
  return numbers;
}

std::optional<std::string> Reader::text(const std::string& path) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_string(), "string")) return std::nullopt;
  return value->get<std::string>();
}

std::optional<std::string> Reader::choice(const std::string& path,
                                          const std::vector<std::string>& allowed) {
  std::optional<std::string> value = text(path);
  if (!value || std::find(allowed.begin(), allowed.end(), *value) != allowed.end()) return value;
  std::string names;
  for (const std::string& name : allowed)
    names += (names.empty() ? "" : ", ") + name;
  problem(path, "= \"" + *value + "\" is not one of " + names);
  return std::nullopt;
}

std::optional<bool> Reader::flag(const std::string& path) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_boolean(), "boolean")) return std::nullopt;
  return value->get<bool>();
}

std::optional<double> Reader::real(const std::string& path, double lo, double hi,
                                   const std::string& bound) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_number(), "number")) return std::nullopt;
  double number = value->get<double>();
  if (!(number >= lo && number <= hi)) {
    std::string why = bound.empty() ? "" : " (limited by " + bound + ")";
    problem(path, "= " + value->dump() + " is out of range [" + json(lo).dump() + ", " +
                      json(hi).dump() + "]" + why);
    return std::nullopt;
  }
  return number;
}

const json* Reader::peek(const std::string& path) {
  return find(path, false);
}

void Reader::reportUnknown(const json& object, const std::string& prefix) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (sections_.count(path) && it->is_object())
      reportUnknown(*it, path);
    else if (!known_.count(path) && !sections_.count(path))
      messages_.push_back(origin_ + ": unknown field '" + path + "'");
  }
}

std::vector<std::string> Reader::finish() {
  for (const auto& [prefix, section] : missingSections_) {
    const auto& [index, fields] = section;
    std::string list;
    for (const std::string& field : fields)
      list += (list.empty() ? "" : ", ") + field;
    if (!list.empty()) messages_[index] += " (needs " + list + ")";
  }
  reportUnknown(root_, "");
  return std::move(messages_);
}

template <typename T> void assign(T& out, const std::optional<int64_t>& value) {
  out = static_cast<T>(value.value_or(0));
}

std::optional<GridShape> readShape(Reader& r, const std::string& path, const Range& rows,
                                   const Range& columns) {
  auto numbers = r.list(path, 2, 2, [&](size_t i) { return i == 0 ? rows : columns; });
  if (!numbers) return std::nullopt;
  return GridShape{int((*numbers)[0]), int((*numbers)[1])};
}

std::optional<int64_t> rowsOf(const std::optional<GridShape>& shape) {
  return shape ? std::optional<int64_t>(shape->rows) : std::nullopt;
}

std::optional<int64_t> columnsOf(const std::optional<GridShape>& shape) {
  return shape ? std::optional<int64_t>(shape->columns) : std::nullopt;
}

// Translated coordinates of logical rows or columns: at least one per row or column of the grid.
std::vector<int> readCoordinates(Reader& r, const std::string& path, std::optional<int64_t> count) {
  auto numbers = r.list(path, size_t(count.value_or(1)), size_t(kMaxNocCoordinate), [](size_t) {
    return Range{0, kMaxNocCoordinate};
  });
  if (!numbers) return {};
  if (std::adjacent_find(numbers->begin(), numbers->end(), std::greater_equal<>()) !=
      numbers->end())
    r.problem(path, "is not strictly increasing");
  return std::vector<int>(numbers->begin(), numbers->end());
}

void readGrid(Reader& r, DeviceGrid& grid) {
  Range nocRange{1, kMaxNocCoordinate + 1};
  auto noc = readShape(r, "grid.noc", nocRange, nocRange);
  auto physical = readShape(r, "grid.physical_tensix", upTo(rowsOf(noc), nocRange.hi, "grid.noc"),
                            upTo(columnsOf(noc), nocRange.hi, "grid.noc"));
  const char* bound = physical ? "grid.physical_tensix" : "grid.noc";
  auto limit = physical ? physical : noc;
  auto compute = readShape(r, "grid.compute", upTo(rowsOf(limit), nocRange.hi, bound),
                           upTo(columnsOf(limit), nocRange.hi, bound));
  grid.noc = noc.value_or(GridShape{});
  grid.physicalTensix = physical.value_or(GridShape{});
  grid.compute = compute.value_or(GridShape{});
  grid.translatedRows = readCoordinates(r, "grid.translated_rows", rowsOf(compute));
  grid.translatedColumns = readCoordinates(r, "grid.translated_columns", columnsOf(compute));
  grid.harvesting = r.text("grid.harvesting").value_or("");
}

void readHeader(Reader& r, Device& d) {
  r.integer("schema_version", {kDeviceSchemaVersion, kDeviceSchemaVersion + 1});
  std::optional<std::string> name = r.text("name");
  if (name && name->empty()) r.problem("name", "is empty");
  d.name = name.value_or("");
  d.arch = r.choice("arch", {"wormhole_b0", "blackhole"}).value_or("");
  if (const json* notes = r.peek("notes"); notes && notes->is_string())
    d.notes = notes->get<std::string>();
  else if (notes)
    r.problem("notes", "has type " + typeName(*notes) + ", expected string");
  assign(d.chips, r.integer("chips", {1, kMaxNocCoordinate + 1}));
  assign(d.clockMhz, r.integer("clock_mhz", {1, 100000}));
}

// l1 and cb together: the unreserved base must be aligned like a CB address.
void readMemory(Reader& r, Device& d) {
  auto size = r.integer("l1.size_bytes", {1, kMaxBytes});
  // Its limit is the L1 size itself, which the message shows; no "(limited by ...)" needed.
  auto base = r.integer("l1.unreserved_base", {0, size.value_or(kMaxBytes)});
  assign(d.l1.sizeBytes, size);
  assign(d.l1.unreservedBase, base);
  assign(d.cb.maxPerProgram, r.integer("cb.max_per_program", {1, kMaxSmallCount}));
  // 0 stands for "not known" from here on.
  int64_t alignment = r.integer("cb.address_alignment_bytes", {1, 4097}).value_or(0);
  if ((alignment & (alignment - 1)) != 0) {
    r.problem("cb.address_alignment_bytes",
              "= " + std::to_string(alignment) + " is not a power of two");
    alignment = 0;
  }
  d.cb.addressAlignment = alignment;
  assign(d.cb.configWordBytes, r.integer("cb.config_word_bytes", {1, kMaxSmallCount}));
  d.cb.sizeMultipleOfPage = r.flag("cb.size_multiple_of_page").value_or(true);
  if (base && alignment > 0 && *base % alignment != 0)
    r.problem("l1.unreserved_base", "= " + std::to_string(*base) +
                                        " is not a multiple of cb.address_alignment_bytes (" +
                                        std::to_string(alignment) + ")");
}

void readDst(Reader& r, DstRegister& dst) {
  auto full = r.integer("dst.tiles_full_sync", {1, kMaxSmallCount});
  auto half = r.integer("dst.tiles_half_sync", upTo(full, kMaxSmallCount, "dst.tiles_full_sync"));
  auto fullFp32 =
      r.integer("dst.tiles_full_sync_fp32", upTo(full, kMaxSmallCount, "dst.tiles_full_sync"));
  std::optional<int64_t> halfLimit = half;
  if (fullFp32 && (!half || *fullFp32 < *half)) halfLimit = fullFp32;
  auto halfFp32 =
      r.integer("dst.tiles_half_sync_fp32",
                upTo(halfLimit, kMaxSmallCount,
                     halfLimit == half ? "dst.tiles_half_sync" : "dst.tiles_full_sync_fp32"));
  assign(dst.tilesFullSync, full);
  assign(dst.tilesHalfSync, half);
  assign(dst.tilesFullSyncFp32, fullFp32);
  assign(dst.tilesHalfSyncFp32, halfFp32);
  dst.defaultFullSync = r.choice("dst.default_sync", {"half", "full"}).value_or("half") == "full";
}

int64_t* tileSlot(TileSizes& tiles, DataType type) {
  switch (type) {
  case DataType::BF16:
    return &tiles.bf16;
  case DataType::F32:
    return &tiles.f32;
  case DataType::F16:
    return &tiles.f16;
  case DataType::BFP8_B:
    return &tiles.bfp8_b;
  case DataType::BFP4_B:
    return &tiles.bfp4_b;
  case DataType::I32:
    return &tiles.i32;
  case DataType::U32:
    return &tiles.u32;
  }
  return &tiles.bf16;
}

void readTiles(Reader& r, TileSizes& tiles) {
  for (DataType type : kAllDataTypes) {
    std::string path = "tile_bytes." + std::string(toString(type));
    *tileSlot(tiles, type) = r.integer(path, {1, int64_t{1} << 20}).value_or(0);
  }
}

void readTransfers(Reader& r, Dram& dram, Noc& noc) {
  Range perCycle{1, 4097};
  assign(dram.banks, r.integer("dram.banks", {1, kMaxSmallCount}));
  std::optional<int64_t> peak = r.integer("dram.bandwidth_gb_per_s", {1, 1000000});
  assign(dram.bandwidthGBps, peak);
  assign(dram.measuredReadBytesPerCycle, r.integer("dram.measured_read_bytes_per_cycle", perCycle));
  assign(dram.measuredWriteBytesPerCycle,
         r.integer("dram.measured_write_bytes_per_cycle", perCycle));
  // At most the peak, when the peak is known (else only its own error is reported).
  if (r.peek("dram.measured_interleaved_gb_per_s"))
    dram.measuredInterleavedGBps =
        r.real("dram.measured_interleaved_gb_per_s", 1, peak ? double(*peak) : 1e6,
               peak ? "dram.bandwidth_gb_per_s" : "")
            .value_or(0);
  assign(noc.count, r.integer("noc.count", {1, 9}));
  assign(noc.linkBytesPerCycle, r.integer("noc.link_bytes_per_cycle", perCycle));
  assign(noc.maxPacketBytes, r.integer("noc.max_packet_bytes", {1, int64_t{1} << 24}));
  assign(noc.measuredMulticastBytesPerCycle,
         r.integer("noc.measured_multicast_bytes_per_cycle", perCycle));
  assign(noc.measuredMulticastLinkedBytesPerCycle,
         r.integer("noc.measured_multicast_linked_bytes_per_cycle", perCycle));
}

// More fidelity phases never cost fewer cycles, so each level is bounded below by the previous one.
FidelityCycles readFidelity(Reader& r, const std::string& path) {
  static const char* const kLevels[] = {"lofi", "hifi2", "hifi3", "hifi4"};
  int64_t values[4] = {};
  std::optional<int64_t> previous;
  std::string previousPath;
  for (int i = 0; i < 4; ++i) {
    std::string levelPath = path + "." + kLevels[i];
    Range range = previous ? Range{*previous, kMaxCycles, previousPath} : Range{1, kMaxCycles};
    previous = r.integer(levelPath, range);
    previousPath = levelPath;
    values[i] = previous.value_or(0);
  }
  return {values[0], values[1], values[2], values[3]};
}

void readCompute(Reader& r, ComputeCosts& compute) {
  Range cycles{1, kMaxCycles};
  compute.matmul = readFidelity(r, "compute.matmul_cycles_per_tile");
  assign(compute.eltwiseAddSub, r.integer("compute.eltwise_add_sub_cycles_per_tile", cycles));
  compute.eltwiseMul = readFidelity(r, "compute.eltwise_mul_cycles_per_tile");
  assign(compute.reduceMax, r.integer("compute.reduce_max_cycles_per_tile", cycles));
  compute.reduceSum = readFidelity(r, "compute.reduce_sum_cycles_per_tile");
  assign(compute.sfpuExp, r.integer("compute.sfpu_exp_cycles_per_tile", cycles));
}

void readKernel(Reader& r, KernelLimits& kernel) {
  assign(kernel.maxRuntimeArgs, r.integer("kernel.max_runtime_args", {1, 65536}));
  assign(kernel.semaphoresPerCore, r.integer("kernel.semaphores_per_core", {1, kMaxSmallCount}));
  assign(kernel.semaphoreBytes, r.integer("kernel.semaphore_bytes", {1, 65}));
}

// Every cost constant is a non-negative number; the efficiency is a fraction.
struct CostField {
  const char* path;
  double CostConstants::*member;
  double lo;
  double hi;
};
constexpr CostField kCostFields[] = {
    {"cost.matmul_fpu_efficiency", &CostConstants::matmulFpuEfficiency, 0.01, 1},
    {"cost.unpack_bytes_per_cycle", &CostConstants::unpackBytesPerCycle, 0.01, 4096},
    {"cost.unpack_cycles_per_tile", &CostConstants::unpackCyclesPerTile, 0, 1e6},
    {"cost.pack_bytes_per_cycle", &CostConstants::packBytesPerCycle, 0.01, 4096},
    {"cost.pack_cycles_per_tile", &CostConstants::packCyclesPerTile, 0, 1e6},
    {"cost.dst_round_cycles", &CostConstants::dstRoundCycles, 0, 1e6},
    {"cost.cb_sync_cycles", &CostConstants::cbSyncCycles, 0, 1e6},
    {"cost.noc_request_cycles", &CostConstants::nocRequestCycles, 0, 1e6},
    {"cost.dram_latency_cycles", &CostConstants::dramLatencyCycles, 0, 1e7},
    {"cost.noc_latency_cycles", &CostConstants::nocLatencyCycles, 0, 1e7},
    {"cost.launch_ns", &CostConstants::launchNs, 0, 1e9},
    {"cost.host_dispatch_ns", &CostConstants::hostDispatchNs, 0, 1e9},
};

void readCost(Reader& r, CostConstants& cost) {
  for (const CostField& field : kCostFields)
    cost.*field.member = r.real(field.path, field.lo, field.hi).value_or(0);
  if (r.peek("cost.rank_uncertainty"))
    cost.rankUncertainty = r.real("cost.rank_uncertainty", 0, 10).value_or(0);
  if (r.peek("cost.host_time_factor"))
    cost.hostTimeFactor = r.real("cost.host_time_factor", 1, 10).value_or(1);
}

json costJson(const CostConstants& cost) {
  json out = json::object();
  for (const CostField& field : kCostFields)
    out[std::string(field.path).substr(5)] = cost.*field.member;
  if (cost.rankUncertainty > 0) out["rank_uncertainty"] = cost.rankUncertainty;
  if (cost.hostTimeFactor != 1) out["host_time_factor"] = cost.hostTimeFactor;
  return out;
}

// Read last: a source must name a field or section that the reader has seen.
void readSources(Reader& r, std::map<std::string, std::string>& sources) {
  const json* value = r.peek("sources");
  if (!value) return;
  if (!value->is_object()) {
    r.problem("sources", "has type " + typeName(*value) + ", expected object");
    return;
  }
  for (auto it = value->begin(); it != value->end(); ++it) {
    if (!it->is_string())
      r.problem("sources",
                "has key '" + it.key() + "' of type " + typeName(*it) + ", expected string");
    else if (!r.isKnown(it.key()) || it.key() == "sources")
      r.problem("sources", "has key '" + it.key() + "' that names no field");
    else
      sources[it.key()] = it->get<std::string>();
  }
}

// Receives the position of a syntax error; nlohmann reports it here without throwing.
class SyntaxErrorFinder : public json::json_sax_t {
public:
  std::string message = "invalid JSON";

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // Drop the "[json.exception.parse_error.101] " prefix; the rest names line and column.
    std::string what = e.what();
    size_t end = what.find("] ");
    message = end == std::string::npos ? what : what.substr(end + 2);
    return false;
  }
};

std::string syntaxError(std::string_view text, std::string_view origin) {
  SyntaxErrorFinder finder;
  json::sax_parse(text, &finder);
  return std::string(origin) + ": JSON " + finder.message;
}

json shapeJson(const GridShape& shape) {
  return json::array({shape.rows, shape.columns});
}

json fidelityJson(const FidelityCycles& cycles) {
  return {{"lofi", cycles.lofi},
          {"hifi2", cycles.hifi2},
          {"hifi3", cycles.hifi3},
          {"hifi4", cycles.hifi4}};
}

json gridJson(const DeviceGrid& grid) {
  return {{"compute", shapeJson(grid.compute)},
          {"physical_tensix", shapeJson(grid.physicalTensix)},
          {"noc", shapeJson(grid.noc)},
          {"translated_rows", grid.translatedRows},
          {"translated_columns", grid.translatedColumns},
          {"harvesting", grid.harvesting}};
}

json tilesJson(const Device& d) {
  json tiles = json::object();
  for (DataType type : kAllDataTypes)
    tiles[std::string(toString(type))] = d.tileBytes(type);
  return tiles;
}

json dstJson(const DstRegister& dst) {
  return {{"tiles_full_sync", dst.tilesFullSync},
          {"tiles_half_sync", dst.tilesHalfSync},
          {"tiles_full_sync_fp32", dst.tilesFullSyncFp32},
          {"tiles_half_sync_fp32", dst.tilesHalfSyncFp32},
          {"default_sync", dst.defaultFullSync ? "full" : "half"}};
}

json dramJson(const Dram& dram) {
  json j = {{"banks", dram.banks},
            {"bandwidth_gb_per_s", dram.bandwidthGBps},
            {"measured_read_bytes_per_cycle", dram.measuredReadBytesPerCycle},
            {"measured_write_bytes_per_cycle", dram.measuredWriteBytesPerCycle}};
  if (dram.measuredInterleavedGBps > 0)
    j["measured_interleaved_gb_per_s"] = dram.measuredInterleavedGBps;
  return j;
}

json transfersJson(const Dram& dram, const Noc& noc) {
  return {
      {"dram", dramJson(dram)},
      {"noc",
       {{"count", noc.count},
        {"link_bytes_per_cycle", noc.linkBytesPerCycle},
        {"max_packet_bytes", noc.maxPacketBytes},
        {"measured_multicast_bytes_per_cycle", noc.measuredMulticastBytesPerCycle},
        {"measured_multicast_linked_bytes_per_cycle", noc.measuredMulticastLinkedBytesPerCycle}}}};
}

json computeJson(const ComputeCosts& compute) {
  return {{"matmul_cycles_per_tile", fidelityJson(compute.matmul)},
          {"eltwise_add_sub_cycles_per_tile", compute.eltwiseAddSub},
          {"eltwise_mul_cycles_per_tile", fidelityJson(compute.eltwiseMul)},
          {"reduce_max_cycles_per_tile", compute.reduceMax},
          {"reduce_sum_cycles_per_tile", fidelityJson(compute.reduceSum)},
          {"sfpu_exp_cycles_per_tile", compute.sfpuExp}};
}

// Plain-text table cells, padded so that every column lines up.
std::string alignColumns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

} // namespace

Expected<Device> parseDevice(std::string_view jsonText, std::string_view origin) {
  json root = json::parse(jsonText, nullptr, false);
  if (root.is_discarded()) return Error{syntaxError(jsonText, origin)};
  if (!root.is_object())
    return Error{std::string(origin) + ": the document has type " + typeName(root) +
                 ", expected object"};
  Reader r(root, origin);
  Device d;
  readHeader(r, d);
  readGrid(r, d.grid);
  readMemory(r, d);
  readDst(r, d.dst);
  readTiles(r, d.tiles);
  readTransfers(r, d.dram, d.noc);
  readCompute(r, d.compute);
  readKernel(r, d.kernel);
  readCost(r, d.cost);
  readSources(r, d.sources);
  std::vector<std::string> messages = r.finish();
  if (messages.empty()) return d;
  std::string joined;
  for (const std::string& line : messages)
    joined += (joined.empty() ? "" : "\n") + line;
  return Error{joined};
}

Expected<Device> loadDeviceFile(const std::string& path) {
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) return Error{"device file '" + path + "' does not exist"};
  if (std::filesystem::is_directory(status))
    return Error{"device file '" + path + "' is a directory"};
  Expected<std::string> text = readTextFile(path);
  if (!text) return Error{"device file: " + text.error().message};
  return parseDevice(*text, path);
}

Expected<Device> builtinDevice(std::string_view name) {
  for (const EmbeddedFile& file : embeddedDevices()) {
    if (file.name != name) continue;
    std::string origin = "ir/devices/" + std::string(name) + ".json";
    Expected<Device> device = parseDevice(file.text, origin);
    if (device && device->name != name)
      return Error{origin + ": field 'name' = \"" + device->name + "\" differs from the file name"};
    return device;
  }
  std::string known;
  for (const std::string& each : builtinDeviceNames())
    known += (known.empty() ? "" : ", ") + each;
  return Error{"unknown device '" + std::string(name) + "'; known devices: " + known};
}

std::vector<std::string> builtinDeviceNames() {
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embeddedDevices())
    names.emplace_back(file.name);
  std::sort(names.begin(), names.end());
  return names;
}

Status setComputeGrid(Device& device, int rows, int cols) {
  const DeviceGrid& g = device.grid;
  int maxRows = std::min<int>(g.physicalTensix.rows, int(g.translatedRows.size()));
  int maxCols = std::min<int>(g.physicalTensix.columns, int(g.translatedColumns.size()));
  if (rows < 1 || cols < 1 || rows > maxRows || cols > maxCols)
    return Error{"a " + std::to_string(rows) + "x" + std::to_string(cols) + " grid does not fit " +
                 device.name + ": at most " + std::to_string(maxRows) + "x" +
                 std::to_string(maxCols) + " (its Tensix grid is " +
                 std::to_string(g.physicalTensix.rows) + "x" +
                 std::to_string(g.physicalTensix.columns) + ", with translated coordinates for " +
                 std::to_string(g.translatedRows.size()) + "x" +
                 std::to_string(g.translatedColumns.size()) + ")"};
  device.grid.compute = {rows, cols};
  return Status::success();
}

json toJson(const Device& d) {
  json out = {{"schema_version", kDeviceSchemaVersion},
              {"name", d.name},
              {"arch", d.arch},
              {"notes", d.notes},
              {"chips", d.chips},
              {"clock_mhz", d.clockMhz},
              {"grid", gridJson(d.grid)},
              {"l1", {{"size_bytes", d.l1.sizeBytes}, {"unreserved_base", d.l1.unreservedBase}}},
              {"cb",
               {{"max_per_program", d.cb.maxPerProgram},
                {"address_alignment_bytes", d.cb.addressAlignment},
                {"config_word_bytes", d.cb.configWordBytes},
                {"size_multiple_of_page", d.cb.sizeMultipleOfPage}}},
              {"dst", dstJson(d.dst)},
              {"tile_bytes", tilesJson(d)},
              {"compute", computeJson(d.compute)},
              {"kernel",
               {{"max_runtime_args", d.kernel.maxRuntimeArgs},
                {"semaphores_per_core", d.kernel.semaphoresPerCore},
                {"semaphore_bytes", d.kernel.semaphoreBytes}}},
              {"cost", costJson(d.cost)},
              {"sources", d.sources}};
  out.update(transfersJson(d.dram, d.noc));
  return out;
}

std::string formatDeviceTable(const std::vector<Device>& devices) {
  std::vector<std::vector<std::string>> rows = {{"name", "chips", "grid", "cores", "L1 KiB",
                                                 "unreserved base", "CBs", "DST tiles half/full",
                                                 "clock MHz", "DRAM GB/s"}};
  for (const Device& d : devices) {
    const GridShape& grid = d.grid.compute;
    rows.push_back({d.name, std::to_string(d.chips),
                    std::to_string(grid.rows) + "x" + std::to_string(grid.columns),
                    std::to_string(grid.cores()), std::to_string(d.l1.sizeBytes / 1024),
                    std::to_string(d.l1.unreservedBase), std::to_string(d.cb.maxPerProgram),
                    std::to_string(d.dst.tilesHalfSync) + "/" + std::to_string(d.dst.tilesFullSync),
                    std::to_string(d.clockMhz), std::to_string(d.dram.bandwidthGBps)});
  }
  return alignColumns(rows);
}

} // namespace ttlplan::ir
