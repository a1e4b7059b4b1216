// Host helpers of the emulator: float32 .npy files and tilize/untilize in every data format.
#include "EmuTestSupport.h"
#include "tt-metalium/tilize_utils.hpp"
#include "ttlplan/codegen/EmuBuild.h"
#include "ttlplan/ir/Device.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace ttlplan::emu::test {
namespace {

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("ttlplan_emu_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

/// A .npy file with a hand-written header (version 1.0), padded as numpy pads it.
void writeRawNpy(const std::string& path, std::string header, const std::string& payload) {
  while ((10 + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff),
                       static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header << payload;
}

TEST(EmuHostIo, NpyRoundTrip) {
  Matrix m = randomBf16Matrix(3, 5, 7);
  m.data[4] = -0.0f;
  m.data[7] = 1e-30f;
  const std::string path = tempPath("roundtrip.npy");
  std::string error;
  ASSERT_TRUE(writeNpy(path, m, error)) << error;
  Matrix back;
  ASSERT_TRUE(readNpy(path, back, error)) << error;
  EXPECT_EQ(back.rows, 3u);
  EXPECT_EQ(back.cols, 5u);
  ASSERT_EQ(back.data.size(), m.data.size());
  EXPECT_EQ(std::memcmp(back.data.data(), m.data.data(), 4 * m.data.size()), 0);
  // The header numpy writes for the same array: 64-byte aligned, version 1.0.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.size(), 128u + 4 * 15);
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }"),
            std::string::npos);
  std::remove(path.c_str());
}

TEST(EmuHostIo, NpyReadsWhatNumpyWrites) {
  // numpy.save of numpy.arange(6, dtype=numpy.float32).reshape(2, 3).
  const std::string path = tempPath("numpy.npy");
  std::string payload;
  for (int i = 0; i < 6; ++i) {
    float f = static_cast<float>(i);
    payload.append(reinterpret_cast<const char*>(&f), 4);
  }
  writeRawNpy(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", payload);
  Matrix m;
  std::string error;
  ASSERT_TRUE(readNpy(path, m, error)) << error;
  EXPECT_EQ(m.rows, 2u);
  EXPECT_EQ(m.cols, 3u);
  EXPECT_EQ(m.data, (std::vector<float>{0, 1, 2, 3, 4, 5}));
  std::remove(path.c_str());
}

TEST(EmuHostIo, NpyRejectsOtherDtypesShapesAndOrders) {
  const std::string path = tempPath("bad.npy");
  Matrix m;
  std::string error;
  writeRawNpy(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }",
              std::string(8, '\0'));
  EXPECT_FALSE(readNpy(path, m, error));
  EXPECT_NE(error.find("'<f8' is not little-endian float32"), std::string::npos) << error;
  writeRawNpy(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2), }",
              std::string(32, '\0'));
  EXPECT_FALSE(readNpy(path, m, error));
  EXPECT_NE(error.find("is not 2-D"), std::string::npos) << error;
  writeRawNpy(path, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
              std::string(16, '\0'));
  EXPECT_FALSE(readNpy(path, m, error));
  EXPECT_NE(error.find("Fortran order"), std::string::npos) << error;
  writeRawNpy(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }",
              std::string(16, '\0'));
  EXPECT_FALSE(readNpy(path, m, error));
  EXPECT_NE(error.find("file ends before its 16 values"), std::string::npos) << error;
  {
    std::ofstream out(path, std::ios::binary);
    out << "not numpy";
  }
  EXPECT_FALSE(readNpy(path, m, error));
  EXPECT_NE(error.find("not a .npy file"), std::string::npos) << error;
  std::remove(path.c_str());
  EXPECT_FALSE(readNpy(path, m, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

TEST(EmuHostIo, TilizeOrderAndRoundTrip) {
  // Every element distinct (Float32 holds them exactly): value = row * 1000 + col.
  Matrix m;
  m.rows = 64;
  m.cols = 96;
  for (uint64_t r = 0; r < m.rows; ++r)
    for (uint64_t c = 0; c < m.cols; ++c)
      m.data.push_back(static_cast<float>(r * 1000 + c));
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(tilize(m, tt::DataFormat::Float32, words, error)) << error;
  ASSERT_EQ(words.size(), 6u * 1024);
  // Element (r, c) is in tile (r/32) * 3 + c/32, in face (tr/16) * 2 + tc/16 of it (tr = r%32,
  // tc = c%32; 256 values a face), at (tr%16) * 16 + tc%16 of the face.
  auto at = [&](uint64_t r, uint64_t c) {
    const uint64_t tr = r % 32, tc = c % 32;
    float f;
    std::memcpy(&f,
                &words[((r / 32) * 3 + c / 32) * 1024 + (tr / 16) * 512 + (tc / 16) * 256 +
                       (tr % 16) * 16 + tc % 16],
                4);
    return f;
  };
  EXPECT_EQ(at(0, 0), 0.0f);
  EXPECT_EQ(at(5, 40), 5040.0f);   // tile 1, face 0
  EXPECT_EQ(at(20, 50), 20050.0f); // tile 1, face 3
  EXPECT_EQ(at(3, 17), 3017.0f);   // tile 0, face 1
  EXPECT_EQ(at(33, 2), 33002.0f);  // tile 3, face 0
  EXPECT_EQ(at(63, 95), 63095.0f); // tile 5, face 3
  // Word 16 is not element (0, 16) (row-major tiles) but (1, 0): face 0's second row.
  float word16;
  std::memcpy(&word16, &words[16], 4);
  EXPECT_EQ(word16, 1000.0f);
  // The same order as TT-Metalium's tilize_nfaces, which generated host programs use.
  const std::vector<float> faces = tilize_nfaces(m.data, 64, 96);
  ASSERT_EQ(faces.size(), words.size());
  EXPECT_EQ(std::memcmp(faces.data(), words.data(), 4 * words.size()), 0);
  EXPECT_EQ(untilize_nfaces(faces, 64, 96), m.data);
  Matrix back;
  ASSERT_TRUE(untilize(words, 64, 96, tt::DataFormat::Float32, back, error)) << error;
  EXPECT_EQ(back.data, m.data);

  // bf16: the round trip is bf16 rounding.
  const Matrix r = randomBf16Matrix(32, 64, 8);
  Matrix unrounded = r;
  for (float& v : unrounded.data)
    v += 0x1p-12f;
  ASSERT_TRUE(tilize(unrounded, tt::DataFormat::Float16_b, words, error)) << error;
  EXPECT_EQ(words.size(), 2u * 512);
  ASSERT_TRUE(untilize(words, 32, 64, tt::DataFormat::Float16_b, back, error)) << error;
  for (size_t i = 0; i < back.data.size(); ++i)
    ASSERT_EQ(back.data[i], bf16Reference(unrounded.data[i])) << i;

  // bfp8: lossy, but packing what it unpacked gives the same bytes, and the error is bounded by
  // the group's largest value / 64.
  ASSERT_TRUE(tilize(r, tt::DataFormat::Bfp8_b, words, error)) << error;
  EXPECT_EQ(words.size() * 4, 2u * 1088);
  ASSERT_TRUE(untilize(words, 32, 64, tt::DataFormat::Bfp8_b, back, error)) << error;
  for (size_t i = 0; i < back.data.size(); ++i)
    EXPECT_LE(std::fabs(back.data[i] - r.data[i]), 2.0f / 64) << i;
  std::vector<uint32_t> again;
  ASSERT_TRUE(tilize(back, tt::DataFormat::Bfp8_b, again, error)) << error;
  EXPECT_EQ(again, words);
}

TEST(EmuHostIo, TilizeRejectsShapesThatAreNotTiles) {
  std::vector<uint32_t> words;
  std::string error;
  std::vector<float> data(32 * 40);
  EXPECT_FALSE(tilize(data.data(), 32, 40, tt::DataFormat::Float16_b, words, error));
  EXPECT_NE(error.find("multiples of 32"), std::string::npos) << error;
  Matrix out;
  EXPECT_FALSE(untilize(std::vector<uint32_t>(10), 32, 32, tt::DataFormat::Float16_b, out, error));
  EXPECT_NE(error.find("fewer than the 1 tiles"), std::string::npos) << error;
}

TEST(EmuHostIo, DeviceSpecJson) {
  DeviceSpec s;
  std::string error;
  const std::string json = R"({"name": "wormhole_b0", "grid_rows": 2, "grid_cols": 3,
    "l1_bytes": 1499136, "l1_unreserved_base": 103712, "dram_banks": 12,
    "dram_bank_bytes": 1073741824, "noc_x": [18, 19, 20], "noc_y": [18, 19],
    "dst_tiles_full_sync": 16, "dst_full_sync": false, "semaphores": 16,
    "semaphore_base": 100000, "max_cbs": 32, "max_runtime_args": 341})";
  ASSERT_TRUE(parseDeviceSpec(json, s, error)) << error;
  EXPECT_EQ(s.grid_cols, 3u);
  EXPECT_EQ(s.noc_x, (std::vector<uint32_t>{18, 19, 20}));
  std::string broken = json;
  broken.replace(broken.find("\"noc_y\": [18, 19]"), 17, "\"noc_y\": [18]");
  EXPECT_FALSE(parseDeviceSpec(broken, s, error));
  EXPECT_NE(error.find("'noc_y'"), std::string::npos) << error;
}

