#include "ttlplan/reference/RandomInputs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace ttlplan::reference {

namespace {

/// Round half to even of a double holding at most 2^52 in magnitude (exact in double).
double roundHalfEven(double v) {
  double lower = std::floor(v);
  double fraction = v - lower;
  if (fraction > 0.5) return lower + 1;
  if (fraction < 0.5) return lower;
  return std::fmod(lower, 2.0) == 0 ? lower : lower + 1;
}

/// Rounds to `precision` significant bits with exponent range down to `minExponent` (the
/// frexp-style exponent of the smallest normal; smaller values keep that quantum: subnormals),
/// overflowing to infinity above `maxFinite`.
double roundToFloat(double x, int precision, int minExponent, double maxFinite) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e = 0;
  (void)std::frexp(x, &e); // |x| in [2^(e-1), 2^e)
  int quantumExponent = std::max(e, minExponent) - precision;
  double r = std::ldexp(roundHalfEven(std::ldexp(x, -quantumExponent)), quantumExponent);
  if (std::fabs(r) > maxFinite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

/// splitmix64: mixes (seed, argIndex) into one well-spread 64-bit seed.
uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void roundBlockFloat(std::vector<double>& data, int64_t rowLength, int mantissaBits) {
  constexpr int64_t kGroup = 16;
  int64_t rows = rowLength > 0 ? static_cast<int64_t>(data.size()) / rowLength : 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t g = 0; g < rowLength; g += kGroup) {
      double* x = data.data() + r * rowLength + g;
      int64_t n = std::min(kGroup, rowLength - g);
      int shared = INT32_MIN;
      for (int64_t i = 0; i < n; ++i)
        if (x[i] != 0 && std::isfinite(x[i])) {
          int e = 0;
          (void)std::frexp(x[i], &e);
          shared = std::max(shared, e);
        }
      if (shared == INT32_MIN) continue; // all zeros
      // The largest element is 1.f x 2^(shared-1); `mantissaBits` bits from its leading bit.
      int quantumExponent = shared - mantissaBits;
      double maxMagnitude = std::ldexp(1.0, mantissaBits) - 1;
      for (int64_t i = 0; i < n; ++i) {
        if (!std::isfinite(x[i])) continue;
        double m =
            std::min(roundHalfEven(std::fabs(std::ldexp(x[i], -quantumExponent))), maxMagnitude);
        x[i] = std::copysign(std::ldexp(m, quantumExponent), x[i]);
        if (x[i] == 0) x[i] = 0; // no negative zeros
      }
    }
}

} // namespace

double roundToDataType(double value, ir::DataType type) {
  switch (type) {
  case ir::DataType::BF16:
    return roundToFloat(value, 8, -125, 0x1.FEp127);
  case ir::DataType::F16:
    return roundToFloat(value, 11, -13, 65504.0);
  case ir::DataType::F32:
    return roundToFloat(value, 24, -125, 0x1.FFFFFEp127);
  case ir::DataType::I32:
    return std::isnan(value) ? 0 : std::clamp(roundHalfEven(value), -2147483648.0, 2147483647.0);
  case ir::DataType::U32:
    return std::isnan(value) ? 0 : std::clamp(roundHalfEven(value), 0.0, 4294967295.0);
  case ir::DataType::BFP8_B:
  case ir::DataType::BFP4_B:
    break; // needs its group: roundTensorToDataType
  }
  return value;
}

void roundTensorToDataType(HostTensor& tensor, ir::DataType type) {
  if (type == ir::DataType::BFP8_B || type == ir::DataType::BFP4_B) {
    int64_t rowLength = tensor.shape.empty() ? 1 : tensor.shape.back();
    roundBlockFloat(tensor.data, rowLength, type == ir::DataType::BFP8_B ? 7 : 3);
    return;
  }
  for (double& x : tensor.data)
    x = roundToDataType(x, type);
}

HostTensor randomTensor(const std::vector<int64_t>& shape, ir::DataType type, uint64_t seed,
                        int argIndex) {
  HostTensor t{shape, {}};
  int64_t n = elementCount(shape);
  if (n <= 0) return t;
  std::mt19937_64 engine(mix(seed ^ mix(static_cast<uint64_t>(argIndex) + 1)));
  t.data.resize(static_cast<size_t>(n));
  for (double& x : t.data) {
    // 53 random bits -> [0, 1) exactly, then [-1, 1).
    double u = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    x = 2 * u - 1;
  }
  roundTensorToDataType(t, type);
  return t;
}

} // namespace ttlplan::reference
