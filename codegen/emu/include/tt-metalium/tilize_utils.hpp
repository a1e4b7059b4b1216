// ttlplan CPU emulator: tilize_nfaces / untilize_nfaces of TT-Metalium's
// tt-metalium/tilize_utils.hpp: a row-major m x n matrix (m, n multiples of 32) to 32 x 32 tiles
// in row-major tile order, each stored as four 16 x 16 faces (top-left, top-right, bottom-left,
// bottom-right), each face row-major; and back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ttlplan::emu {
/// Where element (r, c) of a row-major matrix with n columns lies in its tilized form.
inline std::size_t tiledIndex(std::size_t r, std::size_t c, std::size_t n) {
  const std::size_t tile = (r / 32) * (n / 32) + c / 32;
  const std::size_t tr = r % 32, tc = c % 32;
  return tile * 1024 + (tr / 16) * 512 + (tc / 16) * 256 + (tr % 16) * 16 + tc % 16;
}
} // namespace ttlplan::emu

template <typename T>
std::vector<T> tilize_nfaces(const std::vector<T>& input, uint32_t m, uint32_t n) {
  std::vector<T> out(input.size());
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t c = 0; c < n; ++c)
      out[ttlplan::emu::tiledIndex(r, c, n)] = input[r * n + c];
  return out;
}

template <typename T>
std::vector<T> untilize_nfaces(const std::vector<T>& input, uint32_t m, uint32_t n) {
  std::vector<T> out(input.size());
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t c = 0; c < n; ++c)
      out[r * n + c] = input[ttlplan::emu::tiledIndex(r, c, n)];
  return out;
}
