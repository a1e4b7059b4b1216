// ttlplan CPU emulator: TT-Metalium's api/compile_time_args.h. On hardware
// get_compile_time_arg_val is a macro giving a constant expression; here it is a function read
// at run time (ttlplan_emu_kernel.h), so generated code declares `const uint32_t`.
#pragma once

#include "ttlplan_emu_kernel.h"
