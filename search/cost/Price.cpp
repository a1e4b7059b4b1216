#include "ttlplan/search/cost/Price.h"

#include "ttlplan/ir/OpRegistry.h"

#include <algorithm>

namespace ttlplan::search::cost {

int fidelityPhases(const std::string& fidelity) {
  if (fidelity == "LoFi") return 1;
  if (fidelity == "HiFi2") return 2;
  if (fidelity == "HiFi3") return 3;
  return 4;
}

double unpackTileCycles(int64_t bytes, const ir::Device& device) {
  return device.cost.unpackCyclesPerTile + double(bytes) / device.cost.unpackBytesPerCycle;
}

double packTileCycles(int64_t bytes, const ir::Device& device) {
  return device.cost.packCyclesPerTile + double(bytes) / device.cost.packBytesPerCycle;
}

namespace {

using ir::ComputeKind;

// The op registry's compute record of a chain op.
const ir::ComputeDef& computeOf(const std::string& name) {
  static const ir::ComputeDef notCompute;
  const ir::OpDef* def = ir::lookupOp(name);
  return def ? def->compute : notCompute;
}

// Ideal cycles of the op on one output tile (matmul: one 32x32x32 product; reduce: one input tile).
double cyclesPerTile(const ir::ComputeDef& op, int phases, const ir::Device& device) {
  const ir::ComputeCosts& c = device.compute;
  switch (op.cost) {
  case ir::CostClass::Matmul:
    return double(c.matmul.forPhases(phases));
  case ir::CostClass::EltwiseAddSub:
    return double(c.eltwiseAddSub);
  case ir::CostClass::EltwiseMul:
    return double(c.eltwiseMul.forPhases(phases));
  case ir::CostClass::ReduceSum:
    return double(c.reduceSum.forPhases(phases));
  case ir::CostClass::ReduceMax:
    return double(c.reduceMax);
  case ir::CostClass::Sfpu:
    return double(c.sfpuExp); // exp is the one measured SFPU op
  case ir::CostClass::None:
    break;
  }
  // No compute record: an op lower-compute refuses (every registered compute op has a cost
  // class, tests/ir/OpRecordsTest.cpp); priced as an SFPU op so the plan still gets a number.
  return double(c.sfpuExp);
}

// Tile operations of `op` in one round of an h x w sub-block.
double tileOps(const ir::ComputeDef& op, const OpShape& shape, int64_t h, int64_t w) {
  double tiles = double(h * w);
  if (op.kind == ComputeKind::Matmul || op.kind == ComputeKind::Reduce)
    return tiles * double(std::max<int64_t>(1, shape.inner));
  return tiles;
}

// Tiles `op` reads from CBs in one round.
double unpackedTiles(const ir::ComputeDef& op, const OpShape& shape, int64_t h, int64_t w) {
  if (op.kind == ComputeKind::Matmul) return double(std::max<int64_t>(1, shape.inner) * (h + w));
  return tileOps(op, shape, h, w) * double(shape.cbInputs);
}

} // namespace

ComputeBreakdown priceChain(const planner::dst::Problem& problem,
                            const planner::dst::Solution& solution,
                            const std::vector<OpShape>& shapes, const ComputeSettings& settings,
                            const ir::Device& device) {
  ComputeBreakdown total;
  const auto& ops = problem.chain.ops;
  int64_t packBytes = settings.fp32DestAcc ? device.tiles.f32 : settings.outputTileBytes;
  for (const planner::dst::Segment& seg : solution.segments) {
    double math = 0, unpack = 0;
    for (size_t i = seg.firstOp; i < seg.endOp && i < ops.size(); ++i) {
      const ir::ComputeDef& op = computeOf(ops[i].name);
      const bool matmul = op.kind == ComputeKind::Matmul;
      const OpShape& shape = i < shapes.size() ? shapes[i] : OpShape{};
      double perTile = cyclesPerTile(op, settings.fidelityPhases, device);
      if (matmul) perTile /= device.cost.matmulFpuEfficiency;
      math += tileOps(op, shape, seg.subblockRows, seg.subblockCols) * perTile;
      unpack += unpackedTiles(op, shape, seg.subblockRows, seg.subblockCols) *
                unpackTileCycles(shape.inputTileBytes, device);
      if (matmul && settings.reloadShare > 0) {
        double tiles = settings.reloadShare * double(seg.subblockRows * seg.subblockCols);
        unpack += tiles * unpackTileCycles(packBytes, device);
        math += tiles * double(device.compute.eltwiseAddSub);
      }
    }
    // One stored value per segment end (a split packs its crossing values into CBs too).
    double pack = double(seg.subblockRows * seg.subblockCols) * packTileCycles(packBytes, device);
    double slowest = std::max({math, unpack, pack});
    double rounds = double(seg.rounds);
    total.math += rounds * (slowest == math ? math : 0);
    total.unpack += rounds * (slowest == unpack && slowest != math ? unpack : 0);
    total.pack += rounds * (slowest == pack && slowest != math && slowest != unpack ? pack : 0);
    total.overhead += rounds * device.cost.dstRoundCycles;
  }
  return total;
}

double idealMathCycles(const planner::dst::Problem& problem, const std::vector<OpShape>& shapes,
                       int fidelityPhases, const ir::Device& device) {
  double cycles = 0;
  const auto& ops = problem.chain.ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    const ir::ComputeDef& op = computeOf(ops[i].name);
    if (op.kind != ComputeKind::Matmul) continue;
    const OpShape& shape = i < shapes.size() ? shapes[i] : OpShape{};
    cycles += tileOps(op, shape, problem.chain.blockRows, problem.chain.blockCols) *
              cyclesPerTile(op, fidelityPhases, device);
  }
  return cycles;
}

} // namespace ttlplan::search::cost
