// ttlplan CPU emulator: tilize_nfaces / untilize_nfaces of TT-Metalium's
// tt-metalium/tilize_utils.hpp: a row-major m x n matrix (m, n multiples of 32) to 32 x 32 tiles
// in row-major tile order, each stored as four 16 x 16 faces (top-left, top-right, bottom-left,
// bottom-right), each face row-major; and back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

template <typename T>
std::vector<T> tilize_nfaces(const std::vector<T>& input, uint32_t m, uint32_t n) {
  std::vector<T> out(input.size());
  const std::size_t tilesPerRow = n / 32;
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t tile = (r / 32) * tilesPerRow + c / 32;
      const std::size_t tr = r % 32, tc = c % 32;
      out[tile * 1024 + (tr / 16) * 512 + (tc / 16) * 256 + (tr % 16) * 16 + tc % 16] =
          input[r * n + c];
    }
  return out;
}

template <typename T>
std::vector<T> untilize_nfaces(const std::vector<T>& input, uint32_t m, uint32_t n) {
  std::vector<T> out(input.size());
  const std::size_t tilesPerRow = n / 32;
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t tile = (r / 32) * tilesPerRow + c / 32;
      const std::size_t tr = r % 32, tc = c % 32;
      out[r * n + c] =
          input[tile * 1024 + (tr / 16) * 512 + (tc / 16) * 256 + (tr % 16) * 16 + tc % 16];
    }
  return out;
}
