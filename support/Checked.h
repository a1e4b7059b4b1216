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

} // namespace ttlplan
