// support/Npy: float32 .npy files, byte for byte as numpy writes them, and clear errors for the
// files `ttlplan run` cannot use.
#include "ttlplan/support/Npy.h"

#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>

namespace ttlplan {
namespace {

std::string header(const std::string& dict, int major = 1) {
  std::string padded = dict;
  size_t prefix = major == 1 ? 10 : 12;
  padded.append((64 - (prefix + padded.size() + 1) % 64) % 64, ' ');
  padded += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    out += static_cast<char>((padded.size() >> (8 * i)) & 0xff);
  return out + padded;
}

std::string floats(std::initializer_list<float> values) {
  std::string out;
  for (float f : values) {
    char bytes[4];
    std::memcpy(bytes, &f, 4); // the test machine is little-endian, as .npy '<f4' is
    out.append(bytes, 4);
  }
  return out;
}

TEST(Npy, EncodesExactlyAsNumpySaves) {
  // np.save of np.arange(6, dtype=np.float32).reshape(2, 3): a 64-byte-aligned v1.0 header.
  std::string expected = header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") +
                         floats({0, 1, 2, 3, 4, 5});
  ASSERT_EQ(expected.size() % 64, 24u); // 64 bytes of header, then 24 of data
  Expected<std::string> bytes = encodeNpy({{2, 3}, {0, 1, 2, 3, 4, 5}});
  ASSERT_TRUE(bytes) << bytes.error().message;
  EXPECT_EQ(*bytes, expected);
}

TEST(Npy, RoundTripsAnyRank) {
  for (const NpyArray& a : {NpyArray{{}, {3.5f}}, NpyArray{{4}, {1, -2, 0.25f, 1e30f}},
                            NpyArray{{2, 1, 3}, {1, 2, 3, 4, 5, 6}}, NpyArray{{0, 5}, {}}}) {
    Expected<std::string> bytes = encodeNpy(a);
    ASSERT_TRUE(bytes) << bytes.error().message;
    Expected<NpyArray> back = parseNpy(*bytes, "mem.npy");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->shape, a.shape);
    EXPECT_EQ(back->data, a.data);
  }
}

TEST(Npy, ReadsVersion2AndWritesFiles) {
  std::string v2 =
      header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 2) + floats({7, 8, 9});
  Expected<NpyArray> a = parseNpy(v2, "v2.npy");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->shape, std::vector<int64_t>{3});
  EXPECT_EQ(a->data, (std::vector<float>{7, 8, 9}));

  std::string path = (std::filesystem::temp_directory_path() / "ttlplan_npy_test.npy").string();
  ASSERT_TRUE(writeNpy(path, *a));
  Expected<NpyArray> back = readNpy(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->data, a->data);
}

void expectError(const std::string& bytes, const std::string& fragment) {
  Expected<NpyArray> a = parseNpy(bytes, "bad.npy");
  ASSERT_FALSE(a) << fragment;
  EXPECT_NE(a.error().message.find("bad.npy: not a float32 .npy file: " + fragment),
            std::string::npos)
      << a.error().message;
}

TEST(Npy, MalformedFilesAreClearErrors) {
  std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  expectError("PK\x03\x04 a zip file", "it does not start with the .npy magic");
  expectError(header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }") +
                  floats({1, 2, 3, 4}),
              "dtype '<f8' is not float32 ('<f4')");
  expectError(header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }") + floats({1, 2}),
              "dtype '>f4' is not float32");
  expectError(header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }") +
                  floats({1, 2, 3, 4}),
              "Fortran order is not supported");
  expectError(header(good) + floats({1}), "the data is truncated: shape needs 8 bytes, the "
                                          "file has 4");
  expectError(header(good) + floats({1, 2, 3}), "4 bytes after the data");
  expectError(header(good).substr(0, 30), "the header says 118 bytes but the file ends after 20");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }"),
              "shape (2, x) is not a tuple of integers");
  std::string v9 = header(good);
  v9[6] = 9;
  expectError(v9, "format version 9 is not 1, 2 or 3");
  Expected<NpyArray> missing = readNpy("/no/such/file.npy");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/no/such/file.npy"), std::string::npos);
}

TEST(Npy, EncodeChecksTheShape) {
  Expected<std::string> bytes = encodeNpy({{2, 2}, {1, 2, 3}});
  ASSERT_FALSE(bytes);
  EXPECT_NE(bytes.error().message.find("the shape has 4 elements but the data 3"),
            std::string::npos);
}

} // namespace
} // namespace ttlplan
