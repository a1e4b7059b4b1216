#pragma once
// Prices one fused compute chain (docs/cost-model.md, "Compute"): the three TRISCs run unpack,
// math and pack as a pipeline over the DST sub-block rounds the planner chose, so one round costs
// the slowest of the three plus the DST acquire/commit/release handshake.
//   math   = sum over ops of (tiles of the sub-block) x (cycles per tile of the op at the fidelity)
//            (matmul: h*w*K tile products, divided by the FPU efficiency)
//   unpack = tiles the round reads from CBs x (unpack cost per tile of its bytes)
//            (matmul: K*(h+w) tiles, the in0 column and in1 row of the sub-block)
//   pack   = h*w tiles per stored value x (pack cost per tile of its bytes)
// A matmul that spills partial sums (no packer L1 accumulation) also reloads them: h*w more
// tiles through the unpacker and a datacopy each through math, in that share of its runs.
#include "ttlplan/ir/Device.h"
#include "ttlplan/planner/dst/Problem.h"
#include "ttlplan/search/cost/Program.h"

#include <string>
#include <vector>

namespace ttlplan::search::cost {

/// Math fidelity phases: LoFi 1, HiFi2 2, HiFi3 3, HiFi4 4.
int fidelityPhases(const std::string& fidelity);

/// What pricing needs of one op of the chain, beyond the planner's dst::Op.
struct OpShape {
  int64_t inner = 1;          ///< matmul: K in tiles; reduce: tiles folded into each output tile
  int cbInputs = 0;           ///< operands the op unpacks from CBs (chain inputs)
  int64_t inputTileBytes = 0; ///< bytes of one tile of those operands
};

struct ComputeSettings {
  int fidelityPhases = 4;      ///< 1..4
  bool fp32DestAcc = false;    ///< fp32 accumulation (the packer writes fp32 partials)
  int64_t outputTileBytes = 0; ///< bytes of one tile the chain stores
  /// Share of the chain's runs that first reload partial sums from an intermediate CB (a matmul
  /// accumulating over K blocks without packer L1 accumulation: (K blocks - 1) / K blocks).
  double reloadShare = 0;
};

/// The cycles of one run of the chain over its whole block, split by engine.
ComputeBreakdown priceChain(const planner::dst::Problem& problem,
                            const planner::dst::Solution& solution,
                            const std::vector<OpShape>& shapes, const ComputeSettings& settings,
                            const ir::Device& device);

/// Cycles of one tile through the unpacker / the packer.
double unpackTileCycles(int64_t bytes, const ir::Device& device);
double packTileCycles(int64_t bytes, const ir::Device& device);

/// Ideal FPU cycles (tt-metal's definition: no efficiency, no overheads) of one run of the chain.
double idealMathCycles(const planner::dst::Problem& problem, const std::vector<OpShape>& shapes,
                       int fidelityPhases, const ir::Device& device);

} // namespace ttlplan::search::cost
