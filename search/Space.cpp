#include "ttlplan/search/Space.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <set>

namespace ttlplan::search {
namespace {

/// "[1, 2, 4]": a dimension's values as ir::Param::domain() spells a knob's.
std::string domainOf(const std::vector<ir::KnobValue>& values) {
  ir::Param p;
  p.values = values;
  return p.domain();
}

/// The first value listed twice, if any (a repeated value would give two ids one binding).
std::optional<ir::KnobValue> repeatedValue(const std::vector<ir::KnobValue>& values) {
  std::set<ir::KnobValue> seen;
  for (const ir::KnobValue& v : values)
    if (!seen.insert(v).second) return v;
  return std::nullopt;
}

/// Checks `fixed` against the declared knobs: each must exist and hold a value of its domain.
Status checkFixed(const std::vector<ir::Param>& params, const ir::Binding& fixed) {
  for (const auto& [name, value] : fixed) {
    const ir::Param* p = ir::findParam(params, name);
    if (!p) return Error{"fixed knob '" + name + "' is not a ttl.param of the kernel"};
    if (!p->allows(value))
      return Error{"fixed knob '" + name + "' = " + value.str() + " is not in its domain " +
                   p->domain()};
  }
  return Status::success();
}

/// A decimal uint64 filling all of `text`, or nullopt (no sign, no spaces, no overflow).
std::optional<uint64_t> parseCount(std::string_view text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

} // namespace

Expected<Space> Space::create(std::vector<Dimension> dimensions, ir::Binding fixed) {
  Space space;
  space.fixed_ = std::move(fixed);
  for (Dimension& d : dimensions)
    if (Status s = space.addDimension(std::move(d)); !s) return s.error();
  return space;
}

Expected<Space> Space::fromParams(const std::vector<ir::Param>& params, const ir::Binding& fixed) {
  if (Status s = checkFixed(params, fixed); !s) return s.error();
  Space space;
  space.fixed_ = fixed;
  std::set<std::string> declared;
  for (const ir::Param& p : params) {
    if (!declared.insert(p.name).second || fixed.count(p.name)) continue;
    if (Status s = space.addDimension({p.name, p.values}); !s) return s.error();
  }
  return space;
}

Status Space::addDimension(Dimension dimension) {
  const std::string& name = dimension.name;
  if (dimension.values.empty()) return Error{"dimension '" + name + "' has no values"};
  if (auto v = repeatedValue(dimension.values))
    return Error{"dimension '" + name + "' lists " + v->str() + " twice in " +
                 domainOf(dimension.values)};
  if (fixed_.count(name)) return Error{"dimension '" + name + "' is also a fixed knob"};
  for (const Dimension& d : dimensions_)
    if (d.name == name) return Error{"dimension '" + name + "' is already in the space"};
  uint64_t n = dimension.values.size();
  if (size_ > kMaxSpaceSize / n)
    return Error{"the search space is too large: more than 2^63 points with dimension '" + name +
                 "' (" + std::to_string(n) + " values); bind some knobs"};
  size_ *= n;
  for (uint64_t& stride : strides_)
    stride *= n;
  strides_.push_back(1);
  dimensions_.push_back(std::move(dimension));
  return Status::success();
}

std::vector<size_t> Space::indices(uint64_t id) const {
  assert(id < size_);
  std::vector<size_t> out(dimensions_.size());
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    out[d] = size_t(id / strides_[d]);
    id %= strides_[d];
  }
  return out;
}

uint64_t Space::idOfIndices(const std::vector<size_t>& indices) const {
  assert(indices.size() == dimensions_.size());
  uint64_t id = 0;
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    assert(indices[d] < dimensions_[d].values.size());
    id += uint64_t(indices[d]) * strides_[d];
  }
  return id;
}

ir::Binding Space::point(uint64_t id) const {
  ir::Binding out;
  std::vector<size_t> at = indices(id);
  for (size_t d = 0; d < dimensions_.size(); ++d)
    out[dimensions_[d].name] = dimensions_[d].values[at[d]];
  return out;
}

ir::Binding Space::binding(uint64_t id) const {
  ir::Binding out = point(id);
  out.insert(fixed_.begin(), fixed_.end());
  return out;
}

std::optional<uint64_t> Space::idOf(const ir::Binding& point) const {
  size_t matched = 0;
  std::vector<size_t> at(dimensions_.size());
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    auto it = point.find(dimensions_[d].name);
    if (it == point.end()) return std::nullopt;
    const auto& values = dimensions_[d].values;
    auto v = std::find(values.begin(), values.end(), it->second);
    if (v == values.end()) return std::nullopt;
    at[d] = size_t(v - values.begin());
    ++matched;
  }
  // Anything else in `point` must be a fixed knob at its fixed value.
  for (const auto& [name, value] : point) {
    if (auto f = fixed_.find(name); f != fixed_.end()) {
      if (f->second != value) return std::nullopt;
      ++matched;
    }
  }
  if (matched != point.size()) return std::nullopt;
  return idOfIndices(at);
}

std::vector<uint64_t> Space::neighbours(uint64_t id) const {
  std::vector<uint64_t> out;
  std::vector<size_t> at = indices(id);
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    if (at[d] > 0) out.push_back(id - strides_[d]);
    if (at[d] + 1 < dimensions_[d].values.size()) out.push_back(id + strides_[d]);
  }
  return out;
}

Expected<Shard> parseShard(std::string_view text) {
  std::string prefix = "--shard " + std::string(text) + ": ";
  size_t slash = text.find('/');
  if (slash == std::string_view::npos)
    return Error{prefix + "expected I/N (this part's index I and the number of parts N)"};
  std::optional<uint64_t> index = parseCount(text.substr(0, slash));
  std::optional<uint64_t> count = parseCount(text.substr(slash + 1));
  if (!index || !count)
    return Error{prefix + "I and N must be non-negative decimal integers (I/N, e.g. 0/4)"};
  if (*count == 0) return Error{prefix + "count must be at least 1"};
  if (*index >= *count) return Error{prefix + "index must be < count"};
  return Shard{*index, *count};
}

} // namespace ttlplan::search
