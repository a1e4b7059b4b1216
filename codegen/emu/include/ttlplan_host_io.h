// ttlplan CPU emulator: host-side helpers for generated host programs and tests.
//   - float32 .npy files (ttlplan_npy.hpp);
//   - tilize/untilize between a row-major float matrix and the tile pages of a data format, as the
//     hardware and the emulator's unpack/pack read them (docs/emulator.md "Conventions": a tile is
//     32 x 32 elements stored as four 16 x 16 faces, top-left, top-right, bottom-left,
//     bottom-right, each row-major, as TT-Metalium's tilize_nfaces lays them out; tiles are
//     numbered row-major over the tile grid, id = tr * (cols/32) + tc);
//   - rounding one value to bf16 as the packer does.
// Nothing throws; failures return false with a message that names the file and the problem.
#pragma once

#include "tt-metalium/tt_backend_api_types.hpp"
#include "ttlplan_npy.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ttlplan::emu {

// The .npy side (ttlplan_npy.hpp), under the names the emulator's tests use.
using npy::cropMatrix;
using npy::Matrix;
using npy::padMatrix;
using npy::readNpy;
using npy::readNpyOfShape;
using npy::writeNpy;

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

/// `value` rounded to bf16 (round to nearest, ties to even), as a float.
float roundToBf16(float value);

} // namespace ttlplan::emu
