// ttlplan CPU emulator: TT-Metalium's api/compute/reg_api.h. DST register hand-over between math
// (acquire .. commit) and pack (wait .. release); acquire zeroes DST.
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void tile_regs_acquire(TTLPLAN_EMU_LOC);
void tile_regs_commit(TTLPLAN_EMU_LOC);
void tile_regs_wait(TTLPLAN_EMU_LOC);
void tile_regs_release(TTLPLAN_EMU_LOC);
} // namespace ckernel
