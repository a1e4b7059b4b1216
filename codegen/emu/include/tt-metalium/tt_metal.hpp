// ttlplan CPU emulator: detail::ReadFromDeviceL1 of TT-Metalium's tt-metalium/tt_metal.hpp.
#pragma once

#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/device.hpp"
#include "tt-metalium/hal_types.hpp"

#include <cstdint>
#include <vector>

namespace tt::tt_metal::detail {
/// `size` bytes of `logical_core`'s L1 from `address` into host_buffer (resized to size / 4).
bool ReadFromDeviceL1(IDevice* device, const CoreCoord& logical_core, uint32_t address,
                      uint32_t size, std::vector<uint32_t>& host_buffer,
                      CoreType core_type = CoreType::WORKER);
} // namespace tt::tt_metal::detail
