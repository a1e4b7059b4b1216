#include "ttlplan/ir/Device.h"

#include "ttlplan/ir/DocumentReader.h"
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
using document::kNoLimit;

using document::Range;
using document::Reader;
using document::readSources;
using document::typeName;
using document::upTo;

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
  Expected<json> root = document::parseObject(jsonText, origin);
  if (!root) return root.error();
  Reader r(*root, origin);
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
  if (Status read = document::finish(r); !read) return read.error();
  return d;
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
  return document::builtin<Device>(embeddedDevices(), "ir/devices/", name, "device", parseDevice);
}

std::vector<std::string> builtinDeviceNames() {
  return embeddedNames(embeddedDevices());
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
