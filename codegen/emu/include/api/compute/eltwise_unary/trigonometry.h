// ttlplan CPU emulator: TT-Metalium's api/compute/eltwise_unary/trigonometry.h. In place on
// DST[idst]; each needs its NAME_init().
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void sin_tile_init(TTLPLAN_EMU_LOC);
void sin_tile(uint32_t idst, TTLPLAN_EMU_LOC);
} // namespace ckernel
