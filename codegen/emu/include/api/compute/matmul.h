// ttlplan CPU emulator: TT-Metalium's api/compute/matmul.h.
#pragma once

#include "api/compute/common.h"

namespace ckernel {
/// Full init: configures the hardware for a matmul (srcA from in1, srcB from in0) and packing to
/// out_cb_id. Counts as the kernel's hardware start-up; called later in a kernel it is a misuse
/// (use mm_init_short).
void mm_init(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t out_cb_id,
             const uint32_t transpose = 0, TTLPLAN_EMU_LOC);
/// The matmul init after other ops (B transposed when `transpose`).
void mm_init_short(uint32_t in0_cb_id, uint32_t in1_cb_id, const uint32_t transpose = 0,
                   TTLPLAN_EMU_LOC);
/// DST[idst] += A * B, A = page in0_tile_index of in0, B = page in1_tile_index of in1.
void matmul_tiles(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t in0_tile_index,
                  uint32_t in1_tile_index, uint32_t idst, TTLPLAN_EMU_LOC);
} // namespace ckernel
