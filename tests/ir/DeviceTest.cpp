// Device descriptions: the builtin files against docs/hardware-facts.md (numbers typed here by
// hand, not read from the JSON), round trips through toJson, and one test per kind of error the
// loader must name.
#include "ttlplan/ir/Device.h"

#include "ttlplan/ir/EmbeddedDevices.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace ttlplan::ir {
namespace {

using nlohmann::json;

Device mustLoad(std::string_view name) {
  Expected<Device> device = builtinDevice(name);
  EXPECT_TRUE(device.ok()) << (device.ok() ? "" : device.error().message);
  return device.ok() ? *device : Device{};
}

json builtinJson(std::string_view name) {
  for (const EmbeddedFile& file : embeddedDevices())
    if (file.name == name) return json::parse(file.text);
  ADD_FAILURE() << "no embedded file " << name;
  return json::object();
}

// Parses `doc` as "my.json" and returns the error message ("" if it parsed).
std::string errorOf(const json& doc) {
  Expected<Device> device = parseDevice(doc.dump(), "my.json");
  return device.ok() ? "" : device.error().message;
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TEST(DeviceBuiltins, NamesAreSortedAndIncludeTheDefault) {
  std::vector<std::string> names = builtinDeviceNames();
  EXPECT_EQ(names, (std::vector<std::string>{"blackhole_p150", "blackhole_p150_140c", "wormhole_b0",
                                             "wormhole_n300"}));
  EXPECT_NE(std::find(names.begin(), names.end(), kDefaultDevice), names.end());
}

TEST(DeviceBuiltins, EveryBuiltinParsesAndRoundTrips) {
  for (const std::string& name : builtinDeviceNames()) {
    SCOPED_TRACE(name);
    Device device = mustLoad(name);
    EXPECT_EQ(device.name, name);
    EXPECT_FALSE(device.sources.empty());
    Expected<Device> again = parseDevice(toJson(device).dump(2), "roundtrip.json");
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(*again, device);
  }
}

TEST(DeviceBuiltins, UnknownNameListsTheKnownOnes) {
  Expected<Device> device = builtinDevice("grayskull");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().message.find("unknown device 'grayskull'"), std::string::npos);
  EXPECT_NE(device.error().message.find(
                "blackhole_p150, blackhole_p150_140c, wormhole_b0, wormhole_n300"),
            std::string::npos);
}

// docs/hardware-facts.md, Wormhole B0 column.
TEST(DeviceFacts, WormholeB0) {
  Device wh = mustLoad("wormhole_b0");
  EXPECT_EQ(wh.arch, "wormhole_b0");
  EXPECT_EQ(wh.chips, 1);
  EXPECT_EQ(wh.grid.compute, (GridShape{8, 8}));
  EXPECT_EQ(wh.grid.compute.cores(), 64);
  EXPECT_EQ(wh.grid.physicalTensix, (GridShape{10, 8}));
  EXPECT_EQ(wh.grid.noc, (GridShape{12, 10}));
  EXPECT_EQ(wh.grid.translatedRows.front(), 18);
  EXPECT_EQ(wh.grid.translatedColumns.front(), 18);
  EXPECT_EQ(wh.grid.translatedColumns[7], 25);
  EXPECT_EQ(wh.l1.sizeBytes, 1499136);
  EXPECT_EQ(wh.l1.unreservedBase, 103712);
  EXPECT_EQ(wh.freeL1Bytes(), 1499136 - 103712);
  EXPECT_EQ(wh.cb.maxPerProgram, 32);
  // TT-Metalium aligns each CB to its allocator's DRAM alignment (tt-metal program.cpp,
  // noc_parameters.h DRAM_ALIGNMENT): 32 on Wormhole.
  EXPECT_EQ(wh.cb.addressAlignment, 32);
  EXPECT_EQ(wh.cb.configWordBytes, 16);
  EXPECT_TRUE(wh.cb.sizeMultipleOfPage);
  EXPECT_EQ(wh.dram.banks, 12);
  EXPECT_EQ(wh.dram.bandwidthGBps, 288);
  EXPECT_EQ(wh.clockMhz, 1000);
  EXPECT_EQ(wh.noc.count, 2);
  EXPECT_EQ(wh.noc.linkBytesPerCycle, 32);
  EXPECT_EQ(wh.noc.maxPacketBytes, 8192);
  EXPECT_EQ(wh.dram.measuredReadBytesPerCycle, 22);
  EXPECT_EQ(wh.dram.measuredWriteBytesPerCycle, 21);
  // tt-metal test_dram_bandwidth.py: 40 MiB read by the 8x8 grid in 195.3 us.
  EXPECT_DOUBLE_EQ(wh.dram.measuredInterleavedGBps, 214.7);
  EXPECT_EQ(wh.noc.measuredMulticastBytesPerCycle, 15);
  EXPECT_EQ(wh.noc.measuredMulticastLinkedBytesPerCycle, 22);
  EXPECT_EQ(wh.kernel.semaphoresPerCore, 16);
  EXPECT_EQ(wh.kernel.semaphoreBytes, 4);
  // tt-metal's kernel_types.hpp: max_runtime_args = 341 (unique + common).
  EXPECT_EQ(wh.kernel.maxRuntimeArgs, 341);
}

// docs/hardware-facts.md, Blackhole (p150) column.
TEST(DeviceFacts, BlackholeP150) {
  Device bh = mustLoad("blackhole_p150");
  EXPECT_EQ(bh.arch, "blackhole");
  EXPECT_EQ(bh.grid.compute, (GridShape{10, 11}));
  EXPECT_EQ(bh.grid.physicalTensix, (GridShape{10, 14}));
  EXPECT_EQ(bh.grid.noc, (GridShape{12, 17}));
  EXPECT_EQ(bh.grid.translatedRows.front(), 2);
  EXPECT_EQ(bh.grid.translatedColumns.front(), 1);
  EXPECT_EQ(bh.grid.translatedColumns[7], 10); // NoC columns 8 and 9 hold no Tensix cores
  EXPECT_EQ(bh.l1.sizeBytes, 1572864);
  EXPECT_EQ(bh.l1.unreservedBase, 111360);
  EXPECT_EQ(bh.cb.maxPerProgram, 64);
  EXPECT_EQ(bh.cb.addressAlignment, 64); // Blackhole's DRAM_ALIGNMENT
  EXPECT_EQ(bh.dram.banks, 8);
  EXPECT_EQ(bh.dram.bandwidthGBps, 512);
  EXPECT_EQ(bh.clockMhz, 1350);
  EXPECT_EQ(bh.noc.linkBytesPerCycle, 64);
  EXPECT_EQ(bh.noc.maxPacketBytes, 16384);
  EXPECT_EQ(bh.dram.measuredReadBytesPerCycle, 33);
  EXPECT_EQ(bh.dram.measuredWriteBytesPerCycle, 34);
  EXPECT_EQ(bh.dram.measuredInterleavedGBps, 0); // not measured: the model takes the peak
  EXPECT_EQ(bh.noc.measuredMulticastBytesPerCycle, 24);
  EXPECT_EQ(bh.noc.measuredMulticastLinkedBytesPerCycle, 41);
}

// The 140-core firmware's p150 (the grid of tt-metal's GEMM_FLOPS P150 tables, 13 x 10): no column
// harvested, one for dispatch. Only the grid (and the words about it) differs from blackhole_p150.
TEST(DeviceFacts, BlackholeP150On140CoreFirmware) {
  Device bh = mustLoad("blackhole_p150_140c");
  EXPECT_EQ(bh.arch, "blackhole");
  EXPECT_EQ(bh.grid.compute, (GridShape{10, 13}));
  EXPECT_EQ(bh.grid.compute.cores(), 130);
  EXPECT_EQ(bh.grid.physicalTensix, (GridShape{10, 14}));
  // Translated columns are NoC0 columns (nothing harvested): 1..7, then 10..16 past DRAM/ARC/L2CPU.
  const std::vector<int>& columns = bh.grid.translatedColumns;
  ASSERT_GE(columns.size(), 13u);
  for (size_t i = 1; i < columns.size(); ++i)
    EXPECT_LT(columns[i - 1], columns[i]) << "translated column " << i;
  EXPECT_EQ(columns.front(), 1);
  EXPECT_EQ(columns[6], 7);
  EXPECT_EQ(columns[7], 10);  // NoC columns 8 and 9 hold no Tensix cores
  EXPECT_EQ(columns[12], 15); // the last compute column; 16 runs dispatch
  EXPECT_EQ(bh.grid.translatedRows, mustLoad("blackhole_p150").grid.translatedRows);

  json p140 = builtinJson("blackhole_p150_140c");
  json p120 = builtinJson("blackhole_p150");
  EXPECT_EQ(p140["name"].get<std::string>(), "blackhole_p150_140c");
  for (const char* key : {"name", "grid", "notes", "sources"}) {
    p140.erase(key);
    p120.erase(key);
  }
  EXPECT_EQ(p140, p120) << "fields differ besides grid, notes and sources:\n"
                        << json::diff(p120, p140).dump(2);
}

// An n300 chip is an n150 chip with one more harvested row: per-chip numbers match.
TEST(DeviceFacts, N300IsTwoWormholeChips) {
  Device n150 = mustLoad("wormhole_b0");
  Device n300 = mustLoad("wormhole_n300");
  EXPECT_EQ(n300.chips, 2);
  EXPECT_EQ(n300.grid.compute, (GridShape{7, 8}));
  EXPECT_EQ(n300.l1, n150.l1);
  EXPECT_EQ(n300.cb, n150.cb);
  EXPECT_EQ(n300.dst, n150.dst);
  EXPECT_EQ(n300.dram, n150.dram);
  EXPECT_EQ(n300.noc, n150.noc);
  EXPECT_EQ(n300.compute, n150.compute);
  EXPECT_EQ(n300.clockMhz, n150.clockMhz);
}

TEST(DeviceFacts, TileBytesOfEveryType) {
  for (const std::string& name : builtinDeviceNames()) {
    SCOPED_TRACE(name);
    Device device = mustLoad(name);
    EXPECT_EQ(device.tileBytes(DataType::BF16), 2048);
    EXPECT_EQ(device.tileBytes(DataType::F32), 4096);
    EXPECT_EQ(device.tileBytes(DataType::F16), 2048);
    EXPECT_EQ(device.tileBytes(DataType::BFP8_B), 1088);
    EXPECT_EQ(device.tileBytes(DataType::BFP4_B), 576);
    EXPECT_EQ(device.tileBytes(DataType::I32), 4096);
    EXPECT_EQ(device.tileBytes(DataType::U32), 4096);
  }
}

TEST(DeviceFacts, DstCapacityAndDefaultSync) {
  for (const std::string& name : builtinDeviceNames()) {
    SCOPED_TRACE(name);
    Device device = mustLoad(name);
    EXPECT_EQ(device.dstCapacityTiles(/*fullSync=*/true, /*fp32Accumulation=*/false), 16);
    EXPECT_EQ(device.dstCapacityTiles(false, false), 8);
    EXPECT_EQ(device.dstCapacityTiles(true, true), 8);
    EXPECT_EQ(device.dstCapacityTiles(false, true), 4);
    EXPECT_FALSE(device.dst.defaultFullSync);
  }
}

TEST(DeviceFacts, ComputeCyclesPerTile) {
  Device wh = mustLoad("wormhole_b0");
  EXPECT_EQ(wh.compute.matmul.forPhases(1), 16);
  EXPECT_EQ(wh.compute.matmul.forPhases(2), 32);
  EXPECT_EQ(wh.compute.matmul.forPhases(3), 48);
  EXPECT_EQ(wh.compute.matmul.forPhases(4), 64);
  EXPECT_EQ(wh.compute.eltwiseAddSub, 8);
  EXPECT_EQ(wh.compute.eltwiseMul.hifi4, 32);
  EXPECT_EQ(wh.compute.reduceMax, 4); // 16x16 per cycle
  EXPECT_EQ(wh.compute.reduceSum.hifi2, 8);
  EXPECT_EQ(wh.compute.sfpuExp, 70);
}

TEST(DeviceFacts, ShippedFileOnDiskMatchesTheEmbeddedCopy) {
  Expected<Device> disk = loadDeviceFile(TTLPLAN_SOURCE_DIR "/ir/devices/wormhole_b0.json");
  ASSERT_TRUE(disk.ok()) << disk.error().message;
  EXPECT_EQ(*disk, mustLoad("wormhole_b0"));
}

TEST(DeviceErrors, MissingFieldIsNamed) {
  json doc = builtinJson("wormhole_b0");
  doc["l1"].erase("unreserved_base");
  EXPECT_EQ(errorOf(doc), "my.json: field 'l1.unreserved_base' is missing");
}

TEST(DeviceErrors, EveryMissingFieldIsReportedOnItsOwnLine) {
  json doc = builtinJson("wormhole_b0");
  doc["l1"].erase("unreserved_base");
  doc["tile_bytes"].erase("bfp4_b");
  doc.erase("kernel");
  std::vector<std::string> lines = linesOf(errorOf(doc));
  EXPECT_EQ(lines, (std::vector<std::string>{"my.json: field 'l1.unreserved_base' is missing",
                                             "my.json: field 'tile_bytes.bfp4_b' is missing",
                                             "my.json: field 'kernel' is missing (needs "
                                             "max_runtime_args, semaphores_per_core, "
                                             "semaphore_bytes)"}));
}

TEST(DeviceErrors, WrongTypesAreNamed) {
  json doc = builtinJson("wormhole_b0");
  doc["l1"]["size_bytes"] = "big";
  doc["dst"]["tiles_half_sync"] = 7.5;
  doc["grid"]["compute"] = {8, "8"};
  doc["cb"] = 32;
  std::vector<std::string> lines = linesOf(errorOf(doc));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "my.json: field 'grid.compute[1]' has type string, expected integer",
                       "my.json: field 'l1.size_bytes' has type string, expected integer",
                       "my.json: field 'cb' has type number, expected object",
                       "my.json: field 'dst.tiles_half_sync' has type float, expected integer"}));
}

