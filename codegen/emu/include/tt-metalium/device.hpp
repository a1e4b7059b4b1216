// ttlplan CPU emulator: IDevice of TT-Metalium's tt-metalium/device.hpp, the one chip of a unit
// mesh (MeshDevice::get_device).
#pragma once

#include "tt-metalium/allocator.hpp"
#include "tt-metalium/core_coord.hpp"

#include <memory>

namespace tt::tt_metal {

class IDevice {
public:
  explicit IDevice(std::shared_ptr<ttlplan::emu::DeviceImpl> impl);
  IDevice(const IDevice&) = delete;
  IDevice& operator=(const IDevice&) = delete;
  int id() const { return 0; }
  CoreCoord compute_with_storage_grid_size() const;
  CoreCoord worker_core_from_logical_core(const CoreCoord& logical_core) const;
  uint32_t l1_size_per_core() const;
  const std::unique_ptr<Allocator>& allocator() const { return allocator_; }
  const std::shared_ptr<ttlplan::emu::DeviceImpl>& impl() const { return impl_; }

private:
  std::shared_ptr<ttlplan::emu::DeviceImpl> impl_;
  std::unique_ptr<Allocator> allocator_;
};

} // namespace tt::tt_metal
