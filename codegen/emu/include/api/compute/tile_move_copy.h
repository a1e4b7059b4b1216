// ttlplan CPU emulator: TT-Metalium's api/compute/tile_move_copy.h.
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
/// Unpack page in_tile_index of the front of in_cb_id into DST[dst_tile_index].
void copy_tile_to_dst_init_short(uint32_t cbid, uint32_t transpose = 0, TTLPLAN_EMU_LOC);
void copy_tile_init(uint32_t cbid, TTLPLAN_EMU_LOC);
void copy_tile(uint32_t in_cb_id, uint32_t in_tile_index, uint32_t dst_tile_index, TTLPLAN_EMU_LOC);
} // namespace ckernel
