// ttlplan CPU emulator: TT-Metalium's tt-metalium/tensor_accessor_args.hpp, for interleaved
// buffers: append_to adds [flags, aligned page size] (flag IsDram = 2), which a kernel's
// TensorAccessorArgs<N> reads.
#pragma once

#include "tt-metalium/mesh_buffer.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace tt::tt_metal {

class TensorAccessorArgs {
public:
  explicit TensorAccessorArgs(const distributed::MeshBuffer& buffer);
  explicit TensorAccessorArgs(const std::shared_ptr<distributed::MeshBuffer>& buffer)
      : TensorAccessorArgs(*buffer) {}
  void append_to(std::vector<uint32_t>& compile_time_args) const;
  std::vector<uint32_t> get_compile_time_args() const;

private:
  uint32_t flags_ = 0;
  uint32_t page_size_ = 0;
};

} // namespace tt::tt_metal
