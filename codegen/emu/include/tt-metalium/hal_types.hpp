// ttlplan CPU emulator: TT-Metalium's tt-metalium/hal_types.hpp (the types the host program uses).
#pragma once

#include <cstdint>

namespace tt::tt_metal {
using DeviceAddr = std::uint64_t;
enum class HalMemType : uint8_t { L1 = 0, DRAM = 1, HOST = 2, COUNT = 3 };
enum class CoreType { WORKER, ETH, PCIE, DRAM };
} // namespace tt::tt_metal
