#pragma once
// Baselines a matmul tuner must beat, as pure functions of the problem (no IR):
//
//  1. ttnn's default program config: what `ttnn.matmul` picks for interleaved rank-2 inputs when
//     the user gives no program config and no core grid (tenstorrent/tt-metal,
//     ttnn/cpp/ttnn/operations/matmul/device/config/matmul_program_config.cpp:
//     create_simple_matmul_program_config, get_mcast_1d_config, get_multi_dim_per_core_factor,
//     get_per_core_factor, bmm_op_utils::get_matmul_subblock_params; the CB estimate and L1 space
//     from ttnn/cpp/ttnn/operations/matmul/device/utilities/matmul_utilities.cpp). The version
//     modelled is the one measured as "legacy" in tests/ttnn/unit_tests/benchmarks/matmul_oob
//     (docs/baselines.md says which revision and why).
//  2. tt-mlir's TTNNSetMatmulProgramConfig rule and the candidate set it picks from, as the
//     sweep scripts tests/ttnn/unit_tests/benchmarks/matmul_oob/gist/matmul_sweep_{2d,1d}.py
//     define them (tenstorrent/tt-metal).
//
// Written from reading those sources, not copied. All block sizes are in 32x32 tiles.
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ttlplan::search::baselines {

/// The matmul program config families that ttnn's default selection can return.
enum class MatmulFamily {
  MultiCast2D, ///< MatmulMultiCoreReuseMultiCastProgramConfig (in0 along rows, in1 along columns)
  MultiCast1DIn0, ///< MatmulMultiCoreReuseMultiCast1DProgramConfig, mcast_in0 = true (wide shapes)
  MultiCast1DIn1, ///< MatmulMultiCoreReuseMultiCast1DProgramConfig, mcast_in0 = false (tall shapes)
  MultiCore,      ///< MatmulMultiCoreProgramConfig: no reuse, no knobs (all knobs below are 0)
};

/// "MultiCast2D", "MultiCast1D(mcast_in0)", "MultiCast1D(mcast_in1)" or "MultiCore".
const char* familyName(MatmulFamily family);

/// One rank-2 matmul [M x K] @ [K x N] with interleaved operands, and the device it runs on.
struct MatmulProblem {
  uint64_t m = 0;               ///< rows of in0 and of the output, elements (padded up to tiles)
  uint64_t k = 0;               ///< inner dimension, elements
  uint64_t n = 0;               ///< columns of in1 and of the output, elements
  uint32_t in0TileBytes = 2048; ///< bytes of one in0 tile (bf16 2048, bfp8_b 1088, bfp4_b 576)
  uint32_t in1TileBytes = 2048; ///< bytes of one in1 tile
  uint32_t outTileBytes = 2048; ///< bytes of one output tile
  bool fp32DestAcc = false;     ///< fp32 DST accumulation (halves DST, 4096 B intermediate tiles)
  /// DST tiles one sub-block may use in the device's default sync mode, without and with fp32
  /// accumulation (ir::Device::dstCapacityTiles; 8 and 4 on Wormhole and Blackhole).
  uint32_t dstTiles = 8;
  uint32_t dstTilesFp32 = 4;
  uint32_t gridRows = 8;          ///< compute grid rows (ttnn's compute_with_storage_grid_size.y)
  uint32_t gridCols = 8;          ///< compute grid columns (.x)
  uint64_t l1FreeBytes = 1395424; ///< L1 bytes per core free for CBs (ttnn get_max_l1_space)
  bool allDram = true; ///< in0, in1 and output all in DRAM; false: some in L1 (interleaved)
};

/// A program config: the family, its knobs (tiles) and the grid.
struct MatmulConfig {
  MatmulFamily family = MatmulFamily::MultiCore; ///< which program config
  uint32_t in0BlockW = 0;                        ///< K tiles per block (in0_block_w)
  uint32_t outSubblockH = 0;                     ///< output sub-block rows held in DST at once
  uint32_t outSubblockW = 0;                     ///< output sub-block columns
  uint32_t outBlockH = 0;   ///< output block rows computed per pass (divides perCoreM)
  uint32_t outBlockW = 0;   ///< output block columns per pass (divides perCoreN)
  uint32_t perCoreM = 0;    ///< output rows (tiles) each core owns
  uint32_t perCoreN = 0;    ///< output columns (tiles) each core owns
  uint32_t gridRows = 0;    ///< compute_with_storage_grid_size.y of the config
  uint32_t gridCols = 0;    ///< compute_with_storage_grid_size.x of the config
  uint32_t activeCores = 0; ///< cores that own output tiles (0 for MultiCore: not modelled)
  uint64_t cbBytes = 0;     ///< ttnn's CB estimate for (outBlockH, outBlockW, in0BlockW)
  std::string why;          ///< the rule that chose the family and the knobs, in words
};

/// ttnn's default config for `p` (no user program config, no user core grid, no bias, no
/// transposes, batch 1). Errors: a zero dimension, grid or tile size.
Expected<MatmulConfig> ttnnDefaultMatmulConfig(const MatmulProblem& p);

/// ttnn's CB-size estimate (get_estimated_size_of_cbs): double-buffered in0 and in1 blocks, an
/// output block (sized with in0's tile) and an intermediate block.
uint64_t ttnnCbEstimate(const MatmulProblem& p, uint32_t blockH, uint32_t blockW, uint32_t blockK);

/// The (h, w) ttnn walks for sub-blocks, first that fits: volume 8 down to 1 (SUBBLOCK_HW_CHOICES).
/// `capacity` is the DST tile count (dstCapacity).
struct Subblock {
  uint32_t h = 1; ///< sub-block rows
  uint32_t w = 1; ///< sub-block columns
};
Subblock ttnnSubblock(uint32_t blockH, uint32_t blockW, uint32_t capacity);

/// DST tiles available to one sub-block for `p`: dstTilesFp32 under fp32 accumulation, else
/// dstTiles.
uint32_t dstCapacity(const MatmulProblem& p);

/// Options of the matmul_oob sweep scripts (their command-line defaults).
struct SweepOptions {
  uint64_t l1Budget = 1400000; ///< CB bytes allowed (--l1-budget)
  uint32_t maxIn0BlockW = 32;  ///< largest in0_block_w tried (--max-in0-block-w)
  uint64_t splitMinDim = 1024; ///< 1-D rule: M (or N) from which the free block may be halved
  bool transposeA = false;     ///< in0 stored [K, M]: one more in0-sized CB
};

/// Which kernel the sweeps' route() sends a DRAM-interleaved shape to: 1-D when the longer side
/// is more than 8 times the shorter or one side is a single tile, else 2-D.
MatmulFamily sweepRoute(const MatmulProblem& p);

/// The sweeps' CB model of one candidate: depth * (in0 + in1 blocks) + out and fp32 accumulator.
uint64_t sweepCbBytes(const MatmulProblem& p, const SweepOptions& o, uint32_t blockH,
                      uint32_t blockW, uint32_t blockK);

/// Every candidate of the sweep for `p`, in the scripts' order (in0_block_w, then out_block_h, then
/// out_block_w ascending): in0_block_w divides Kt (at most maxIn0BlockW, at least two K blocks when
/// Kt > 1), the blocks divide per_core_M / per_core_N, and the CBs fit l1Budget.
Expected<std::vector<MatmulConfig>> sweepCandidates(const MatmulProblem& p, const SweepOptions& o);

/// tt-mlir's pick among sweepCandidates: 2-D maximises in0_block_w * out_block_h * out_block_w
/// (ties: larger in0_block_w, then the first); 1-D keeps the multicast side's block whole, the
/// other side whole or halved (when M, resp. N, >= splitMinDim) and maximises (in0_block_w, that
/// block). Error when no candidate fits.
Expected<MatmulConfig> ttMlirRule(const MatmulProblem& p, const SweepOptions& o);

} // namespace ttlplan::search::baselines
