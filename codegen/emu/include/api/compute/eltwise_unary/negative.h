// ttlplan CPU emulator: TT-Metalium's api/compute/eltwise_unary/negative.h. In place on DST[idst];
// each needs its NAME_init().
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void negative_tile_init(TTLPLAN_EMU_LOC);
void negative_tile(uint32_t idst, TTLPLAN_EMU_LOC);
} // namespace ckernel
