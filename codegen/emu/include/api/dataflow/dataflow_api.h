// ttlplan CPU emulator: the data-movement kernel API (docs/emulator.md "Kernel API"), at
// TT-Metalium's path api/dataflow/dataflow_api.h. Names, argument orders and semantics follow
// tenstorrent/tt-metal at the pinned commit (ir/MetalApi.h) so that generated kernels compile
// unchanged against either; the declarations and their implementation are ttlplan's own. Every
// function takes a trailing defaulted ttlplan::emu::SourceLoc so that errors name the generated
// line (and through its
// `// FILE:LINE:COL:` comment the TTL op).
#pragma once

#include "api/compile_time_args.h"
#include "api/tensor/tensor_accessor.h"
#include "ttlplan_emu_kernel.h"

#include <cstdint>

/// TT-Metalium marks L1 pointers with an address-space attribute; the emulator needs none.
#define tt_l1_ptr

/// Generated kernels define ttlplan_l1_load (a plain load) unless they run here: the emulator's L1
/// pointers carry L1 addresses, so it reads the word itself.
#define TTLPLAN_EMULATOR 1
/// The word of this core's L1 at `p` (a pipe's published receive address, docs/lowering.md).
uint32_t ttlplan_l1_load(volatile uint32_t* p,
                         ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

/// NoC address of `addr` in the L1 of the core at NoC (translated) coordinates (noc_x, noc_y).
uint64_t get_noc_addr(uint32_t noc_x, uint32_t noc_y, uint32_t addr,
                      ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// NoC address of `addr` in this core's own L1.
uint64_t get_noc_addr(uint32_t addr,
                      ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

/// Reads page `id` of the tensor (its page size) into this core's L1 at dst_local_l1_addr. The
/// emulator takes its own TensorAccessor only; TT-Metalium's template takes any address generator.
void noc_async_read_page(uint32_t id, const TensorAccessor& addrgen, uint32_t dst_local_l1_addr,
                         uint32_t offset = 0, uint8_t noc = 0,
                         ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Writes `size` bytes (0: the page size) from this core's L1 at src_local_l1_addr to page `id`.
void noc_async_write_page(uint32_t id, const TensorAccessor& addrgen, uint32_t src_local_l1_addr,
                          uint32_t size = 0, uint32_t offset = 0, uint8_t noc = 0,
                          ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

void noc_async_read(uint64_t src_noc_addr, uint32_t dst_l1, uint32_t size,
                    ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
void noc_async_write(uint32_t src_l1, uint64_t dst_noc_addr, uint32_t size,
                     ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Writes the 4 bytes of `val` to the L1 (not DRAM) word at `addr`, through the NoC; a write for
/// noc_async_write_barrier.
void noc_inline_dw_write(uint64_t addr, uint32_t val, uint8_t be = 0xF, uint8_t noc = 0,
                         uint8_t vc = 0, uint32_t customized_src_addr = 0,
                         ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
void noc_async_read_barrier(ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
void noc_async_write_barrier(ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

/// A rectangle of cores in NoC coordinates (inclusive) and an L1 address in each. On NOC0 the start
/// is the smaller corner, on NOC1 the larger one (the emulator checks it against the kernel's NoC).
uint64_t get_noc_multicast_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end,
                                uint32_t addr,
                                ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Writes to every core of the rectangle except the sender; num_dests must count them.
void noc_async_write_multicast(uint32_t src_l1, uint64_t dst_mcast, uint32_t size,
                               uint32_t num_dests,
                               ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Writes to every core of the rectangle, the sender included; num_dests must count them.
void noc_async_write_multicast_loopback_src(
    uint32_t src_l1, uint64_t dst_mcast, uint32_t size, uint32_t num_dests,
    ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

/// L1 address of semaphore `semaphore_id` (semaphore_base + 16 * id).
uint32_t get_semaphore(uint32_t semaphore_id,
                       ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// `sem` is an L1 address of this core carried in a pointer (never dereferenced).
void noc_semaphore_set(volatile uint32_t* sem, uint32_t value,
                       ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Blocks until *sem == value.
void noc_semaphore_wait(volatile uint32_t* sem, uint32_t value,
                        ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Blocks until *sem >= value.
void noc_semaphore_wait_min(volatile uint32_t* sem, uint32_t value,
                            ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Atomic add on the semaphore at noc_addr (another core's L1).
void noc_semaphore_inc(uint64_t noc_addr, uint32_t incr,
                       ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Copies the 4 bytes at src_l1 (this core) to dst_noc_addr.
void noc_semaphore_set_remote(uint32_t src_l1, uint64_t dst_noc_addr,
                              ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// Copies the 4 bytes at src_l1 to every core of the rectangle except the sender.
void noc_semaphore_set_multicast(uint32_t src_l1, uint64_t dst_mcast, uint32_t num_dests,
                                 ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
