// ttlplan CPU emulator: tt::DataFormat of TT-Metalium's tt-metalium/tt_backend_api_types.hpp.
// The emulator implements Float32, Float16_b, Bfp8_b and Bfp4_b; a CB of another format is an
// error at EnqueueMeshWorkload.
#pragma once

#include <cstdint>

namespace tt {
enum class DataFormat : uint8_t {
  Float32 = 0,
  Float16 = 1,
  Bfp8 = 2,
  Bfp4 = 3,
  Float16_b = 5,
  Bfp8_b = 6,
  Bfp4_b = 7,
  Int32 = 8,
  UInt16 = 9,
  UInt32 = 24,
  Invalid = 0xff
};
} // namespace tt
