// ttlplan CPU emulator: TT-Metalium's api/compute/compute_kernel_hw_startup.h. Configures unpack,
// math and pack for the first op's CBs; a compute kernel calls it (or a full init such as mm_init)
// once, before any other compute call, and the emulator reports an op, init or pack before it.
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void compute_kernel_hw_startup(uint32_t icb0, uint32_t icb1, uint32_t ocb, TTLPLAN_EMU_LOC);
void compute_kernel_hw_startup(uint32_t icb0, uint32_t ocb, TTLPLAN_EMU_LOC);
} // namespace ckernel
