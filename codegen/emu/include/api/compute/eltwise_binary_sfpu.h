// ttlplan CPU emulator: TT-Metalium's api/compute/eltwise_binary_sfpu.h. DST[odst] = DST[idst0]
// op DST[idst1]; each needs its NAME_init().
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void add_binary_tile_init(TTLPLAN_EMU_LOC);
void add_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TTLPLAN_EMU_LOC);
void div_binary_tile_init(TTLPLAN_EMU_LOC);
void div_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TTLPLAN_EMU_LOC);
void sub_binary_tile_init(TTLPLAN_EMU_LOC);
void sub_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TTLPLAN_EMU_LOC);
void mul_binary_tile_init(TTLPLAN_EMU_LOC);
void mul_binary_tile(uint32_t idst0, uint32_t idst1, uint32_t odst, TTLPLAN_EMU_LOC);
} // namespace ckernel
