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

/// Reductions (TT-Metalium compute_kernel_api/reduce.h). reduce_tile reads page `itile` of the
/// front of `icb` through the unpacker and combines it into DST[idst] as one reduced tile R: SUM
/// adds R to the register, MAX takes the element-wise maximum of the register and R. R holds the
/// reduction in column 0 (REDUCE_ROW: each row's sum or maximum), row 0 (REDUCE_COL: each
/// column's) or element (0, 0) (REDUCE_SCALAR: the whole tile's) and 0 elsewhere, so repeated
/// reduce_tile calls into one register reduce several tiles. DST is zero after tile_regs_acquire:
/// a MAX reduction must fill the register with -inf first (fill_tile), or rows of negative values
/// reduce to 0. TT-Metalium also takes a scaler CB and tile whose element (0, 0) multiplies every
/// input element (1.0 for a plain sum or maximum, 1/N for a mean); both forms are accepted, and
/// without them the scaler is 1 (docs/emulator.md). reduce_tile needs reduce_init with the same
/// PoolType and ReduceDim since the last op of another kind; reduce_uninit ends it.
enum class PoolType : uint8_t { SUM = 0, MAX = 2 };
enum class ReduceDim : uint8_t { REDUCE_ROW = 0, REDUCE_COL = 1, REDUCE_SCALAR = 2 };
namespace ttlplan::emu {
void reduceInit(PoolType pool, ReduceDim dim, const std::source_location& loc);
void reduceTile(PoolType pool, ReduceDim dim, uint32_t icb, uint32_t itile, bool scaled,
                uint32_t icb_scaler, uint32_t itile_scaler, uint32_t idst,
                const std::source_location& loc);
} // namespace ttlplan::emu
template <PoolType P, ReduceDim D> void reduce_init(uint32_t icb, uint32_t ocb, TTLPLAN_EMU_LOC) {
  (void)icb, (void)ocb;
  ::ttlplan::emu::reduceInit(P, D, loc);
}
template <PoolType P, ReduceDim D>
void reduce_init(uint32_t icb, uint32_t icb_scaler, uint32_t ocb, TTLPLAN_EMU_LOC) {
  (void)icb, (void)icb_scaler, (void)ocb;
  ::ttlplan::emu::reduceInit(P, D, loc);
}
template <PoolType P, ReduceDim D>
void reduce_tile(uint32_t icb, uint32_t itile, uint32_t idst, TTLPLAN_EMU_LOC) {
  ::ttlplan::emu::reduceTile(P, D, icb, itile, false, 0, 0, idst, loc);
}
template <PoolType P, ReduceDim D>
void reduce_tile(uint32_t icb, uint32_t icb_scaler, uint32_t itile, uint32_t itile_scaler,
                 uint32_t idst, TTLPLAN_EMU_LOC) {
  ::ttlplan::emu::reduceTile(P, D, icb, itile, true, icb_scaler, itile_scaler, idst, loc);
}
void reduce_uninit(TTLPLAN_EMU_LOC);

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
TTLPLAN_EMU_UNARY(sin_tile)
#undef TTLPLAN_EMU_UNARY

/// DST[dst] = value everywhere.
void fill_tile_init(TTLPLAN_EMU_LOC);
void fill_tile(uint32_t dst, float value, TTLPLAN_EMU_LOC);

/// Rounds DST[dst] to cb's data format into page out_tile of the reserved back of cb.
void pack_tile(uint32_t dst, uint32_t cb, uint32_t out_tile = 0, TTLPLAN_EMU_LOC);
/// 1: pack_tile adds to the value L1 holds (accumulation in L1); 0: pack_tile overwrites.
void pack_reconfig_l1_acc(uint32_t enable, TTLPLAN_EMU_LOC);

#undef TTLPLAN_EMU_LOC
