// Host helpers (ttlplan_host_io.h): tilize/untilize in a tile data format (the .npy side is the
// header-only ttlplan_npy.hpp).
#include "Runtime.h"
#include "tt-metalium/bfloat4.hpp"
#include "tt-metalium/bfloat8.hpp"
#include "ttlplan_host_io.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ttlplan::emu {
namespace {

bool checkTileShape(uint64_t rows, uint64_t cols, tt::DataFormat format, std::string& error) {
  if (rows == 0 || cols == 0 || rows % 32 || cols % 32) {
    error = "a " + std::to_string(rows) + " x " + std::to_string(cols) +
            " matrix cannot be tiled: both sizes must be positive multiples of 32";
    return false;
  }
  if (!formatSupported(format)) {
    error = "data format " + std::to_string(static_cast<int>(format)) +
            " is not supported (Float16_b, Float32, Bfp8_b, Bfp4_b are)";
    return false;
  }
  return true;
}

} // namespace

bool tilize(const float* data, uint64_t rows, uint64_t cols, tt::DataFormat format,
            std::vector<uint32_t>& words, std::string& error) {
  if (!checkTileShape(rows, cols, format, error)) return false;
  const uint32_t bytes = formatTileBytes(format);
  const uint64_t tr = rows / 32, tc = cols / 32;
  std::vector<uint8_t> raw(tr * tc * bytes);
  float tile[kTileElems], faces[kTileElems];
  for (uint64_t r = 0; r < tr; ++r)
    for (uint64_t c = 0; c < tc; ++c) {
      for (uint32_t i = 0; i < 32; ++i)
        std::memcpy(tile + 32 * i, data + (r * 32 + i) * cols + c * 32, 32 * sizeof(float));
      rowMajorToFaces(tile, faces);
      packTile(format, faces, raw.data() + (r * tc + c) * bytes);
    }
  words.assign(raw.size() / 4, 0);
  std::memcpy(words.data(), raw.data(), raw.size());
  return true;
}

bool tilize(const Matrix& m, tt::DataFormat format, std::vector<uint32_t>& words,
            std::string& error) {
  if (m.data.size() != m.rows * m.cols) {
    error = "matrix holds " + std::to_string(m.data.size()) + " values, not " +
            std::to_string(m.rows) + " x " + std::to_string(m.cols);
    return false;
  }
  return tilize(m.data.data(), m.rows, m.cols, format, words, error);
}

bool untilize(const std::vector<uint32_t>& words, uint64_t rows, uint64_t cols,
              tt::DataFormat format, Matrix& out, std::string& error) {
  if (!checkTileShape(rows, cols, format, error)) return false;
  const uint32_t bytes = formatTileBytes(format);
  const uint64_t tr = rows / 32, tc = cols / 32;
  if (words.size() * 4 < tr * tc * bytes) {
    error = std::to_string(words.size() * 4) + " bytes hold fewer than the " +
            std::to_string(tr * tc) + " tiles of " + formatName(format) + " of a " +
            std::to_string(rows) + " x " + std::to_string(cols) + " matrix";
    return false;
  }
  const uint8_t* raw = reinterpret_cast<const uint8_t*>(words.data());
  out.rows = rows;
  out.cols = cols;
  out.data.assign(rows * cols, 0.0f);
  float tile[kTileElems], faces[kTileElems];
  for (uint64_t r = 0; r < tr; ++r)
    for (uint64_t c = 0; c < tc; ++c) {
      unpackTile(format, raw + (r * tc + c) * bytes, faces);
      facesToRowMajor(faces, tile);
      for (uint32_t i = 0; i < 32; ++i)
        std::memcpy(out.data.data() + (r * 32 + i) * cols + c * 32, tile + 32 * i,
                    32 * sizeof(float));
    }
  return true;
}

} // namespace ttlplan::emu

// TT-Metalium's host-side block-float packing (tt-metalium/bfloat8.hpp, bfloat4.hpp): whole tiles
// of 1024 values, in face order unless row_major_input (then each tile is row-major and is put in
// face order first). The bytes are the emulator's Formats, as its packer writes them.
namespace {

std::vector<uint32_t> packBfpTiles(std::span<const float> data, bool rowMajorInput,
                                   tt::DataFormat format) {
  using namespace ttlplan::emu;
  const uint32_t bytes = formatTileBytes(format);
  const size_t tiles = data.size() / kTileElems;
  std::vector<uint8_t> raw(tiles * bytes);
  float faces[kTileElems];
  for (size_t t = 0; t < tiles; ++t) {
    const float* tile = data.data() + t * kTileElems;
    if (rowMajorInput) {
      rowMajorToFaces(tile, faces);
      tile = faces;
    }
    packTile(format, tile, raw.data() + t * bytes);
  }
  std::vector<uint32_t> words((raw.size() + 3) / 4, 0);
  std::memcpy(words.data(), raw.data(), raw.size());
  return words;
}

std::vector<float> unpackBfpTiles(std::span<const uint32_t> words, bool rowMajorOutput,
                                  tt::DataFormat format) {
  using namespace ttlplan::emu;
  const uint32_t bytes = formatTileBytes(format);
  const size_t tiles = words.size() * 4 / bytes;
  const uint8_t* raw = reinterpret_cast<const uint8_t*>(words.data());
  std::vector<float> out(tiles * kTileElems);
  float faces[kTileElems];
  for (size_t t = 0; t < tiles; ++t) {
    float* tile = out.data() + t * kTileElems;
    if (rowMajorOutput) {
      unpackTile(format, raw + t * bytes, faces);
      facesToRowMajor(faces, tile);
    } else {
      unpackTile(format, raw + t * bytes, tile);
    }
  }
  return out;
}

} // namespace

std::vector<uint32_t> pack_as_bfp8_tiles(tt::stl::Span<const float> data, bool row_major_input,
                                         bool is_exp_a) {
  (void)is_exp_a; // Bfp8_b; the emulator has no Bfp8 (exponent A) format
  return packBfpTiles(data, row_major_input, tt::DataFormat::Bfp8_b);
}

std::vector<float> unpack_bfp8_tiles_into_float_vec(tt::stl::Span<const uint32_t> bfp8_tiles,
                                                    bool row_major_output, bool is_exp_a) {
  (void)is_exp_a;
  return unpackBfpTiles(bfp8_tiles, row_major_output, tt::DataFormat::Bfp8_b);
}

std::vector<uint32_t> pack_as_bfp4_tiles(tt::stl::Span<const float> data, bool row_major_input,
                                         bool is_exp_a) {
  (void)is_exp_a;
  return packBfpTiles(data, row_major_input, tt::DataFormat::Bfp4_b);
}

std::vector<float> unpack_bfp4_tiles_into_float_vec(tt::stl::Span<const uint32_t> bfp4_tiles,
                                                    bool row_major_output, bool is_exp_a) {
  (void)is_exp_a;
  return unpackBfpTiles(bfp4_tiles, row_major_output, tt::DataFormat::Bfp4_b);
}
