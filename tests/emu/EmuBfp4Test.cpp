// Bfp4_b packing in the emulator (codegen/emu/Formats.cpp, docs/emulator.md): bytes of
// hand-computed tiles, rounding cases worked out by hand, saturation, and the error bound the
// reference tolerance uses (docs/reference.md: u = 2^-3 of the group's largest magnitude). A tile
// is four 16 x 16 faces (top-left, top-right, bottom-left, bottom-right), each row-major; a group
// of 16 values sharing an exponent is one face row: group g is face g / 16, row g % 16 of it, so
// row r < 16 of the tile is groups r (columns 0..15) and 16 + r (columns 16..31).
#include "tt-metalium/tt_backend_api_types.hpp"
#include "ttlplan_host_io.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

using namespace ttlplan::emu;

namespace {

/// One 32 x 32 tile (row-major) packed as `format`, as bytes.
std::vector<uint8_t> packBytes(const std::vector<float>& tile, tt::DataFormat format) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(tilize(tile.data(), 32, 32, format, words, error)) << error;
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

/// Pack then unpack one tile.
std::vector<float> roundTrip(const std::vector<float>& tile, tt::DataFormat format) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(tilize(tile.data(), 32, 32, format, words, error)) << error;
  Matrix back;
  EXPECT_TRUE(untilize(words, 32, 32, format, back, error)) << error;
  return back.data;
}

} // namespace

TEST(EmuBfp4, TileIs576Bytes) {
  EXPECT_EQ(tileBytes(tt::DataFormat::Bfp4_b), 576u);
  EXPECT_EQ(packBytes(std::vector<float>(1024, 0.5f), tt::DataFormat::Bfp4_b).size(), 576u);
}

TEST(EmuBfp4, ExactValuesHaveTheseBytesAndRoundTrip) {
  std::vector<float> tile(1024, 0.0f);
  // Group 0 (row 0, columns 0..15): largest 1.75 -> exponent 127, quantum 2^(127-129) = 0.25;
  // magnitudes 4, 6, 1, 7, 0, 2, 3, 5.
  const float g0[8] = {1.0f, -1.5f, 0.25f, 1.75f, 0.0f, -0.5f, 0.75f, 1.25f};
  // Group 16 (row 0, columns 16..31: face 1's first row): largest 14 -> exponent 130, quantum 2;
  // magnitudes 4, 6, 1, 7.
  const float g1[4] = {8.0f, -12.0f, 2.0f, 14.0f};
  for (int i = 0; i < 8; ++i)
    tile[i] = g0[i];
  for (int i = 0; i < 4; ++i)
    tile[16 + i] = g1[i];
  const std::vector<uint8_t> b = packBytes(tile, tt::DataFormat::Bfp4_b);
  EXPECT_EQ(b[0], 127);
  EXPECT_EQ(b[16], 130);
  for (int g = 1; g < 64; ++g) {
    if (g == 16) continue;
    ASSERT_EQ(b[g], 0) << g; // all-zero groups
  }
  // Nibbles: sign in bit 3; element 2j low, 2j+1 high; group g's 8 bytes at 64 + 8 g.
  EXPECT_EQ(b[64], 0xE4);  // 4 | (8|6) << 4
  EXPECT_EQ(b[65], 0x71);  // 1 | 7 << 4
  EXPECT_EQ(b[66], 0xA0);  // 0 | (8|2) << 4
  EXPECT_EQ(b[67], 0x53);  // 3 | 5 << 4
  EXPECT_EQ(b[192], 0xE4); // group 16: 4 | (8|6) << 4
  EXPECT_EQ(b[193], 0x71); // 1 | 7 << 4
  for (int j = 68; j < 576; ++j) {
    if (j == 192 || j == 193) continue;
    ASSERT_EQ(b[j], 0) << j;
  }
  EXPECT_EQ(roundTrip(tile, tt::DataFormat::Bfp4_b), tile);
}