TEST(DeviceErrors, OutOfRangeValuesAreNamedWithTheRange) {
  json doc = builtinJson("wormhole_b0");
  doc["l1"]["unreserved_base"] = 2000000;
  EXPECT_EQ(errorOf(doc),
            "my.json: field 'l1.unreserved_base' = 2000000 is out of range [0, 1499136)");
}

TEST(DeviceErrors, MeasuredInterleavedBandwidthIsOptionalAndAtMostThePeak) {
  json doc = builtinJson("wormhole_b0");
  doc["dram"].erase("measured_interleaved_gb_per_s");
  EXPECT_EQ(errorOf(doc), "");
  doc["dram"]["measured_interleaved_gb_per_s"] = 300.5;
  EXPECT_EQ(errorOf(doc), "my.json: field 'dram.measured_interleaved_gb_per_s' = 300.5 is out of "
                          "range [1.0, 288.0] (limited by dram.bandwidth_gb_per_s)");
  doc["dram"]["measured_interleaved_gb_per_s"] = "fast";
  EXPECT_NE(errorOf(doc).find("dram.measured_interleaved_gb_per_s"), std::string::npos);
  // Without a peak only the peak is reported: the measured rate is not checked against 0.
  doc["dram"]["measured_interleaved_gb_per_s"] = 214.7;
  doc["dram"].erase("bandwidth_gb_per_s");
  std::string error = errorOf(doc);
  EXPECT_NE(error.find("dram.bandwidth_gb_per_s"), std::string::npos) << error;
  EXPECT_EQ(error.find("measured_interleaved"), std::string::npos) << error;
}

