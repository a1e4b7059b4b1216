// ttlplan CPU emulator: TT-Metalium's api/compute/binary_max_min.h (max only).
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void binary_max_tile_init(TTLPLAN_EMU_LOC);
void binary_max_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TTLPLAN_EMU_LOC);
} // namespace ckernel
