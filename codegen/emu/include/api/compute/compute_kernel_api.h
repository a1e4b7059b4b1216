// ttlplan CPU emulator: TT-Metalium's api/compute/compute_kernel_api.h. In place on DST[idst]; each
// needs its NAME_init().
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void log_tile_init(TTLPLAN_EMU_LOC);
void log_tile(uint32_t idst, TTLPLAN_EMU_LOC);
void sigmoid_tile_init(TTLPLAN_EMU_LOC);
void sigmoid_tile(uint32_t idst, TTLPLAN_EMU_LOC);
void tanh_tile_init(TTLPLAN_EMU_LOC);
void tanh_tile(uint32_t idst, TTLPLAN_EMU_LOC);
void abs_tile_init(TTLPLAN_EMU_LOC);
void abs_tile(uint32_t idst, TTLPLAN_EMU_LOC);
} // namespace ckernel
