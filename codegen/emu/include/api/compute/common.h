// ttlplan CPU emulator: TT-Metalium's api/compute/common.h, which brings in the headers every
// compute kernel needs (docs/emulator.md).
#pragma once

#include "api/compute/cb_api.h"
#include "api/compute/common_globals.h"
#include "api/compute/compute_kernel_hw_startup.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
