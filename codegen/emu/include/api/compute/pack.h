// ttlplan CPU emulator: TT-Metalium's api/compute/pack.h.
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
/// Rounds DST[ifrom_dst] to icb's data format into the reserved back of icb. Without
/// out_of_order_output the packer writes the CB's next page in sequence (the first pack after a
/// cb_push_back writes page 0 of the new back, the next page 1, ...) and ignores
/// output_tile_index, as on hardware; with it, page output_tile_index of the back.
template <bool out_of_order_output = false>
void pack_tile(uint32_t ifrom_dst, uint32_t icb, std::uint32_t output_tile_index = 0,
               TTLPLAN_EMU_LOC) {
  ::ttlplan::emu::packTile(ifrom_dst, icb, output_tile_index, out_of_order_output, loc);
}
/// 1: pack_tile adds to the value L1 holds (accumulation in L1); 0: pack_tile overwrites.
void pack_reconfig_l1_acc(uint32_t l1_acc_en, TTLPLAN_EMU_LOC);
} // namespace ckernel
