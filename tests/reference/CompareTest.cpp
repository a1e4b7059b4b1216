// Output comparison: a result that went through a correct bf16 pipeline (inputs in bf16, fp32
// math, bf16 rounding at every pack, matmul partial sums packed after every K tile) passes, and
// the same result with one wrong tile fails. Also the random inputs the comparison is run on.
#include "ttlplan/reference/Compare.h"

#include "ttlplan/reference/RandomInputs.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>

namespace ttlplan::reference {
namespace {

double bf16(double x) {
  return roundToDataType(x, ir::DataType::BF16);
}

HostTensor matmulExact(const HostTensor& a, const HostTensor& b) {
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  HostTensor c{{m, n}, std::vector<double>(static_cast<size_t>(m * n), 0.0)};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        c.data[i * n + j] += a.data[i * k + p] * b.data[p * n + j];
  return c;
}

/// What a bf16 device computes with K blocks of `kBlock` elements: each block's product in fp32
/// added to the partial result, which is packed to bf16 after every block.
HostTensor matmulBf16Pipeline(const HostTensor& a, const HostTensor& b, int64_t kBlock) {
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  HostTensor c{{m, n}, std::vector<double>(static_cast<size_t>(m * n), 0.0)};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float partial = 0;
      for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
        for (int64_t p = k0; p < k0 + kBlock; ++p)
          partial += static_cast<float>(a.data[i * k + p]) * static_cast<float>(b.data[p * n + j]);
        partial = static_cast<float>(bf16(partial));
      }
      c.data[i * n + j] = partial;
    }
  return c;
}

/// Replaces tile (tileRow, tileCol) of `c` by `value(r, c)`.
template <typename F> void setTile(HostTensor& t, int64_t tileRow, int64_t tileCol, F value) {
  int64_t n = t.shape[1];
  for (int64_t r = tileRow * 32; r < tileRow * 32 + 32; ++r)
    for (int64_t c = tileCol * 32; c < tileCol * 32 + 32; ++c)
      t.data[r * n + c] = value(r, c);
}

TEST(Compare, RoundedMatmulPassesAndOneWrongTileFails) {
  HostTensor a = randomTensor({256, 256}, ir::DataType::BF16, 7, 0);
  HostTensor b = randomTensor({256, 256}, ir::DataType::BF16, 7, 1);
  HostTensor expected = matmulExact(a, b);
  HostTensor actual = matmulBf16Pipeline(a, b, 32); // 8 packs of the partial sums
  Tolerance tol = toleranceFor(ir::DataType::BF16, 256);
  Comparison ok = compare(actual, expected, tol);
  EXPECT_TRUE(ok.withinTolerance) << ok.summary;
  EXPECT_GT(ok.maxAbsError, 0); // it really was rounded
  EXPECT_EQ(ok.summary.rfind("ok: ", 0), 0u) << ok.summary;

  // A tile computed without its last K block (an off-by-one K loop): small, but not rounding.
  HostTensor missingK = actual;
  HostTensor aShort = a, bShort = b;
  for (int64_t i = 0; i < 256; ++i)
    for (int64_t p = 224; p < 256; ++p)
      aShort.data[i * 256 + p] = 0;
  HostTensor partial = matmulExact(aShort, bShort);
  setTile(missingK, 3, 5, [&](int64_t r, int64_t c) { return bf16(partial.data[r * 256 + c]); });
  Comparison off = compare(missingK, expected, tol);
  EXPECT_FALSE(off.withinTolerance) << off.summary;
  EXPECT_EQ(off.worstIndex / 256 / 32, 3u);
  EXPECT_EQ(off.worstIndex % 256 / 32, 5u);
  EXPECT_NE(off.summary.find("in 1 tile(s)"), std::string::npos) << off.summary;

  // A tile of the neighbour's data (a wrong slice index).
  HostTensor shifted = actual;
  setTile(shifted, 0, 0, [&](int64_t r, int64_t c) { return actual.data[r * 256 + c + 32]; });
  EXPECT_FALSE(compare(shifted, expected, tol).withinTolerance);
}