TEST(DeviceErrors, RankUncertaintyIsOptionalAndInRange) {
  json doc = builtinJson("blackhole_p150");
  EXPECT_EQ(mustLoad("blackhole_p150").cost.rankUncertainty, 0.188);
  doc["cost"].erase("rank_uncertainty");
  doc["sources"].erase("cost.rank_uncertainty");
  EXPECT_EQ(errorOf(doc), "");
  EXPECT_EQ(parseDevice(doc.dump(), "my.json")->cost.rankUncertainty, 0);
  // Absent stays absent when written back (0 is not written).
  EXPECT_FALSE(toJson(*parseDevice(doc.dump(), "my.json"))["cost"].contains("rank_uncertainty"));
  doc["cost"]["rank_uncertainty"] = -0.1;
  EXPECT_NE(errorOf(doc).find("field 'cost.rank_uncertainty' = -0.1 is out of range"),
            std::string::npos)
      << errorOf(doc);
}

TEST(DeviceErrors, CrossFieldLimits) {
  json doc = builtinJson("wormhole_b0");
  doc["grid"]["compute"] = {11, 8};
  doc["cb"]["address_alignment_bytes"] = 24;
  doc["dst"]["tiles_half_sync"] = 32;
  doc["compute"]["matmul_cycles_per_tile"]["hifi2"] = 10;
  std::string error = errorOf(doc);
  EXPECT_NE(error.find("field 'grid.compute[0]' = 11 is out of range [1, 11) (limited by "
                       "grid.physical_tensix)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("field 'cb.address_alignment_bytes' = 24 is not a power of two"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("field 'dst.tiles_half_sync' = 32 is out of range [1, 17)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("field 'compute.matmul_cycles_per_tile.hifi2' = 10 is out of range [16, "),
            std::string::npos)
      << error;
  EXPECT_EQ(linesOf(error).size(), 4u) << error;
}

TEST(DeviceErrors, UnalignedUnreservedBase) {
  json doc = builtinJson("blackhole_p150");
  doc["l1"]["unreserved_base"] = 111368;
  EXPECT_EQ(errorOf(doc), "my.json: field 'l1.unreserved_base' = 111368 is not a multiple of "
                          "cb.address_alignment_bytes (64)");
}

TEST(DeviceErrors, TranslatedCoordinatesCoverTheGridInOrder) {
  json doc = builtinJson("wormhole_b0");
  doc["grid"]["translated_rows"] = {18, 19, 20};
  doc["grid"]["translated_columns"] = {18, 19, 20, 21, 22, 23, 25, 24};
  std::vector<std::string> lines = linesOf(errorOf(doc));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "my.json: field 'grid.translated_rows' has 3 elements, expected at least 8",
                       "my.json: field 'grid.translated_columns' is not strictly increasing"}));
}

