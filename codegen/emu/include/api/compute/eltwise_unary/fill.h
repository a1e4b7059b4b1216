// ttlplan CPU emulator: TT-Metalium's api/compute/eltwise_unary/fill.h. DST[idst] = param0
// everywhere.
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void fill_tile_init(TTLPLAN_EMU_LOC);
void fill_tile(uint32_t idst, float param0, TTLPLAN_EMU_LOC);
} // namespace ckernel