TEST(EmuHostIo, DstCountsDefaultToHalvesAndAreCheckedAgainstEachOther) {
  const std::string json = R"({"grid_rows": 1, "grid_cols": 1, "l1_bytes": 1499136,
    "l1_unreserved_base": 103712, "dram_banks": 12, "dram_bank_bytes": 1073741824,
    "noc_x": [18], "noc_y": [18], "dst_tiles_full_sync": 16, "semaphores": 16,
    "semaphore_base": 103456, "max_cbs": 32, "max_runtime_args": 341)";
  DeviceSpec s;
  std::string error;
  ASSERT_TRUE(parseDeviceSpec(json + "}", s, error)) << error;
  EXPECT_EQ(s.dst_tiles_half_sync, 8u);
  EXPECT_EQ(s.dst_tiles_full_sync_fp32, 8u);
  EXPECT_EQ(s.dst_tiles_half_sync_fp32, 4u);
  ASSERT_TRUE(parseDeviceSpec(json + R"(, "dst_tiles_half_sync": 2, "dst_tiles_full_sync_fp32": 6,
    "dst_tiles_half_sync_fp32": 2})",
                              s, error))
      << error;
  EXPECT_EQ(s.dst_tiles_half_sync, 2u);
  EXPECT_EQ(s.dst_tiles_full_sync_fp32, 6u);
  EXPECT_EQ(s.dst_tiles_half_sync_fp32, 2u);
  EXPECT_FALSE(parseDeviceSpec(json + R"(, "dst_tiles_half_sync": 17})", s, error));
  EXPECT_NE(error.find("'dst_tiles_half_sync'"), std::string::npos) << error;
  EXPECT_FALSE(parseDeviceSpec(json + R"(, "dst_tiles_half_sync": 2,
    "dst_tiles_half_sync_fp32": 3})",
                               s, error));
  EXPECT_NE(error.find("'dst_tiles_half_sync_fp32'"), std::string::npos) << error;
}

