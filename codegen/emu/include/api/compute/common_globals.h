// ttlplan CPU emulator: TT-Metalium's api/compute/common_globals.h (docs/emulator.md).
#pragma once

#include "ttlplan_emu_compute.h"
