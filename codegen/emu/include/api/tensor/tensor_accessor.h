// ttlplan CPU emulator: TT-Metalium's api/tensor/tensor_accessor.h, for interleaved tensors: page
// i of the tensor lies in bank i % banks at bank_base_address + (i / banks) * aligned page size
// (DRAM banks; L1 banks are the cores, row-major).
#pragma once

#include "api/tensor/tensor_accessor_args.h"
#include "ttlplan_emu_kernel.h"

#include <cstddef>
#include <cstdint>

class TensorAccessor {
public:
  /// Reads the accessor's compile-time args at run time (the emulator's compile-time args are
  /// not constants); page_size_in, when not 0, must equal their aligned page size.
  template <std::size_t CTA_OFFSET, std::size_t CRTA_OFFSET>
  TensorAccessor(const TensorAccessorArgs<CTA_OFFSET, CRTA_OFFSET>&,
                 std::size_t bank_base_address_in, uint32_t page_size_in = 0,
                 ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current())
      : TensorAccessor(static_cast<int>(CTA_OFFSET), bank_base_address_in, page_size_in, loc) {}

  /// NoC address of byte `offset` of page `id`.
  uint64_t get_noc_addr(uint32_t id, uint32_t offset = 0, uint8_t noc = 0) const;
  uint32_t get_aligned_page_size() const { return page_size_; }
  bool is_dram() const { return dram_; }
  uint32_t bank_base_address() const { return bank_base_; }

private:
  TensorAccessor(int cta_offset, std::size_t bank_base_address, uint32_t page_size,
                 const ttlplan::emu::SourceLoc& loc);
  bool dram_ = true;
  uint32_t bank_base_ = 0;
  uint32_t page_size_ = 0;
  ttlplan::emu::SourceLoc loc_;
};