TEST(EmuHostIo, TheBuiltInDeviceIsTtlplansWormholeB0) {
  // The emulator's default is the description ttlplan plans for, as `ttlplan run` writes it.
  Expected<ir::Device> device = ir::builtinDevice("wormhole_b0");
  ASSERT_TRUE(device);
  DeviceSpec written;
  std::string error;
  ASSERT_TRUE(parseDeviceSpec(codegen::emitEmuDeviceSpec(*device), written, error)) << error;
  const DeviceSpec builtIn = wormholeB0Spec();
  EXPECT_EQ(builtIn.name, "wormhole_b0");
  EXPECT_EQ(builtIn.grid_rows, uint32_t(device->grid.compute.rows));
  EXPECT_EQ(builtIn.grid_cols, uint32_t(device->grid.compute.columns));
  EXPECT_EQ(builtIn.l1_bytes, uint32_t(device->l1.sizeBytes));
  EXPECT_EQ(builtIn.l1_unreserved_base, uint32_t(device->l1.unreservedBase));
  EXPECT_EQ(builtIn.dst_tiles_half_sync, uint32_t(device->dstCapacityTiles(false, false)));
  EXPECT_EQ(builtIn.dst_tiles_half_sync_fp32, uint32_t(device->dstCapacityTiles(false, true)));
  EXPECT_EQ(builtIn.max_cbs, uint32_t(device->cb.maxPerProgram));
  // Semaphores end where the CBs begin: 16 of 16 B below 103,712.
  EXPECT_EQ(builtIn.semaphore_base, 103712u - 16u * 16u);
  EXPECT_EQ(builtIn.semaphore_base, written.semaphore_base);
  EXPECT_EQ(builtIn.noc_x, written.noc_x);
  EXPECT_EQ(builtIn.noc_y, written.noc_y);
  EXPECT_EQ(builtIn.dram_banks, written.dram_banks);
  EXPECT_EQ(builtIn.max_runtime_args, written.max_runtime_args);
}

} // namespace
} // namespace ttlplan::emu::test
