#pragma once
// The cost Program of ttnn's multicast matmul kernels for a given program config, built directly
// (docs/cost-model.md, "Calibration"): the same reader / compute / writer structure as
// examples/matmul_mcast_2d.ttl, with the blocks, loops and multicast nets that
// MatmulMultiCoreReuseMultiCast(1D)ProgramConfig sets up. bench/cost_calibration uses it to price
// measured tt-metal runs whose configs are known.
#include "ttlplan/ir/Device.h"
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"
#include "ttlplan/search/cost/Program.h"
#include "ttlplan/support/Expected.h"

#include <string>

namespace ttlplan::search::cost {

struct MatmulRun {
  baselines::MatmulProblem problem; ///< shape, tile bytes, fp32 accumulation, device grid
  baselines::MatmulConfig config;   ///< family and knobs (tiles)
  std::string fidelity = "HiFi4";   ///< LoFi, HiFi2, HiFi3, HiFi4
  bool in0InL1 = false;             ///< in0 already in L1 (sharded): no DRAM reads of A
  bool outInL1 = false;             ///< output stays in L1: no DRAM writes
  bool packerL1Acc = false;         ///< partial sums accumulate in L1 (else spilled and reloaded)
};

/// The Program of `run`. Errors: a family without a model (MultiCore), knobs that do not divide
/// (out blocks into per-core blocks, sub-blocks into out blocks, in0_block_w into K), or a grid
/// larger than the problem's.
Expected<Program> matmulProgram(const MatmulRun& run, const ir::Device& device);

} // namespace ttlplan::search::cost
