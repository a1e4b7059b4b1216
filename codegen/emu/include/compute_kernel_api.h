// ttlplan CPU emulator: the compute kernel API (docs/emulator.md "Kernel API").
// Function names and argument orders follow TT-Metalium's tenstorrent/tt-metal
// tt_metal/include/compute_kernel_api/*.h (tile_move_copy.h, matmul.h, bcast.h,
// eltwise_binary_sfpu.h, eltwise_unary/*.h, pack.h, reg_api.h); the declarations and their
// implementation are ttlplan's own. DST holds float values; unpack converts a CB page from the CB's
// data format, pack rounds to it.
#pragma once

#include "ttlplan_emu_kernel.h"

#include <cstdint>
#include <source_location>

/// TT-Metalium compute kernels are written `namespace NAMESPACE { void MAIN { ... } }`; here both
/// name the ordinary entry point `ttlplan_compute::kernel_main`.
#ifndef NAMESPACE
#define NAMESPACE ttlplan_compute
#endif
#ifndef MAIN
#define MAIN kernel_main()
#endif

/// unary_bcast: COL repeats column 0 across the columns, ROW repeats row 0 down the rows, SCALAR
/// repeats element (0, 0).
enum class BroadcastType : uint8_t { NONE = 0, COL = 1, ROW = 2, SCALAR = 3 };

#define TTLPLAN_EMU_LOC std::source_location loc = std::source_location::current()

// DST register hand-over between math (acquire .. commit) and pack (wait .. release).
void tile_regs_acquire(TTLPLAN_EMU_LOC);
void tile_regs_commit(TTLPLAN_EMU_LOC);
void tile_regs_wait(TTLPLAN_EMU_LOC);
void tile_regs_release(TTLPLAN_EMU_LOC);

/// Unpack page `tile` of the front of `cb` into DST[dst].
void copy_tile_init(uint32_t cb, TTLPLAN_EMU_LOC);
void copy_tile_to_dst_init_short(uint32_t cb, TTLPLAN_EMU_LOC); // TT-Metalium alias
void copy_tile(uint32_t cb, uint32_t tile, uint32_t dst, TTLPLAN_EMU_LOC);

/// DST[dst] += A * B (B transposed when `transpose`), A = page tile_a of cb_a, B = page tile_b of
/// cb_b.
void mm_init(uint32_t cb_a, uint32_t cb_b, uint32_t cb_out, uint32_t transpose = 0,
             TTLPLAN_EMU_LOC);
void mm_init_short(uint32_t cb_a, uint32_t cb_b, uint32_t transpose = 0, TTLPLAN_EMU_LOC);
void matmul_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b, uint32_t dst,
                  bool transpose, TTLPLAN_EMU_LOC);

/// DST[dst] = broadcast of page `tile` of `cb`.
void unary_bcast_init(uint32_t cb, uint32_t cb_out, TTLPLAN_EMU_LOC);
template <BroadcastType B> void unary_bcast_init(uint32_t cb, uint32_t cb_out, TTLPLAN_EMU_LOC) {
  unary_bcast_init(cb, cb_out, loc);
}
namespace ttlplan::emu {
void unaryBcast(BroadcastType type, uint32_t cb, uint32_t tile, uint32_t dst,
                const std::source_location& loc);
}
template <BroadcastType B>
void unary_bcast(uint32_t cb, uint32_t tile, uint32_t dst, TTLPLAN_EMU_LOC) {
  ::ttlplan::emu::unaryBcast(B, cb, tile, dst, loc);
}

/// Hardware start-up for ops reading cb_a/cb_b and packing to cb_out. Enables no op by itself.
void binary_op_init_common(uint32_t cb_a, uint32_t cb_b, uint32_t cb_out, TTLPLAN_EMU_LOC);
void init_sfpu(uint32_t cb_in, uint32_t cb_out, TTLPLAN_EMU_LOC);

// Binary SFPU ops on DST tiles: DST[out] = DST[a] op DST[b].
void add_binary_tile_init(TTLPLAN_EMU_LOC);
void add_binary_tile(uint32_t a, uint32_t b, uint32_t out, TTLPLAN_EMU_LOC);
void sub_binary_tile_init(TTLPLAN_EMU_LOC);
void sub_binary_tile(uint32_t a, uint32_t b, uint32_t out, TTLPLAN_EMU_LOC);
void mul_binary_tile_init(TTLPLAN_EMU_LOC);
void mul_binary_tile(uint32_t a, uint32_t b, uint32_t out, TTLPLAN_EMU_LOC);
void binary_max_tile_init(TTLPLAN_EMU_LOC);
void binary_max_tile(uint32_t a, uint32_t b, uint32_t out, TTLPLAN_EMU_LOC);

/// DST[out] = DST[in]. Needs no init (copy_dest_values_init exists for TT-Metalium parity).
void copy_dest_values_init(TTLPLAN_EMU_LOC);
void copy_dest_values(uint32_t out, uint32_t in, TTLPLAN_EMU_LOC);

// Unary SFPU ops, in place on DST[dst]; each needs its NAME_init().
#define TTLPLAN_EMU_UNARY(name)                                                                    \
  void name##_init(TTLPLAN_EMU_LOC);                                                               \
  void name(uint32_t dst, TTLPLAN_EMU_LOC);
TTLPLAN_EMU_UNARY(exp_tile)
TTLPLAN_EMU_UNARY(log_tile)
TTLPLAN_EMU_UNARY(sqrt_tile)
TTLPLAN_EMU_UNARY(rsqrt_tile)
TTLPLAN_EMU_UNARY(recip_tile)
TTLPLAN_EMU_UNARY(relu_tile)
TTLPLAN_EMU_UNARY(gelu_tile) // exact: x / 2 * (1 + erf(x / sqrt(2)))
TTLPLAN_EMU_UNARY(sigmoid_tile)
TTLPLAN_EMU_UNARY(tanh_tile)
TTLPLAN_EMU_UNARY(negative_tile)
TTLPLAN_EMU_UNARY(abs_tile)
#undef TTLPLAN_EMU_UNARY

/// DST[dst] = value everywhere.
void fill_tile_init(TTLPLAN_EMU_LOC);
void fill_tile(uint32_t dst, float value, TTLPLAN_EMU_LOC);

/// Rounds DST[dst] to cb's data format into page out_tile of the reserved back of cb.
void pack_tile(uint32_t dst, uint32_t cb, uint32_t out_tile = 0, TTLPLAN_EMU_LOC);
/// 1: pack_tile adds to the value L1 holds (accumulation in L1); 0: pack_tile overwrites.
void pack_reconfig_l1_acc(uint32_t enable, TTLPLAN_EMU_LOC);

#undef TTLPLAN_EMU_LOC
