// ttlplan CPU emulator: BufferType of TT-Metalium's tt-metalium/buffer_types.hpp.
#pragma once

namespace tt::tt_metal {
enum class BufferType { DRAM, L1 };
}
