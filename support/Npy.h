#pragma once
// NumPy `.npy` files of float32 (the inputs and outputs of `ttlplan run`). Reads format versions
// 1.0, 2.0 and 3.0 with dtype '<f4' in C order and any rank; writes version 1.0 (2.0 when the
// header would not fit). Anything else (another dtype, Fortran order, a truncated file) is an
// Error that says what was found.
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan {

struct NpyArray {
  std::vector<int64_t> shape; ///< empty for a scalar (one element)
  std::vector<float> data;    ///< C (row-major) order
};

/// Parses the bytes of a .npy file; `origin` (a file name) starts every message.
Expected<NpyArray> parseNpy(std::string_view bytes, std::string_view origin);
/// Reads and parses a .npy file.
Expected<NpyArray> readNpy(const std::string& path);
/// The bytes of a .npy file holding `array`; an Error when data.size() is not the shape's product.
Expected<std::string> encodeNpy(const NpyArray& array);
/// Writes `array` to `path`.
Status writeNpy(const std::string& path, const NpyArray& array);

} // namespace ttlplan
