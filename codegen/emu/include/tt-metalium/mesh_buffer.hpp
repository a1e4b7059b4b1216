// ttlplan CPU emulator: TT-Metalium's tt-metalium/mesh_buffer.hpp, for replicated interleaved
// buffers on the 1x1 mesh.
#pragma once

#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/hal_types.hpp"
#include "ttlplan_emu_kernel.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace ttlplan::emu {
struct BufferImpl;
}

namespace tt::tt_metal::distributed {

class MeshDevice;

/// How a buffer lies in the banks of one device: interleaved pages of page_size bytes.
struct DeviceLocalBufferConfig {
  DeviceAddr page_size = 0;
  BufferType buffer_type = BufferType::DRAM;
  std::optional<bool> bottom_up;
};

/// Each device gets `size` bytes.
struct ReplicatedBufferConfig {
  DeviceAddr size = 0;
};

class MeshBuffer {
public:
  static std::shared_ptr<MeshBuffer>
  create(const ReplicatedBufferConfig& mesh_buffer_config,
         const DeviceLocalBufferConfig& device_local_config, MeshDevice* mesh_device,
         std::optional<DeviceAddr> address = std::nullopt,
         ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
  explicit MeshBuffer(std::shared_ptr<ttlplan::emu::BufferImpl> impl) : impl_(std::move(impl)) {}
  /// The bank base address (the same on every device of the mesh).
  DeviceAddr address() const;
  DeviceAddr size() const;
  DeviceAddr page_size() const;
  BufferType buffer_type() const;
  const std::shared_ptr<ttlplan::emu::BufferImpl>& impl() const { return impl_; }

private:
  std::shared_ptr<ttlplan::emu::BufferImpl> impl_;
};

} // namespace tt::tt_metal::distributed
