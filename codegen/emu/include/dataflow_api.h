// ttlplan CPU emulator: the data-movement kernel API (docs/emulator.md "Kernel API").
// Function names and argument orders follow TT-Metalium's tenstorrent/tt-metal
// tt_metal/hw/inc/dataflow_api.h so that generated kernels compile unchanged against either; the
// declarations and their implementation are ttlplan's own. Every function takes a trailing
// defaulted std::source_location so that errors name the generated line (and through its
// `// FILE:LINE:COL:` comment the TTL op).
#pragma once

#include "ttlplan_emu_kernel.h"

#include <cstdint>
#include <source_location>

/// TT-Metalium marks L1 pointers with an address-space attribute; the emulator needs none.
#define tt_l1_ptr

/// Pages of an interleaved buffer: page i lies in bank i % banks at bank_base_address +
/// (i / banks) * page_size. DRAM = true: DRAM banks; false: L1 of the cores (bank = core,
/// row-major).
template <bool DRAM> struct InterleavedAddrGen {
  uint32_t bank_base_address;
  uint32_t page_size;
};

namespace ttlplan::emu {
uint64_t interleavedNocAddr(bool dram, uint32_t id, uint32_t bank_base_address, uint32_t page_size,
                            uint32_t offset, const std::source_location& loc);
void interleavedRead(bool dram, uint32_t id, uint32_t bank_base_address, uint32_t page_size,
                     uint32_t dst_l1, const std::source_location& loc);
void interleavedWrite(bool dram, uint32_t id, uint32_t bank_base_address, uint32_t page_size,
                      uint32_t src_l1, const std::source_location& loc);
} // namespace ttlplan::emu

/// NoC address of byte `offset` of page `id` of an interleaved buffer.
template <bool DRAM>
uint64_t get_noc_addr(uint32_t id, const InterleavedAddrGen<DRAM>& s, uint32_t offset = 0,
                      std::source_location loc = std::source_location::current()) {
  return ::ttlplan::emu::interleavedNocAddr(DRAM, id, s.bank_base_address, s.page_size, offset,
                                            loc);
}
/// NoC address of `addr` in the L1 of the core at NoC (translated) coordinates (noc_x, noc_y).
uint64_t get_noc_addr(uint32_t noc_x, uint32_t noc_y, uint32_t addr,
                      std::source_location loc = std::source_location::current());
/// NoC address of `addr` in this core's own L1.
uint64_t get_noc_addr(uint32_t addr, std::source_location loc = std::source_location::current());

/// Reads page `id` (page_size bytes) into this core's L1 at dst_l1.
template <bool DRAM>
void noc_async_read_tile(uint32_t id, const InterleavedAddrGen<DRAM>& s, uint32_t dst_l1,
                         std::source_location loc = std::source_location::current()) {
  ::ttlplan::emu::interleavedRead(DRAM, id, s.bank_base_address, s.page_size, dst_l1, loc);
}
/// Writes page_size bytes from this core's L1 at src_l1 to page `id`.
template <bool DRAM>
void noc_async_write_tile(uint32_t id, const InterleavedAddrGen<DRAM>& s, uint32_t src_l1,
                          std::source_location loc = std::source_location::current()) {
  ::ttlplan::emu::interleavedWrite(DRAM, id, s.bank_base_address, s.page_size, src_l1, loc);
}

void noc_async_read(uint64_t src_noc_addr, uint32_t dst_l1, uint32_t size,
                    std::source_location loc = std::source_location::current());
void noc_async_write(uint32_t src_l1, uint64_t dst_noc_addr, uint32_t size,
                     std::source_location loc = std::source_location::current());
void noc_async_read_barrier(std::source_location loc = std::source_location::current());
void noc_async_write_barrier(std::source_location loc = std::source_location::current());

/// A rectangle of cores in NoC coordinates (inclusive) and an L1 address in each. On NOC0 the start
/// is the smaller corner, on NOC1 the larger one (the emulator checks it against the kernel's NoC).
uint64_t get_noc_multicast_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end,
                                uint32_t addr,
                                std::source_location loc = std::source_location::current());
/// Writes to every core of the rectangle except the sender; num_dests must count them.
void noc_async_write_multicast(uint32_t src_l1, uint64_t dst_mcast, uint32_t size,
                               uint32_t num_dests,
                               std::source_location loc = std::source_location::current());
/// Writes to every core of the rectangle, the sender included; num_dests must count them.
void noc_async_write_multicast_loopback_src(
    uint32_t src_l1, uint64_t dst_mcast, uint32_t size, uint32_t num_dests,
    std::source_location loc = std::source_location::current());

/// L1 address of semaphore `semaphore_id` (semaphore_base + 16 * id).
uint32_t get_semaphore(uint32_t semaphore_id,
                       std::source_location loc = std::source_location::current());
/// `sem` is an L1 address of this core carried in a pointer (never dereferenced).
void noc_semaphore_set(volatile uint32_t* sem, uint32_t value,
                       std::source_location loc = std::source_location::current());
/// Blocks until *sem == value.
void noc_semaphore_wait(volatile uint32_t* sem, uint32_t value,
                        std::source_location loc = std::source_location::current());
/// Blocks until *sem >= value.
void noc_semaphore_wait_min(volatile uint32_t* sem, uint32_t value,
                            std::source_location loc = std::source_location::current());
/// Atomic add on the semaphore at noc_addr (another core's L1).
void noc_semaphore_inc(uint64_t noc_addr, uint32_t incr,
                       std::source_location loc = std::source_location::current());
/// Copies the 4 bytes at src_l1 (this core) to dst_noc_addr.
void noc_semaphore_set_remote(uint32_t src_l1, uint64_t dst_noc_addr,
                              std::source_location loc = std::source_location::current());
/// Copies the 4 bytes at src_l1 to every core of the rectangle except the sender.
void noc_semaphore_set_multicast(uint32_t src_l1, uint64_t dst_mcast, uint32_t num_dests,
                                 std::source_location loc = std::source_location::current());

/// This core's logical column / row in the grid.
uint32_t get_absolute_logical_x(std::source_location loc = std::source_location::current());
uint32_t get_absolute_logical_y(std::source_location loc = std::source_location::current());