TEST(EmuBfp4, RoundsToNearestEvenAndSaturates) {
  // One group, largest 1.9 -> exponent 127, quantum 0.25. In quanta:
  //   1.9   = 7.6 -> 8 -> saturates to 7 = 1.75   (no exponent change, as tt-metal's packer)
  //   0.375 = 1.5 -> tie, 1 is odd  -> 2 = 0.5
  //   0.625 = 2.5 -> tie, 2 is even -> 2 = 0.5
  //   0.3   = 1.2 -> 1 = 0.25;   0.1 = 0.4 -> 0
  //  -0.125 = 0.5 -> tie, 0 even -> 0, stored without its sign (+0)
  //  -1.0   = 4 exactly
  std::vector<float> tile(1024, 0.0f);
  const float in[7] = {1.9f, 0.375f, 0.625f, 0.3f, 0.1f, -0.125f, -1.0f};
  const float want[7] = {1.75f, 0.5f, 0.5f, 0.25f, 0.0f, 0.0f, -1.0f};
  for (int i = 0; i < 7; ++i)
    tile[i] = in[i];
  const std::vector<float> out = roundTrip(tile, tt::DataFormat::Bfp4_b);
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(out[i], want[i]) << in[i];
  EXPECT_FALSE(std::signbit(out[5]));
  // The bound of docs/reference.md is reached: largest 1.0 = 4 quanta, 0.875 = 3.5 -> 4 (even):
  // an error of 0.125, exactly 1/8 of the group's largest value.
  tile[32] = 1.0f;
  tile[33] = 0.875f;
  EXPECT_EQ(roundTrip(tile, tt::DataFormat::Bfp4_b)[33], 1.0f);
  const std::vector<uint8_t> b = packBytes(tile, tt::DataFormat::Bfp4_b);
  EXPECT_EQ(b[64], 0x27); // 7 | 2 << 4
  EXPECT_EQ(b[65], 0x12); // 2 | 1 << 4
  EXPECT_EQ(b[66], 0x00); // 0.1 -> 0, -0.125 -> 0 without a sign
  EXPECT_EQ(b[67], 0x0C); // -1.0 -> 8|4 in the low nibble
}

TEST(EmuBfp4, InfinitiesSaturateAndSubnormalsFlush) {
  std::vector<float> tile(1024, 0.0f);
  tile[0] = std::numeric_limits<float>::infinity();
  tile[1] = -std::numeric_limits<float>::infinity();
  tile[2] = 1.0f;    // 2^-125 of the saturated scale: 0
  tile[16] = 1e-40f; // group 16 (face 1, row 0): a subnormal alone -> exponent 0, magnitude 0
  const std::vector<float> out = roundTrip(tile, tt::DataFormat::Bfp4_b);
  const float largest = std::ldexp(7.0f, 254 - 129); // 7 * 2^125
  EXPECT_EQ(out[0], largest);
  EXPECT_EQ(out[1], -largest);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_EQ(out[16], 0.0f);
  // Bfp8_b saturates the same way: 127 * 2^(254 - 133).
  EXPECT_EQ(roundTrip(tile, tt::DataFormat::Bfp8_b)[0], std::ldexp(127.0f, 254 - 133));
}

TEST(EmuBfp4, ErrorWithinAnEighthOfTheGroupMaximumAndPackingIsIdempotent) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> tile(1024);
  for (float& v : tile)
    v = dist(rng);
  const std::vector<float> out = roundTrip(tile, tt::DataFormat::Bfp4_b);
  // Values 16 g .. 16 g + 15 of the row-major tile are row g / 2, columns 0..15 or 16..31: one face
  // row, one group.
  for (int g = 0; g < 64; ++g) {
    float largest = 0;
    for (int i = 0; i < 16; ++i)
      largest = std::max(largest, std::fabs(tile[16 * g + i]));
    for (int i = 0; i < 16; ++i)
      ASSERT_LE(std::fabs(out[16 * g + i] - tile[16 * g + i]), largest / 8) << g << " " << i;
  }
  EXPECT_EQ(roundTrip(out, tt::DataFormat::Bfp4_b), out);
}
