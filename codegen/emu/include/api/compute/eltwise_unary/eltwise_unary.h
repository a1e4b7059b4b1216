// ttlplan CPU emulator: TT-Metalium's api/compute/eltwise_unary/eltwise_unary.h (the full inits).
#pragma once

#include "api/compute/common.h"

namespace ckernel {
/// Full init for a unary op reading icb and packing to ocb; counts as the hardware start-up.
void unary_op_init_common(uint32_t icb, uint32_t ocb, TTLPLAN_EMU_LOC);
void init_sfpu(uint32_t icb, uint32_t ocb, TTLPLAN_EMU_LOC);
} // namespace ckernel