TEST(Compare, RoundedSoftmaxPasses) {
  HostTensor x = randomTensor({64, 256}, ir::DataType::BF16, 3, 0);
  HostTensor expected{x.shape, std::vector<double>(x.data.size())};
  HostTensor actual = expected;
  for (int r = 0; r < 64; ++r) {
    const double* row = &x.data[r * 256];
    double m = *std::max_element(row, row + 256), sum = 0;
    float sumF = 0;
    for (int c = 0; c < 256; ++c) {
      sum += std::exp(row[c] - m);
      sumF += static_cast<float>(bf16(std::exp(static_cast<float>(row[c] - m))));
    }
    // The device: exp packed to bf16 (an intermediate CB), the sum and its reciprocal packed too.
    float inv = static_cast<float>(bf16(1.0f / static_cast<float>(bf16(sumF))));
    for (int c = 0; c < 256; ++c) {
      expected.data[r * 256 + c] = std::exp(row[c] - m) / sum;
      actual.data[r * 256 + c] = bf16(static_cast<float>(bf16(std::exp(row[c] - m))) * inv);
    }
  }
  Comparison c = compare(actual, expected, toleranceFor(ir::DataType::BF16, 256));
  EXPECT_TRUE(c.withinTolerance) << c.summary;
}

TEST(Compare, ToleranceDependsOnTheDataType) {
  HostTensor expected = randomTensor({32, 32}, ir::DataType::F32, 5, 0);
  for (double& v : expected.data)
    v /= 3; // not representable in bf16
  HostTensor inBf16 = expected, inF32 = expected;
  for (double& v : inBf16.data)
    v = bf16(v);
  for (double& v : inF32.data)
    v = static_cast<float>(v);
  EXPECT_TRUE(compare(inBf16, expected, toleranceFor(ir::DataType::BF16, 0)).withinTolerance);
  EXPECT_FALSE(compare(inBf16, expected, toleranceFor(ir::DataType::F32, 0)).withinTolerance);
  EXPECT_TRUE(compare(inF32, expected, toleranceFor(ir::DataType::F32, 0)).withinTolerance);
  // bfp8_b is coarser than bf16, so its tolerance is wider; longer reductions widen it too.
  EXPECT_GT(toleranceFor(ir::DataType::BFP8_B, 0).relative,
            toleranceFor(ir::DataType::BF16, 0).relative);
  EXPECT_GT(toleranceFor(ir::DataType::F16, 0).relative,
            toleranceFor(ir::DataType::F32, 0).relative);
  EXPECT_GT(toleranceFor(ir::DataType::BF16, 4096).relative,
            toleranceFor(ir::DataType::BF16, 256).relative);
  HostTensor inBfp8 = expected;
  roundTensorToDataType(inBfp8, ir::DataType::BFP8_B);
  EXPECT_TRUE(compare(inBfp8, expected, toleranceFor(ir::DataType::BFP8_B, 0)).withinTolerance);
}

TEST(Compare, ScaleIsTheLargestExpectedMagnitude) {
  // Near-zero elements are judged against max|expected| = 1, not against themselves.
  HostTensor expected{{4}, {1.0, 1e-6, -0.5, 0.0}};
  HostTensor actual{{4}, {1.0, 2e-3, -0.5, -1e-3}};
  Tolerance tol{0.01, 1e-3};
  Comparison c = compare(actual, expected, tol);
  EXPECT_TRUE(c.withinTolerance) << c.summary;
  EXPECT_EQ(c.worstIndex, 1u);
  EXPECT_NEAR(c.maxRelError, 2e-3 - 1e-6, 1e-12);
  // An all-zero expectation uses the floor: 1e-6 off is fine, 1e-3 is not.
  HostTensor zeros{{2}, {0, 0}};
  EXPECT_TRUE(compare(HostTensor{{2}, {1e-6, 0}}, zeros, tol).withinTolerance);
  EXPECT_FALSE(compare(HostTensor{{2}, {1e-3, 0}}, zeros, tol).withinTolerance);
}

TEST(Compare, NonFiniteAndShapeMismatches) {
  Tolerance tol{0.01, 1e-3};
  HostTensor expected{{3}, {NAN, INFINITY, 1}};
  EXPECT_TRUE(compare(HostTensor{{3}, {NAN, INFINITY, 1}}, expected, tol).withinTolerance);
  Comparison nan = compare(HostTensor{{3}, {NAN, INFINITY, NAN}}, expected, tol);
  EXPECT_FALSE(nan.withinTolerance);
  EXPECT_EQ(nan.worstIndex, 2u);
  EXPECT_TRUE(std::isinf(nan.maxAbsError));
  EXPECT_FALSE(compare(HostTensor{{3}, {NAN, -INFINITY, 1}}, expected, tol).withinTolerance);
  Comparison shape = compare(HostTensor{{1, 3}, {0, 0, 1}}, expected, tol);
  EXPECT_FALSE(shape.withinTolerance);
  EXPECT_NE(shape.summary.find("shape [1, 3]"), std::string::npos) << shape.summary;
}

