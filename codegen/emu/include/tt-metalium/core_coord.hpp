// ttlplan CPU emulator: TT-Metalium's tt-metalium/core_coord.hpp (docs/emulator.md "Host API").
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

/// A core: x = logical column, y = logical row (or NoC coordinates where a function says so).
struct CoreCoord {
  std::size_t x = 0;
  std::size_t y = 0;
  CoreCoord() = default;
  CoreCoord(std::size_t x_, std::size_t y_) : x(x_), y(y_) {}
  friend bool operator==(const CoreCoord&, const CoreCoord&) = default;
};

/// The cores [start_coord, end_coord] (inclusive in both coordinates).
struct CoreRange {
  CoreCoord start_coord;
  CoreCoord end_coord;
  CoreRange(const CoreCoord& c) : start_coord(c), end_coord(c) {}
  CoreRange(const CoreCoord& s, const CoreCoord& e) : start_coord(s), end_coord(e) {}
  friend bool operator==(const CoreRange&, const CoreRange&) = default;
};

/// A union of core ranges.
class CoreRangeSet {
public:
  CoreRangeSet() = default;
  CoreRangeSet(const CoreRange& r) : ranges_{r} {}
  explicit CoreRangeSet(std::vector<CoreRange> r) : ranges_(std::move(r)) {}
  const std::vector<CoreRange>& ranges() const { return ranges_; }

private:
  std::vector<CoreRange> ranges_;
};

namespace tt::tt_metal {
using ::CoreCoord;
using ::CoreRange;
using ::CoreRangeSet;
} // namespace tt::tt_metal
