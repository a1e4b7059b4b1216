#include "ttlplan/reference/Compare.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <set>
#include <vector>

namespace ttlplan::reference {

namespace {

/// The largest error of one rounding to `type`, relative to the value rounded (block floats: to the
/// largest magnitude of its 16-element group). bfp8_b / bfp4_b keep m = 7 / 3 magnitude bits
/// including the leading one, so the group's largest value is at least 2^(m-1) quanta: rounding to
/// nearest errs by at most half a quantum, 2^-m of it; a magnitude that rounds up past 2^m - 1
/// saturates, erring by less than one quantum on a value of more than 2^m - 1/2 quanta, again
/// below 2^-m. The bound is reached (largest value 2^(m-1) quanta, another at an odd half).
double unitRoundoff(ir::DataType type) {
  switch (type) {
  case ir::DataType::BF16:
    return 0x1.0p-8;
  case ir::DataType::F16:
    return 0x1.0p-11;
  case ir::DataType::F32:
    return 0x1.0p-24;
  case ir::DataType::BFP8_B:
    return 0x1.0p-7;
  case ir::DataType::BFP4_B:
    return 0x1.0p-3;
  case ir::DataType::I32:
  case ir::DataType::U32:
    return 0;
  }
  return 0;
}

/// "[r, c]" for a flat index of `shape`.
std::string indexText(size_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] <= 0) return fmt::format("{}", flat);
    index[d] = static_cast<int64_t>(flat % static_cast<size_t>(shape[d]));
    flat /= static_cast<size_t>(shape[d]);
  }
  return fmt::format("[{}]", fmt::join(index, ", "));
}

/// |a - e|, with matching NaNs and matching infinities counting as equal.
double difference(double a, double e) {
  if (std::isnan(a) || std::isnan(e))
    return std::isnan(a) && std::isnan(e) ? 0 : std::numeric_limits<double>::infinity();
  if (std::isinf(a) || std::isinf(e)) return a == e ? 0 : std::numeric_limits<double>::infinity();
  return std::fabs(a - e);
}

} // namespace

Tolerance toleranceFor(ir::DataType type, int64_t reductionLength) {
  double length = static_cast<double>(std::max<int64_t>(reductionLength, 1));
  double packs = std::ceil(length / 32);
  Tolerance t;
  t.relative = unitRoundoff(type) * (3 + std::sqrt(packs)) + 0x1.0p-20 * (1 + std::sqrt(length));
  t.absoluteFloor = 0x1.0p-10;
  return t;
}

Comparison compare(const HostTensor& actual, const HostTensor& expected,
                   const Tolerance& tolerance) {
  Comparison c;
  if (actual.shape != expected.shape || actual.data.size() != expected.data.size()) {
    c.maxAbsError = c.maxRelError = std::numeric_limits<double>::infinity();
    c.summary = fmt::format("FAIL: shape [{}] ({} elements) differs from the expected [{}] ({})",
                            fmt::join(actual.shape, ", "), actual.data.size(),
                            fmt::join(expected.shape, ", "), expected.data.size());
    return c;
  }
  double scale = 0;
  for (double e : expected.data)
    if (std::isfinite(e)) scale = std::max(scale, std::fabs(e));
  double denominator = std::max(scale, tolerance.absoluteFloor);
  double limit = tolerance.relative * denominator;
  size_t bad = 0;
  // Which 32x32 tiles hold a bad element (for 2-D and higher, over the last two dims): a wrong
  // tile is the typical symptom of a planning or indexing bug.
  std::set<std::pair<size_t, size_t>> badTiles;
  size_t cols = expected.shape.empty() ? 1 : static_cast<size_t>(expected.shape.back());
  for (size_t i = 0; i < expected.data.size(); ++i) {
    double d = difference(actual.data[i], expected.data[i]);
    if (d > c.maxAbsError) {
      c.maxAbsError = d;
      c.worstIndex = i;
    }
    if (!(d <= limit)) {
      ++bad;
      if (cols > 0) badTiles.insert({i / cols / 32, i % cols / 32});
    }
  }
  c.maxRelError = c.maxAbsError / denominator;
  c.withinTolerance = bad == 0;
  std::string worst =
      expected.data.empty()
          ? std::string("no elements")
          : fmt::format("max abs error {:.3g} at {} (actual {:.6g}, expected {:.6g}); relative to "
                        "max|expected| {:.3g}: {:.3g} (tolerance {:.3g})",
                        c.maxAbsError, indexText(c.worstIndex, expected.shape),
                        actual.data[c.worstIndex], expected.data[c.worstIndex], scale,
                        c.maxRelError, tolerance.relative);
  if (c.withinTolerance) {
    c.summary = "ok: " + worst;
  } else {
    c.summary = fmt::format("FAIL: {} of {} elements off", bad, expected.data.size());
    if (expected.shape.size() >= 2) c.summary += fmt::format(" in {} tile(s)", badTiles.size());
    c.summary += "; " + worst;
  }
  return c;
}

} // namespace ttlplan::reference
