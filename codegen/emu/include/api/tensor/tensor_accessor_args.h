// ttlplan CPU emulator: TT-Metalium's api/tensor/tensor_accessor_args.h, for interleaved tensors.
// TensorAccessorArgs<CTA_OFFSET> names the two compile-time args the host appended with
// tt::tt_metal::TensorAccessorArgs(buffer).append_to(...): [flags, aligned page size]; flag bit 2
// (IsDram) says DRAM, bit 1 (Sharded) must be clear.
#pragma once

#include <cstddef>
#include <cstdint>

template <std::size_t CTA_OFFSET, std::size_t CRTA_OFFSET = static_cast<std::size_t>(-1)>
struct TensorAccessorArgs {
  static constexpr std::size_t compile_time_args_offset() { return CTA_OFFSET; }
  static constexpr uint32_t num_compile_time_args() { return 2; }
  static constexpr std::size_t next_compile_time_args_offset() {
    return CTA_OFFSET + num_compile_time_args();
  }
};
