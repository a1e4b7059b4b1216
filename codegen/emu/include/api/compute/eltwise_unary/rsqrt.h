// ttlplan CPU emulator: TT-Metalium's api/compute/eltwise_unary/rsqrt.h. In place on DST[idst];
// each needs its NAME_init().
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void rsqrt_tile_init(TTLPLAN_EMU_LOC);
void rsqrt_tile(uint32_t idst, TTLPLAN_EMU_LOC);
} // namespace ckernel
