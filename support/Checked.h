#pragma once
// Checked arithmetic on sizes, counts, work items and addresses. Every such product or sum in
// ttlplan goes through these, so that an overflow becomes an error naming the value (the caller
// says which) and never a wrapped number that plans "1 item on 1 core".
#include <cstdint>
#include <optional>
#include <span>

namespace ttlplan {

/// a + b, or nullopt when it does not fit in int64_t.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// a - b, or nullopt when it does not fit in int64_t.
inline std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// a * b, or nullopt when it does not fit in int64_t.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// The product of `factors` (1 for none), or nullopt when it or a partial product exceeds `limit`
/// (INT64_MAX by default: plain overflow). Callers with a tighter sanity bound pass it, e.g. the
/// bytes of one circular buffer.
inline std::optional<int64_t> checkedProduct(std::span<const int64_t> factors,
                                             int64_t limit = INT64_MAX) {
  int64_t r = 1;
  for (int64_t f : factors) {
    std::optional<int64_t> next = checkedMul(r, f);
    if (!next || *next > limit || *next < -limit) return std::nullopt;
    r = *next;
  }
  return r;
}

/// Iterations of `for (i = lb; i < ub; i += step)`: 0 when ub <= lb, nullopt when step is not
/// positive. Computed in unsigned arithmetic, so extreme bounds (lb = INT64_MIN, ub = INT64_MAX)
/// give the right count instead of overflowing; a count above INT64_MAX is nullopt.
inline std::optional<int64_t> tripCount(int64_t lb, int64_t ub, int64_t step) {
  if (step <= 0) return std::nullopt;
  if (ub <= lb) return 0;
  uint64_t span = static_cast<uint64_t>(ub) - static_cast<uint64_t>(lb);
  uint64_t count = (span - 1) / static_cast<uint64_t>(step) + 1;
  if (count > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(count);
}

} // namespace ttlplan
