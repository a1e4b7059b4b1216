// ttlplan CPU emulator: TT-Metalium's api/compute/copy_dest_values.h. DST[idst_out] =
// DST[idst_in]; DATA_FORMAT is DST's format (Float16_b, or Float32 with fp32_dest_acc_en).
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
void copy_dest_values_init(TTLPLAN_EMU_LOC);
template <DataFormat DATA_FORMAT>
void copy_dest_values(uint32_t idst_in, uint32_t idst_out, TTLPLAN_EMU_LOC) {
  ::ttlplan::emu::copyDestValues(DATA_FORMAT, idst_in, idst_out, loc);
}
} // namespace ckernel
