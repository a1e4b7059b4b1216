#include "ttlplan/ir/PtoDevice.h"

#include "ttlplan/ir/DocumentReader.h"
#include "ttlplan/ir/EmbeddedDevices.h"

#include <algorithm>
#include <bit>

namespace ttlplan::ir::pto {

namespace {

using document::json;
using document::Range;
using document::Reader;

constexpr int64_t kMaxBufferBytes = int64_t{1} << 30;

// pto-isa's TileType of each buffer (include/pto/common/memory.hpp).
constexpr std::string_view kTileTypes[] = {"Vec", "Mat", "Left", "Right", "Acc"};

void readBuffer(Reader& r, std::string_view name, std::string_view tileType, Buffer& buffer) {
  const std::string at = "buffers." + std::string(name);
  buffer.name = std::string(name);
  buffer.sizeBytes = r.integer(at + ".size_bytes", {1, kMaxBufferBytes + 1}).value_or(0);
  buffer.alignmentBytes = r.integer(at + ".alignment_bytes", {1, 4097}).value_or(0);
  if (buffer.alignmentBytes > 0 && !std::has_single_bit(uint64_t(buffer.alignmentBytes)))
    r.problem(at + ".alignment_bytes",
              "= " + std::to_string(buffer.alignmentBytes) + " is not a power of two");
  buffer.tileType = r.choice(at + ".tile_type", {std::string(tileType)}).value_or("");
  if (!r.peek(at + ".reserved")) return;
  std::optional<std::vector<int64_t>> range = r.list(at + ".reserved", 2, 2, [&](size_t) {
    return Range{0, buffer.sizeBytes + 1};
  });
  if (!range) return;
  int64_t start = (*range)[0], end = (*range)[1];
  if (start >= end)
    r.problem(at + ".reserved", "is empty: [start, end) needs start < end");
  else if (buffer.alignmentBytes > 0 && start % buffer.alignmentBytes != 0)
    r.problem(at + ".reserved",
              "starts at " + std::to_string(start) + ", not a multiple of alignment_bytes");
  else
    buffer.reserved = ReservedRange{start, end};
}

std::optional<CostModel> readCost(Reader& r) {
  if (!r.peek("cost")) return std::nullopt;
  CostModel c;
  auto positive = [&](const std::string& path) { return r.real(path, 1e-9, 1e12).value_or(0); };
  c.clockMhz = positive("cost.clock_mhz");
  c.gmToUb = positive("cost.bytes_per_cycle.gm_to_ub");
  c.gmToL1 = positive("cost.bytes_per_cycle.gm_to_l1");
  c.ubToGm = positive("cost.bytes_per_cycle.ub_to_gm");
  c.l0cToGm = positive("cost.bytes_per_cycle.l0c_to_gm");
  c.l1ToL0a = positive("cost.bytes_per_cycle.l1_to_l0a");
  c.l1ToL0b = positive("cost.bytes_per_cycle.l1_to_l0b");
  c.repeatBytes = r.integer("cost.vector.repeat_bytes", {1, 65537}).value_or(0);
  c.vectorHead = r.real("cost.vector.head_cycles", 0, 1e9).value_or(0);
  c.cyclesPerRepeat = positive("cost.vector.cycles_per_repeat");
  if (const json* each = r.peek("cost.vector.instruction_cycles_per_repeat");
      each && each->is_object())
    for (const auto& [name, value] : each->items())
      c.instructionCyclesPerRepeat[name] =
          positive("cost.vector.instruction_cycles_per_repeat." + name);
  c.rowReduceCyclesPerElement = positive("cost.row_reduce.cycles_per_element");
  c.rowReduceHead = r.real("cost.row_reduce.head_cycles", 0, 1e9).value_or(0);
  c.cubeHead = r.real("cost.cube.head_cycles", 0, 1e9).value_or(0);
  c.fractal = r.integer("cost.cube.fractal", {1, 1025}).value_or(0);
  return c;
}

} // namespace

const Buffer* Device::buffer(std::string_view name) const {
  auto it =
      std::find_if(buffers.begin(), buffers.end(), [&](const Buffer& b) { return b.name == name; });
  return it == buffers.end() ? nullptr : &*it;
}

Expected<Device> parseDevice(std::string_view jsonText, std::string_view origin) {
  Expected<json> root = document::parseObject(jsonText, origin);
  if (!root) return root.error();
  Reader r(*root, origin);
  Device d;
  (void)r.integer("schema_version", {1, 2});
  d.name = r.text("name").value_or("");
  d.arch = r.choice("arch", {"a2a3", "a5"}).value_or("");
  d.notes = r.text("notes").value_or("");
  for (size_t i = 0; i < std::size(kBufferNames); ++i) {
    d.buffers.emplace_back();
    readBuffer(r, kBufferNames[i], kTileTypes[i], d.buffers.back());
  }
  d.eventIdsPerPipePair = int(r.integer("events.ids_per_pipe_pair", {1, 65}).value_or(0));
  d.cubeCores = int(r.integer("cores.cube", {1, 1025}).value_or(0));
  d.vectorCores = int(r.integer("cores.vector", {1, 1025}).value_or(0));
  d.cost = readCost(r);
  document::readSources(r, d.sources);
  if (Status read = document::finish(r); !read) return read.error();
  return d;
}

Expected<Device> builtinDevice(std::string_view name) {
  return document::builtin<Device>(embeddedPtoDevices(), "ir/devices/pto/", name, "Ascend device",
                                   parseDevice);
}

std::vector<std::string> builtinDeviceNames() {
  return embeddedNames(embeddedPtoDevices());
}

} // namespace ttlplan::ir::pto