TEST(ReferenceRandom, DeterministicUniformAndRounded) {
  HostTensor a = randomTensor({64, 64}, ir::DataType::BF16, 99, 0);
  HostTensor again = randomTensor({64, 64}, ir::DataType::BF16, 99, 0);
  HostTensor other = randomTensor({64, 64}, ir::DataType::BF16, 99, 1);
  EXPECT_EQ(a.data, again.data);
  EXPECT_NE(a.data, other.data);
  double lo = 0, hi = 0, mean = 0;
  for (double x : a.data) {
    EXPECT_EQ(bf16(x), x);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    mean += x / static_cast<double>(a.data.size());
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LE(hi, 1.0);
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  EXPECT_NEAR(mean, 0, 0.05);
  // Pinned: std::mt19937_64 and the explicit mapping give these on every platform.
  HostTensor pinned = randomTensor({3}, ir::DataType::F32, 42, 0);
  EXPECT_EQ(pinned.data, (std::vector<double>{-0x1.ee17f2p-1, 0x1.92a0cep-1, -0x1.0f39ap-1}));
}

TEST(ReferenceRandom, RoundingToEachDataType) {
  using ir::DataType;
  EXPECT_EQ(roundToDataType(1 + 0x1.0p-8, DataType::BF16), 1.0); // tie to even
  EXPECT_EQ(roundToDataType(1 + 3 * 0x1.0p-8, DataType::BF16), 1 + 0x1.0p-6);
  EXPECT_EQ(roundToDataType(1 + 0x1.0p-8 + 0x1.0p-20, DataType::BF16), 1 + 0x1.0p-7);
  EXPECT_EQ(roundToDataType(-0.333, DataType::BF16), -0.33203125); // 170 steps of 2^-9
  // Against the usual bit trick on float32 inputs (exact for them): add 0x7fff + lsb, truncate.
  HostTensor f = randomTensor({4096}, DataType::F32, 11, 0);
  for (double x : f.data) {
    uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(x * 1000));
    bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000u;
    ASSERT_EQ(roundToDataType(static_cast<float>(x * 1000), DataType::BF16),
              static_cast<double>(std::bit_cast<float>(bits)));
  }
  EXPECT_TRUE(std::isinf(roundToDataType(3.4e38, DataType::BF16)));
  EXPECT_EQ(roundToDataType(65519, DataType::F16), 65504);
  EXPECT_TRUE(std::isinf(roundToDataType(65520, DataType::F16)));
  EXPECT_EQ(roundToDataType(0x1.0p-25, DataType::F16), 0);             // half a subnormal step
  EXPECT_EQ(roundToDataType(3 * 0x1.0p-25, DataType::F16), 0x1.0p-23); // 1.5 steps -> 2
  EXPECT_EQ(roundToDataType(0.1, DataType::F32), static_cast<double>(0.1f));
  EXPECT_EQ(roundToDataType(-0.6, DataType::I32), -1);
  EXPECT_EQ(roundToDataType(-0.6, DataType::U32), 0);
  // bfp8_b: the group's largest exponent (1.0 = 0.5 x 2^1) gives a step of 2^-6.
  HostTensor g{{1, 18}, std::vector<double>(18, 0.0)};
  g.data[0] = 1.0;
  g.data[1] = 0.01;
  g.data[2] = -0.5;
  g.data[3] = 0.99;
  g.data[16] = 0.01; // the next group: its own exponent keeps it nearly exact
  roundTensorToDataType(g, DataType::BFP8_B);
  EXPECT_EQ(g.data[0], 1.0);
  EXPECT_EQ(g.data[1], 0.015625);
  EXPECT_EQ(g.data[2], -0.5);
  EXPECT_EQ(g.data[3], 0.984375);
  EXPECT_NEAR(g.data[16], 0.01, 0.01 / 64);
  HostTensor t = randomTensor({2, 32}, DataType::BFP4_B, 1, 0);
  for (double x : t.data)
    EXPECT_EQ(std::fmod(std::ldexp(x, 3), 1.0), 0.0); // steps >= 2^-3
}

} // namespace
} // namespace ttlplan::reference
