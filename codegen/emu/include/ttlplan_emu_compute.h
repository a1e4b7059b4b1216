// ttlplan CPU emulator: what every compute kernel API header shares (the emulator's stand-in for
// TT-Metalium's api/compute/common_globals.h and the llk headers behind it). Names, namespaces and
// signatures follow tenstorrent/tt-metal at the pinned commit (ir/MetalApi.h, docs/codegen.md);
// the declarations and their implementation (codegen/emu/Compute.cpp) are ttlplan's own. Every call
// takes a trailing defaulted ttlplan::emu::SourceLoc so that an error names the generated line.
#pragma once

#include "tt-metalium/tt_backend_api_types.hpp"
#include "ttlplan_emu_kernel.h"

#include <cstdint>

/// Tile data formats as a kernel names them (TT-Metalium's global DataFormat of tensix_types.h,
/// whose values are those of the host's tt::DataFormat).
using DataFormat = tt::DataFormat;

namespace ckernel {

/// unary_bcast: COL repeats column 0 across the columns, ROW repeats row 0 down the rows, SCALAR
/// repeats element (0, 0).
enum class BroadcastType : uint8_t { NONE = 0, COL = 1, ROW = 2, SCALAR = 3 };
enum PoolType { SUM, AVG, MAX };
enum ReduceDim { REDUCE_ROW, REDUCE_COL, REDUCE_SCALAR };

// The kernel-side calls both kernel kinds have (declared once in ttlplan_emu_kernel.h).
using ::get_arg_val;

} // namespace ckernel

#define TTLPLAN_EMU_LOC ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current()

namespace ttlplan::emu {
// Entry points behind the templates of the compute headers (codegen/emu/Compute.cpp).
void unaryBcastInit(ckernel::BroadcastType type, const ttlplan::emu::SourceLoc& loc);
void unaryBcast(ckernel::BroadcastType type, uint32_t cb, uint32_t tile, uint32_t dst,
                const ttlplan::emu::SourceLoc& loc);
void reduceInit(ckernel::PoolType pool, ckernel::ReduceDim dim, uint32_t icb, uint32_t icb_scaler,
                const ttlplan::emu::SourceLoc& loc);
void reduceTile(ckernel::PoolType pool, ckernel::ReduceDim dim, uint32_t icb, uint32_t icb_scaler,
                uint32_t itile, uint32_t itile_scaler, uint32_t idst,
                const ttlplan::emu::SourceLoc& loc);
void packTile(uint32_t dst, uint32_t cb, uint32_t out_tile, bool out_of_order,
              const ttlplan::emu::SourceLoc& loc);
void copyDestValues(DataFormat format, uint32_t in, uint32_t out,
                    const ttlplan::emu::SourceLoc& loc);
/// A compute API call that needs the hardware configured (compute_kernel_hw_startup or a full
/// init) before it; reports the first one that comes too early.
void requireHwStartup(const char* fn, const ttlplan::emu::SourceLoc& loc);
} // namespace ttlplan::emu
