// ttlplan CPU emulator: TT-Metalium's api/compute/cb_api.h. The compute kernel's CB calls are the
// runtime's shared ones (ttlplan_emu_kernel.h), named in namespace ckernel as in TT-Metalium.
#pragma once

#include "api/compute/common_globals.h"

namespace ckernel {
using ::cb_pop_front;
using ::cb_push_back;
using ::cb_reserve_back;
using ::cb_wait_front;
} // namespace ckernel
