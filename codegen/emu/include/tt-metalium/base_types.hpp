// ttlplan CPU emulator: MathFidelity of TT-Metalium's tt-metalium/base_types.hpp.
#pragma once

#include <cstdint>

enum class MathFidelity : uint8_t { LoFi = 0, HiFi2 = 2, HiFi3 = 3, HiFi4 = 4, Invalid = 0xff };

namespace tt::tt_metal {
using ::MathFidelity;
}
