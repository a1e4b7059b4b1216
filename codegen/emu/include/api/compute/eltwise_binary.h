// ttlplan CPU emulator: TT-Metalium's api/compute/eltwise_binary.h (the full init only).
#pragma once

#include "api/compute/common.h"

namespace ckernel {
/// Full init for ops reading icb0/icb1 and packing to ocb; counts as the hardware start-up.
void binary_op_init_common(uint32_t icb0, uint32_t icb1, uint32_t ocb, TTLPLAN_EMU_LOC);
} // namespace ckernel