TEST(DeviceErrors, UnknownFieldsAreNamed) {
  json doc = builtinJson("wormhole_b0");
  doc["l1"]["sise_bytes"] = 5;
  doc["colour"] = "red";
  doc["sources"]["l1.sise_bytes"] = "a typo";
  std::vector<std::string> lines = linesOf(errorOf(doc));
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "my.json: field 'sources' has key 'l1.sise_bytes' that names no field",
                "my.json: unknown field 'colour'", "my.json: unknown field 'l1.sise_bytes'"}));
}

TEST(DeviceErrors, BadChoices) {
  json doc = builtinJson("wormhole_b0");
  doc["arch"] = "grayskull";
  doc["dst"]["default_sync"] = "quarter";
  doc["schema_version"] = 2;
  std::vector<std::string> lines = linesOf(errorOf(doc));
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "my.json: field 'schema_version' = 2 is out of range [1, 2)",
                "my.json: field 'arch' = \"grayskull\" is not one of wormhole_b0, blackhole",
                "my.json: field 'dst.default_sync' = \"quarter\" is not one of half, full"}));
}

TEST(DeviceErrors, NotesAndSourcesAreOptional) {
  json doc = builtinJson("blackhole_p150");
  doc.erase("notes");
  doc.erase("sources");
  Expected<Device> device = parseDevice(doc.dump(), "custom.json");
  ASSERT_TRUE(device.ok()) << device.error().message;
  EXPECT_TRUE(device->sources.empty());
  EXPECT_EQ(device->grid.compute, (GridShape{10, 11}));
}

