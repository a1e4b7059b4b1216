// ttlplan CPU emulator: MeshDevice of TT-Metalium's tt-metalium/mesh_device.hpp, as a 1x1 mesh
// of the emulated device (docs/emulator.md "Device spec").
#pragma once

#include "tt-metalium/allocator.hpp"
#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/device.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "ttlplan_emu_kernel.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace tt::tt_metal::distributed {

class MeshDevice;

/// The mesh's command queue: every enqueue runs to completion before it returns.
class MeshCommandQueue {
public:
  explicit MeshCommandQueue(MeshDevice* device) : device_(device) {}
  MeshDevice* device() const { return device_; }

private:
  MeshDevice* device_;
};

class MeshDevice {
public:
  /// Reads the device description (docs/emulator.md) and allocates L1 for every core. Returns
  /// null (after an error report) only when the description is broken and exitOnError is off.
  static std::shared_ptr<MeshDevice>
  create_unit_mesh(int device_id, std::size_t l1_small_size = 0, std::size_t trace_region_size = 0,
                   std::size_t num_command_queues = 1,
                   ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
  explicit MeshDevice(std::shared_ptr<ttlplan::emu::DeviceImpl> impl);
  MeshDevice(const MeshDevice&) = delete;
  MeshDevice& operator=(const MeshDevice&) = delete;
  ~MeshDevice();

  /// Frees the device. With an error reported and Options::exitOnError, exits with status 3.
  bool close();
  MeshCommandQueue& mesh_command_queue(std::optional<uint8_t> cq_id = std::nullopt);
  const MeshShape& shape() const { return shape_; }
  IDevice* get_device(const MeshCoordinate& coord) const;
  /// The compute grid: x = columns, y = rows.
  CoreCoord compute_with_storage_grid_size() const;
  /// NoC (translated) coordinates of a logical core.
  CoreCoord worker_core_from_logical_core(const CoreCoord& logical_core) const;
  uint32_t l1_size_per_core() const;
  const std::unique_ptr<Allocator>& allocator() const { return device_->allocator(); }
  const std::shared_ptr<ttlplan::emu::DeviceImpl>& impl() const { return device_->impl(); }

private:
  std::unique_ptr<IDevice> device_;
  MeshShape shape_{1, 1};
  MeshCommandQueue queue_{this};
  bool closed_ = false;
};

} // namespace tt::tt_metal::distributed
