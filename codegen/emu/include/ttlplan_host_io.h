// ttlplan CPU emulator: host-side helpers for generated host programs and tests.
//   - float32 .npy files (2-D, C order, little-endian '<f4'), read and written;
//   - tilize/untilize between a row-major float matrix and the tile pages of a data format, as the
//     emulator's unpack/pack read them (docs/emulator.md "Conventions": a tile is 32 x 32 elements
//     stored row-major; tiles are numbered row-major over the tile grid, id = tr * (cols/32) + tc);
//   - rounding one value to bf16 as the packer does.
// Nothing throws; failures return false with a message that names the file and the problem.
#pragma once

#include "host_api.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ttlplan::emu {

/// A row-major float matrix.
struct Matrix {
  uint64_t rows = 0;
  uint64_t cols = 0;
  std::vector<float> data; // rows * cols values, row-major
};

/// Reads a 2-D float32 .npy file (format version 1, 2 or 3).
bool readNpy(const std::string& path, Matrix& out, std::string& error);
/// readNpy, and an error naming both shapes when the matrix is not rows x cols.
bool readNpyOfShape(const std::string& path, uint64_t rows, uint64_t cols, Matrix& out,
                    std::string& error);
/// Writes `m` as a 2-D '<f4' C-order .npy file (format version 1.0).
bool writeNpy(const std::string& path, const Matrix& m, std::string& error);

/// Bytes of one 32 x 32 tile: Float16_b 2048, Float32 4096, Bfp8_b 1088, Bfp4_b 576; 0 for other
/// formats.
uint32_t tileBytes(tt::DataFormat format);

/// Tile pages of `format` for a rows x cols row-major matrix (both multiples of 32), as 32-bit
/// words (little-endian bytes), ready for EnqueueWriteBuffer with page size tileBytes(format).
bool tilize(const float* data, uint64_t rows, uint64_t cols, tt::DataFormat format,
            std::vector<uint32_t>& words, std::string& error);
bool tilize(const Matrix& m, tt::DataFormat format, std::vector<uint32_t>& words,
            std::string& error);
/// The inverse: `words` holds (rows/32) * (cols/32) tiles of `format`.
bool untilize(const std::vector<uint32_t>& words, uint64_t rows, uint64_t cols,
              tt::DataFormat format, Matrix& out, std::string& error);

/// `m` grown to rows x cols (each at least m's), the new elements `value`: how the host pads a
/// tensor that is not whole tiles (docs/language.md, "Tensors of any shape").
Matrix padMatrix(const Matrix& m, uint64_t rows, uint64_t cols, float value);
/// The top-left rows x cols of `m` (each at most m's): how the host crops the padding off.
Matrix cropMatrix(const Matrix& m, uint64_t rows, uint64_t cols);

/// `value` rounded to bf16 (round to nearest, ties to even), as a float.
float roundToBf16(float value);

} // namespace ttlplan::emu
