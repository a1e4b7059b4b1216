// ttlplan CPU emulator: TT-Metalium's api/compute/bcast.h (the unary broadcasts).
#pragma once

#include "api/compute/common.h"

namespace ckernel {
template <BroadcastType bcast_type>
void unary_bcast_init(uint32_t icb, uint32_t ocb, TTLPLAN_EMU_LOC) {
  (void)icb, (void)ocb;
  ::ttlplan::emu::unaryBcastInit(bcast_type, loc);
}
/// DST[dst_tile_index] = broadcast of page in_tile_index of icb.
template <BroadcastType bcast_type>
void unary_bcast(uint32_t icb, uint32_t in_tile_index, uint32_t dst_tile_index, TTLPLAN_EMU_LOC) {
  ::ttlplan::emu::unaryBcast(bcast_type, icb, in_tile_index, dst_tile_index, loc);
}
} // namespace ckernel
