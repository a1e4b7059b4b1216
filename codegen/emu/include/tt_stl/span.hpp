// ttlplan CPU emulator: tt::stl::Span of TT-Metalium's tt_stl/span.hpp (std::span underneath).
#pragma once

#include <span>
#include <vector>

namespace tt::stl {
template <typename T> using Span = std::span<T>;
template <typename T> Span<const T> make_const_span(const std::vector<T>& v) {
  return Span<const T>(v.data(), v.size());
}
} // namespace tt::stl
