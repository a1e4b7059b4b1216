#include "ttlplan/search/cost/Price.h"

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

// Ideal cycles of the op on one output tile (matmul: one 32x32x32 product; reduce: one input tile).
double cyclesPerTile(const std::string& name, int phases, const ir::Device& device) {
  const ir::ComputeCosts& c = device.compute;
  if (name == "ttl.matmul") return double(c.matmul.forPhases(phases));
  if (name == "ttl.add" || name == "ttl.sub" || name == "ttl.max" || name == "ttl.bcast")
    return double(c.eltwiseAddSub);
  if (name == "ttl.mul") return double(c.eltwiseMul.forPhases(phases));
  if (name == "ttl.reduce_sum") return double(c.reduceSum.forPhases(phases));
  if (name == "ttl.reduce_max") return double(c.reduceMax);
  return double(c.sfpuExp); // the unary SFPU ops: exp is the one measured cost
}

// Tile operations of `op` in one round of an h x w sub-block.
double tileOps(const std::string& name, const OpShape& shape, int64_t h, int64_t w) {
  double tiles = double(h * w);
  if (name == "ttl.matmul" || name == "ttl.reduce_sum" || name == "ttl.reduce_max")
    return tiles * double(std::max<int64_t>(1, shape.inner));
  return tiles;
}

// Tiles `op` reads from CBs in one round.
double unpackedTiles(const std::string& name, const OpShape& shape, int64_t h, int64_t w) {
  if (name == "ttl.matmul") return double(std::max<int64_t>(1, shape.inner) * (h + w));
  return tileOps(name, shape, h, w) * double(shape.cbInputs);
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
      const std::string& name = ops[i].name;
      const OpShape& shape = i < shapes.size() ? shapes[i] : OpShape{};
      double perTile = cyclesPerTile(name, settings.fidelityPhases, device);
      if (name == "ttl.matmul") perTile /= device.cost.matmulFpuEfficiency;
      math += tileOps(name, shape, seg.subblockRows, seg.subblockCols) * perTile;
      unpack += unpackedTiles(name, shape, seg.subblockRows, seg.subblockCols) *
                unpackTileCycles(shape.inputTileBytes, device);
      if (name == "ttl.matmul" && settings.reloadShare > 0) {
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
    if (ops[i].name != "ttl.matmul") continue;
    const OpShape& shape = i < shapes.size() ? shapes[i] : OpShape{};
    cycles += tileOps(ops[i].name, shape, problem.chain.blockRows, problem.chain.blockCols) *
              cyclesPerTile(ops[i].name, fidelityPhases, device);
  }
  return cycles;
}

} // namespace ttlplan::search::cost
