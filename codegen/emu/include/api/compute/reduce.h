// ttlplan CPU emulator: TT-Metalium's api/compute/reduce.h. reduce_tile combines page itile of
// the front of icb, each element multiplied by element (0, 0) of page itile_scaler of icb_scaler
// (the scaler tile: 1 for a sum or maximum, 1/N for a mean), into DST[idst] as one reduced tile
// R: SUM adds R to the register, MAX takes the element-wise maximum. R holds the result in column
// 0 (REDUCE_ROW), row 0 (REDUCE_COL) or element (0, 0) (REDUCE_SCALAR) and 0 elsewhere. DST is
// zero after tile_regs_acquire: a MAX reduction fills the register with -inf first. reduce_tile
// needs reduce_init with the same PoolType, ReduceDim and CBs since the last op of another kind;
// reduce_uninit ends it.
#pragma once

#include "api/compute/common.h"

namespace ckernel {
template <PoolType reduce_type, ReduceDim reduce_dim, bool enforce_fp32_accumulation = false>
void reduce_init(uint32_t icb, uint32_t icb_scaler, uint32_t ocb, TTLPLAN_EMU_LOC) {
  (void)ocb;
  ::ttlplan::emu::reduceInit(reduce_type, reduce_dim, icb, icb_scaler, loc);
}
template <PoolType reduce_type, ReduceDim reduce_dim, bool enforce_fp32_accumulation = false>
void reduce_tile(uint32_t icb, uint32_t icb_scaler, uint32_t itile, uint32_t itile_scaler,
                 uint32_t idst, TTLPLAN_EMU_LOC) {
  ::ttlplan::emu::reduceTile(reduce_type, reduce_dim, icb, icb_scaler, itile, itile_scaler, idst,
                             loc);
}
void reduce_uninit(uint32_t icb = 0, TTLPLAN_EMU_LOC);
} // namespace ckernel
