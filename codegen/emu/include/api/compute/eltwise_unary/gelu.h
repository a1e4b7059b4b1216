// ttlplan CPU emulator: TT-Metalium's api/compute/eltwise_unary/gelu.h. In place on DST[idst]; the
// emulator computes the exact GELU, x / 2 * (1 + erf(x / sqrt(2))).
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void gelu_tile_init(TTLPLAN_EMU_LOC);
void gelu_tile(uint32_t idst, TTLPLAN_EMU_LOC);
} // namespace ckernel
