// ttlplan CPU emulator: bfloat16 of TT-Metalium's tt-metalium/bfloat16.hpp: from a number with
// round-to-nearest-even (NaN becomes 0x7FC0), to float by widening.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

class bfloat16 {
public:
  bfloat16() = default;
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  bfloat16(T v) noexcept : bits_(fromFloat(static_cast<float>(v))) {}
  operator float() const {
    const uint32_t u = static_cast<uint32_t>(bits_) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  uint16_t to_packed() const { return bits_; }

private:
  static uint16_t fromFloat(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  uint16_t bits_ = 0;
};
static_assert(sizeof(bfloat16) == 2);
