// The Ascend descriptions of the pto-isa target (ir/devices/pto/): the built-in ones hold
// pto-isa's numbers, checked here against the values written out by hand from hw-native-sys/pto-isa
// include/pto/common/buffer_limits.hpp, constants.hpp and event.hpp (docs/pto-facts.md); a broken
// description names each bad field.
#include "ttlplan/ir/PtoDevice.h"

#include "ttlplan/ir/EmbeddedDevices.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ttlplan::ir::pto {
namespace {

using nlohmann::json;

json builtinJson(std::string_view name) {
  for (const EmbeddedFile& file : embeddedPtoDevices())
    if (file.name == name) return json::parse(file.text);
  ADD_FAILURE() << "no built-in " << name;
  return json::object();
}

std::string errorOf(const json& doc) {
  Expected<Device> d = parseDevice(doc.dump(), "my.json");
  return d ? std::string("(parsed)") : d.error().message;
}

TEST(PtoDeviceFacts, BuiltinsAreTheTwoGenerations) {
  EXPECT_EQ(builtinDeviceNames(), (std::vector<std::string>{"ascend_a2a3", "ascend_a5"}));
  Expected<Device> unknown = builtinDevice("ascend_910");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message,
            "unknown Ascend device 'ascend_910'; known Ascend devices: ascend_a2a3, ascend_a5");
}

TEST(PtoDeviceFacts, A2A3) {
  Expected<Device> d = builtinDevice("ascend_a2a3");
  ASSERT_TRUE(d) << d.error().message;
  const int64_t KiB = 1024;
  // buffer_limits.hpp under PTO_NPU_ARCH_A2A3: UB 192 KiB, L1 512, L0A 64, L0B 64, L0C 128.
  EXPECT_EQ(d->buffer("ub")->sizeBytes, 192 * KiB);
  EXPECT_EQ(d->buffer("l1")->sizeBytes, 512 * KiB);
  EXPECT_EQ(d->buffer("l0a")->sizeBytes, 64 * KiB);
  EXPECT_EQ(d->buffer("l0b")->sizeBytes, 64 * KiB);
  EXPECT_EQ(d->buffer("l0c")->sizeBytes, 128 * KiB);
  for (const Buffer& b : d->buffers)
    EXPECT_EQ(b.alignmentBytes, 32) << b.name;
  // constants.hpp: TMP_UB_OFFSET 184 KiB, TMP_UB_SIZE 8 KiB.
  ASSERT_TRUE(d->buffer("ub")->reserved);
  EXPECT_EQ(d->buffer("ub")->reserved->start, 184 * KiB);
  EXPECT_EQ(d->buffer("ub")->reserved->end, 192 * KiB);
  EXPECT_FALSE(d->buffer("l1")->reserved);
  EXPECT_EQ(d->eventIdsPerPipePair, 8); // event.hpp: EVENT_ID_MAX 8
  EXPECT_EQ(d->buffer("ub")->tileType, "Vec");
  EXPECT_EQ(d->buffer("l0c")->tileType, "Acc");
  EXPECT_EQ(d->buffer("l2"), nullptr);
}

TEST(PtoDeviceFacts, A5HasTheLargerUbAndL0c) {
  Expected<Device> d = builtinDevice("ascend_a5");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->buffer("ub")->sizeBytes, 256 * 1024);
  EXPECT_EQ(d->buffer("l0c")->sizeBytes, 256 * 1024);
  EXPECT_FALSE(d->buffer("ub")->reserved);
  EXPECT_EQ(d->cubeCores, 32);
  EXPECT_EQ(d->vectorCores, 64);
}

TEST(PtoDeviceErrors, EachBadFieldIsNamed) {
  json doc = builtinJson("ascend_a2a3");
  doc["buffers"]["l0b"].erase("size_bytes");
  doc["buffers"]["l1"]["alignment_bytes"] = 24;
  doc["buffers"]["ub"]["reserved"] = {196608, 188416};
  doc["buffers"]["l0a"]["tile_type"] = "Vec";
  doc["events"]["ids_per_pipe_pair"] = 0;
  doc["cores"]["tensix"] = 64;
  std::string error = errorOf(doc);
  for (const char* expected :
       {"my.json: field 'buffers.l0b.size_bytes' is missing",
        "my.json: field 'buffers.l1.alignment_bytes' = 24 is not a power of two",
        "my.json: field 'buffers.ub.reserved' is empty: [start, end) needs start < end",
        "my.json: field 'buffers.l0a.tile_type'", "my.json: field 'events.ids_per_pipe_pair' = 0",
        "cores.tensix"})
    EXPECT_NE(error.find(expected), std::string::npos) << expected << "\nin:\n" << error;
}

// The cost section (search/cost/pto/Model.h): A2/A3 has pto-isa's numbers, A5 none (pto-isa
// has no A5 transfer or cube costs), and its fields are checked like the others.
TEST(PtoDeviceFacts, OnlyA2A3HasCostNumbers) {
  Expected<Device> a2a3 = builtinDevice("ascend_a2a3");
  ASSERT_TRUE(a2a3) << a2a3.error().message;
  ASSERT_TRUE(a2a3->cost);
  EXPECT_EQ(a2a3->cost->clockMhz, 1850);
  EXPECT_EQ(a2a3->cost->gmToUb, 58.6);
  EXPECT_EQ(a2a3->cost->repeatBytes, 256);
  EXPECT_EQ(a2a3->cost->instructionCyclesPerRepeat.at("TDIV"), 4);
  EXPECT_EQ(a2a3->cost->fractal, 16);
  Expected<Device> a5 = builtinDevice("ascend_a5");
  ASSERT_TRUE(a5) << a5.error().message;
  EXPECT_FALSE(a5->cost);
}

TEST(PtoDeviceErrors, CostFieldsAreChecked) {
  json doc = builtinJson("ascend_a2a3");
  doc["cost"]["bytes_per_cycle"]["gm_to_ub"] = 0;
  doc["cost"]["vector"]["instruction_cycles_per_repeat"]["TEXP"] = -2;
  doc["cost"]["cube"].erase("fractal");
  std::string error = errorOf(doc);
  for (const char* expected :
       {"cost.bytes_per_cycle.gm_to_ub", "cost.vector.instruction_cycles_per_repeat.TEXP",
        "field 'cost.cube.fractal' is missing"})
    EXPECT_NE(error.find(expected), std::string::npos) << expected << "\nin:\n" << error;
}

TEST(PtoDeviceErrors, ReservedRangeOutsideTheBufferOrUnaligned) {
  json doc = builtinJson("ascend_a2a3");
  doc["buffers"]["ub"]["reserved"] = {188416, 300000};
  EXPECT_NE(errorOf(doc).find("buffers.ub.reserved"), std::string::npos) << errorOf(doc);
  doc["buffers"]["ub"]["reserved"] = {188417, 196608};
  EXPECT_NE(errorOf(doc).find("not a multiple of alignment_bytes"), std::string::npos)
      << errorOf(doc);
  EXPECT_NE(errorOf(json::array()).find("expected object"), std::string::npos);
  Expected<Device> broken = parseDevice("{\"name\": ", "my.json");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().message.rfind("my.json: JSON ", 0), 0u) << broken.error().message;
}

} // namespace
} // namespace ttlplan::ir::pto
