#pragma once
// `--config ttnn-default` and `--config tt-mlir-rule` (docs/baselines.md): complete a matmul
// template's binding with the program config ttnn's default selection, or tt-mlir's rule, picks
// for its shape. The template must use ttnn's knob
// names (examples/matmul_2d_template.ttl, matmul_1d_template.ttl): problem knobs M, K, N, DTYPE,
// FP32_DEST_ACC and config knobs in0_block_w, out_subblock_h, out_subblock_w, out_block_h,
// out_block_w, per_core_M, per_core_N.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"
#include "ttlplan/support/Expected.h"

#include <string>
#include <vector>

namespace ttlplan::search::baselines {

/// The config knobs, in the order `ttlplan --help` lists them.
inline constexpr const char* kConfigKnobs[] = {"in0_block_w", "out_subblock_h", "out_subblock_w",
                                               "out_block_h", "out_block_w",    "per_core_M",
                                               "per_core_N"};

struct DefaultBinding {
  /// `partial` plus the config knobs, and DTYPE (its first value) and FP32_DEST_ACC (0) when
  /// `partial` leaves them out (what the config was sized for)
  ir::Binding binding;
  MatmulConfig config; ///< what ttnn picks (family, knobs, why)
};

/// `partial` with every config knob set to ttnn's default for the shape: M, K and N must be bound
/// in `partial` (or have one value); DTYPE (default: its first value) sets the tile bytes and
/// FP32_DEST_ACC (default 0) the DST capacity; the grid and free L1 are `device`'s. Errors name
/// the missing knob, a config knob `partial` binds to another value, a value the template's domain
/// lacks, and the family ttnn picks when the template cannot take it (MultiCore). A template with
/// a `grid_x` knob (cores per row of its layout) gets the device's column count when `partial`
/// leaves it out.
Expected<DefaultBinding> ttnnDefaultBinding(const std::vector<ir::Param>& params,
                                            const ir::Binding& partial, const ir::Device& device);

/// `problem` on `device`: its compute grid, the L1 free for CBs and its DST capacities.
void placeOn(MatmulProblem& problem, const ir::Device& device);

/// `--config tt-mlir-rule`: as ttnnDefaultBinding, with the config tt-mlir's rule picks for the
/// shape (baselines::ttMlirRule with the sweeps' default options, on the family the sweeps route
/// it to). Errors as ttnnDefaultBinding's, and when no candidate fits the sweep's L1 budget or the
/// rule routes the shape to 1-D mcast_in1 (which the templates do not implement).
Expected<DefaultBinding> ttMlirRuleBinding(const std::vector<ir::Param>& params,
                                           const ir::Binding& partial, const ir::Device& device);

} // namespace ttlplan::search::baselines
