// ttlplan CPU emulator: TT-Metalium's api/compute/transpose_wh.h (a tile transposed into DST).
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void transpose_wh_init(uint32_t icb, uint32_t ocb, TTLPLAN_EMU_LOC);
void transpose_wh_init_short(uint32_t icb, TTLPLAN_EMU_LOC);
/// DST[idst][c][r] = page itile of the front of icb [r][c]: rows and columns swapped.
void transpose_wh_tile(uint32_t icb, uint32_t itile, uint32_t idst, TTLPLAN_EMU_LOC);
} // namespace ckernel
