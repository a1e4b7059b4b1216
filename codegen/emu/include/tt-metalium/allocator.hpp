// ttlplan CPU emulator: Allocator of TT-Metalium's tt-metalium/allocator.hpp (the queries a host
// program makes).
#pragma once

#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/hal_types.hpp"

#include <cstdint>
#include <memory>

namespace ttlplan::emu {
struct DeviceImpl;
}

namespace tt::tt_metal {

class Allocator {
public:
  explicit Allocator(std::shared_ptr<ttlplan::emu::DeviceImpl> device)
      : device_(std::move(device)) {}
  /// L1: the first byte free for CBs (the device spec's l1_unreserved_base); DRAM: 0.
  DeviceAddr get_base_allocator_addr(const HalMemType& mem_type) const;
  /// DRAM: the alignment CBs are placed at (the device spec's cb_alignment); L1: 16.
  uint32_t get_alignment(BufferType buffer_type) const;

private:
  std::shared_ptr<ttlplan::emu::DeviceImpl> device_;
};

} // namespace tt::tt_metal