TEST(DeviceErrors, BrokenJsonGivesOneLineWithThePosition) {
  Expected<Device> device = parseDevice("{\n  \"name\": \"x\",\n  \"chips\": ,\n}", "my.json");
  ASSERT_FALSE(device.ok());
  const std::string& message = device.error().message;
  EXPECT_EQ(message.rfind("my.json: JSON parse error at line 3, column", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(DeviceErrors, DocumentMustBeAnObject) {
  Expected<Device> device = parseDevice("[1, 2]", "my.json");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message, "my.json: the document has type array, expected object");
}

TEST(DeviceFiles, MissingFileFailsCleanly) {
  Expected<Device> device = loadDeviceFile("/nonexistent/dir/my_device.json");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message, "device file '/nonexistent/dir/my_device.json' does not exist");
}

TEST(DeviceFiles, CustomFileLoadsAndErrorsNameIt) {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ttlplan_device_test_" + std::to_string(getpid()));
  json doc = builtinJson("wormhole_b0");
  doc["name"] = "my_board";
  doc["grid"]["compute"] = {8, 7};
  std::ofstream(path) << doc.dump(2);
  Expected<Device> device = loadDeviceFile(path.string());
  ASSERT_TRUE(device.ok()) << device.error().message;
  EXPECT_EQ(device->name, "my_board");
  EXPECT_EQ(device->grid.compute.cores(), 56);

  doc["chips"] = 0;
  std::ofstream(path) << doc.dump(2);
  Expected<Device> bad = loadDeviceFile(path.string());
  std::filesystem::remove(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, path.string() + ": field 'chips' = 0 is out of range [1, 65)");
}

TEST(DeviceTable, OneAlignedRowPerDevice) {
  std::vector<Device> devices;
  for (const std::string& name : builtinDeviceNames())
    devices.push_back(mustLoad(name));
  std::vector<std::string> lines = linesOf(formatDeviceTable(devices));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].rfind("name", 0), 0u);
  EXPECT_NE(lines[2].find("blackhole_p150_140c"), std::string::npos);
  EXPECT_NE(lines[3].find("wormhole_b0"), std::string::npos);
  // Columns line up: each row's grid and L1 cells start where their headers do.
  size_t gridColumn = lines[0].find("grid");
  size_t l1Column = lines[0].find("L1 KiB");
  EXPECT_EQ(lines[1].find("10x11"), gridColumn);
  EXPECT_EQ(lines[1].find("1536"), l1Column);
  EXPECT_EQ(lines[2].find("10x13"), gridColumn);
  EXPECT_EQ(lines[2].find("1536"), l1Column);
  EXPECT_EQ(lines[3].find("8x8"), gridColumn);
  EXPECT_EQ(lines[3].find("1464"), l1Column);
  EXPECT_NE(lines[3].find("8/16"), std::string::npos);
  EXPECT_EQ(lines[4].find("7x8"), gridColumn);
}

} // namespace
} // namespace ttlplan::ir
