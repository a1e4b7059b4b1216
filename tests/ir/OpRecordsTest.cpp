// The op registry is the one record of a compute op: every op the compute thread may hold has a
// compute kind, a kernel API call and init, and a cost class (store: no cost of its own), and the
// independent checks have their own implementation of it: the reference interpreter a function
// (elementwise ops) or an executor, the emulator the API call with that init. A new op that
// misses one of them fails here, naming the op and what it lacks.
#include "ttlplan/ir/MetalApi.h"
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/reference/Interpret.h"
#include "ttlplan_emu_kernel.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <span>

namespace ttlplan::ir {
namespace {

std::vector<const OpDef*> computeOps() {
  std::vector<const OpDef*> out;
  for (const OpDef& def : registeredOps())
    if (def.placement == Placement::Compute) out.push_back(&def);
  return out;
}

TEST(OpRecords, EveryComputeOpHasItsKindApiCallAndCostClass) {
  ASSERT_GE(computeOps().size(), 20u);
  for (const OpDef* def : computeOps()) {
    SCOPED_TRACE(std::string(def->name));
    const ComputeDef& c = def->compute;
    EXPECT_NE(c.kind, ComputeKind::None) << "no compute kind";
    EXPECT_FALSE(c.apiFn.empty()) << "no kernel API call";
    EXPECT_NE(metal::lookupMetalApi(c.apiFn, metal::ApiSide::Compute), nullptr)
        << c.apiFn << " is not in the TT-Metalium API table (ir/MetalApi.cpp)";
    if (!c.apiInit.empty()) {
      EXPECT_NE(metal::lookupMetalApi(c.apiInit, metal::ApiSide::Compute), nullptr)
          << c.apiInit << " is not in the TT-Metalium API table (ir/MetalApi.cpp)";
    }
    if (c.kind == ComputeKind::Store) {
      EXPECT_EQ(c.cost, CostClass::None) << "a store's pack is priced apart";
      continue;
    }
    EXPECT_FALSE(c.apiInit.empty()) << "no init for " << c.apiFn;
    EXPECT_NE(c.cost, CostClass::None) << "no cost class";
    // Elementwise ops keep their operands' type, and their arity is their kind's.
    if (c.kind == ComputeKind::Unary || c.kind == ComputeKind::Copy) {
      EXPECT_EQ(def->numOperands, 1);
    }
    if (c.kind == ComputeKind::Binary) {
      EXPECT_EQ(def->numOperands, 2);
    }
  }
  // No op outside the compute thread claims a compute record.
  for (const OpDef& def : registeredOps()) {
    if (def.placement != Placement::Compute) {
      EXPECT_EQ(def.compute.kind, ComputeKind::None) << def.name;
    }
  }
}

TEST(OpRecords, TheReferenceInterpreterRunsEveryComputeOp) {
  for (const OpDef* def : computeOps()) {
    SCOPED_TRACE(std::string(def->name));
    EXPECT_TRUE(reference::supportsOp(def->name));
    if (def->compute.kind == ComputeKind::Unary) {
      EXPECT_NE(reference::unaryFunction(def->name), nullptr) << "no reference function";
    }
    if (def->compute.kind == ComputeKind::Binary) {
      EXPECT_NE(reference::binaryFunction(def->name), nullptr) << "no reference function";
    }
  }
  EXPECT_EQ(reference::unaryFunction("ttl.add"), nullptr);
  EXPECT_FALSE(reference::supportsOp("ttl.no_such_op"));
}

TEST(OpRecords, TheEmulatorImplementsEveryComputeOpsApiCall) {
  const std::vector<std::pair<std::string, std::string>> calls = emu::computeApiCalls();
  for (const OpDef* def : computeOps()) {
    const ComputeDef& c = def->compute;
    if (c.kind == ComputeKind::Store) continue; // pack_tile: no op kind, no init to track
    SCOPED_TRACE(std::string(def->name));
    const std::pair<std::string, std::string> call{std::string(c.apiFn), std::string(c.apiInit)};
    EXPECT_NE(std::find(calls.begin(), calls.end(), call), calls.end())
        << "the emulator has no " << c.apiFn << " with init " << c.apiInit;
  }
}

TEST(OpRecords, EveryFormatHasItsRecordInEnumOrder) {
  std::span<const AsmFormatDef> formats = registeredFormats();
  ASSERT_EQ(formats.size(), static_cast<size_t>(AsmFormat::ScfCondition) + 1); // the last one
  for (size_t i = 0; i < formats.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(formats[i].format), i) << "record " << i << " out of order";
    EXPECT_FALSE(formats[i].syntax.empty()) << "record " << i << " has no syntax";
    for (std::string_view name : formats[i].elided)
      EXPECT_FALSE(name.empty()) << formats[i].syntax;
  }
}

TEST(OpRecords, OnlyTileOpsCarryTileSyntax) {
  int special = 0;
  for (const OpDef& def : registeredOps()) {
    const TileSyntax& t = def.tile;
    bool any =
        t.valueFirst || t.valueAfter || t.indexedFirst || t.parenTypes || !t.attributes[0].empty();
    if (def.format != AsmFormat::IntoDst) {
      EXPECT_FALSE(any) << def.name << " is not a tile op";
    }
    special += any;
  }
  // tile_fill, tile_transpose, tile_bcast, tile_reduce, copy_tile and tile_mul_unary_const
  // (tt-lang's TTLOps.td).
  EXPECT_EQ(special, 6);
}

} // namespace
} // namespace ttlplan::ir
