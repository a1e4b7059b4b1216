#include "ttlplan/search/Space.h"

#include "ttlplan/ir/DomainReads.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>

namespace ttlplan::search {
namespace {

/// "[1, 2, 4]": a dimension's values as a knob's list domain is spelled.
std::string domainOf(const std::vector<ir::KnobValue>& values) {
  return ir::KnobDomain::list(values).str();
}

/// The first value listed twice, if any (a repeated value would give two ids one binding).
std::optional<ir::KnobValue> repeatedValue(const std::vector<ir::KnobValue>& values) {
  std::set<ir::KnobValue> seen;
  for (const ir::KnobValue& v : values)
    if (!seen.insert(v).second) return v;
  return std::nullopt;
}

/// Checks `fixed` against the declared knobs: each must exist and hold a value of its domain
/// (where the domain reads only fixed knobs; the binding checker tests the others per point).
Status checkFixed(const std::vector<ir::Param>& params, const ir::Binding& fixed) {
  for (const auto& [name, value] : fixed) {
    const ir::Param* p = ir::findParam(params, name);
    if (!p) return Error{"fixed knob '" + name + "' is not a ttl.param of the kernel"};
    if (!ir::domainReadsOnly(p->domain, fixed)) continue; // checked per point
    Expected<bool> allowed = p->allows(value, fixed);
    if (!allowed)
      return Error{fmt::format("fixed knob '{}' = {}: {} ({})", name, value.str(),
                               allowed.error().message, p->op ? p->op->location().str() : "")};
    if (!*allowed)
      return Error{"fixed knob '" + name + "' = " + value.str() + " is not in its domain " +
                   p->domain.str()};
  }
  return Status::success();
}

/// " (FILE:LINE:COL)" of a param's declaration, or "".
std::string declaredAt(const ir::Param& p) {
  return p.op ? " (" + p.op->location().str() + ")" : "";
}

/// The searched knobs (first declarations not in `fixed`) grouped into the dimensions they form:
/// knobs whose domains read each other share one; groups in order of their first knob.
std::vector<std::vector<const ir::Param*>> groupKnobs(const std::vector<ir::Param>& params,
                                                      const ir::Binding& fixed) {
  std::vector<const ir::Param*> searched;
  for (const ir::Param& p : params)
    if (ir::findParam(params, p.name) == &p && !fixed.count(p.name)) searched.push_back(&p);
  // Union-find over the searched knobs by the knobs their domains read.
  std::vector<size_t> parent(searched.size());
  for (size_t i = 0; i < parent.size(); ++i)
    parent[i] = i;
  auto root = [&](size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t i = 0; i < searched.size(); ++i) {
    std::set<std::string> reads;
    searched[i]->domain.collectKnobs(reads);
    for (size_t j = 0; j < searched.size(); ++j)
      if (reads.count(searched[j]->name)) parent[root(i)] = root(j);
  }
  std::vector<std::vector<const ir::Param*>> groups;
  std::map<size_t, size_t> groupOfRoot;
  for (size_t i = 0; i < searched.size(); ++i) {
    auto [it, added] = groupOfRoot.emplace(root(i), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(searched[i]);
  }
  return groups;
}

/// The values of `p`'s domain under `binding`: nullopt where the domain is empty or does not
/// evaluate (such a point is rejected later, reason "domain"); Error where it is too large to list.
Expected<std::optional<std::vector<ir::KnobValue>>> domainValues(const ir::Param& p,
                                                                 const ir::Binding& binding) {
  using Values = std::optional<std::vector<ir::KnobValue>>;
  Expected<uint64_t> count = p.domain.count(binding);
  if (!count || *count == 0) return Values();
  if (*count > ir::kMaxDomainValues)
    return Error{fmt::format("the domain of @{}, {}, has {} values{}, more than the {} a searched "
                             "knob may have; bind @{} (--bind {}=VALUE) or narrow its domain{}",
                             p.name, p.domain.str(), *count,
                             binding.empty() ? "" : " under " + ir::str(binding),
                             ir::kMaxDomainValues, p.name, p.name, declaredAt(p))};
  Expected<std::vector<ir::KnobValue>> values = p.domain.values(binding);
  if (!values) return Values();
  return Values(std::move(*values));
}

/// Calls `emit` with each candidate of a joint dimension over `knobs` in canonical order (each
/// domain evaluated under `binding`, which holds the fixed knobs and the values before it; a
/// candidate stops short where a domain is empty or does not evaluate) until it returns false.
/// Error: a domain too large to list. Returns false in `go` when stopped.
Status walkCandidates(const std::vector<const ir::Param*>& knobs, size_t i, ir::Binding& binding,
                      std::vector<ir::KnobValue>& prefix, bool& go,
                      const std::function<bool(const std::vector<ir::KnobValue>&)>& emit) {
  if (i == knobs.size()) {
    go = emit(prefix);
    return Status::success();
  }
  Expected<std::optional<std::vector<ir::KnobValue>>> values = domainValues(*knobs[i], binding);
  if (!values) return values.error();
  if (!*values) // the point binds the knobs before i only; the checker rejects it
    return walkCandidates(knobs, knobs.size(), binding, prefix, go, emit);
  for (const ir::KnobValue& v : **values) {
    binding[knobs[i]->name] = v;
    prefix.push_back(v);
    Status s = walkCandidates(knobs, i + 1, binding, prefix, go, emit);
    prefix.pop_back();
    if (!s || !go) return s;
  }
  binding.erase(knobs[i]->name);
  return Status::success();
}

/// The candidates of a joint dimension over `knobs` under `fixed`: counted first (without
/// storing them), so that a dimension over kMaxJointCandidates is an Error before it takes memory.
Status listCandidates(const std::vector<const ir::Param*>& knobs, const ir::Binding& fixed,
                      std::vector<std::vector<ir::KnobValue>>& out) {
  uint64_t count = 0;
  bool go = true;
  ir::Binding binding = fixed;
  std::vector<ir::KnobValue> prefix;
  Status counted =
      walkCandidates(knobs, 0, binding, prefix, go, [&](const std::vector<ir::KnobValue>&) {
        return ++count <= kMaxJointCandidates;
      });
  if (!counted) return counted;
  if (count > kMaxJointCandidates) {
    std::string names;
    for (const ir::Param* p : knobs)
      names += (names.empty() ? "@" : ", @") + p->name;
    return Error{fmt::format("the knobs {} (whose domains read each other) have more than {} "
                             "combinations{}; bind @{} (--bind {}=VALUE) or narrow its domain{}",
                             names, kMaxJointCandidates,
                             fixed.empty() ? "" : " under " + ir::str(fixed), knobs.front()->name,
                             knobs.front()->name, declaredAt(*knobs.front()))};
  }
  out.reserve(size_t(count));
  binding = fixed;
  return walkCandidates(knobs, 0, binding, prefix, go, [&](const std::vector<ir::KnobValue>& c) {
    out.push_back(c);
    return true;
  });
}

/// The dimension of one group of knobs (groupKnobs()) under `fixed`.
Expected<Dimension> dimensionOf(const std::vector<const ir::Param*>& group,
                                const ir::Binding& fixed) {
  Dimension d;
  if (group.size() == 1) {
    Expected<std::optional<std::vector<ir::KnobValue>>> values = domainValues(*group[0], fixed);
    if (!values) return values.error();
    d.name = group[0]->name;
    if (*values) {
      d.values = std::move(**values);
      return d;
    }
    // An empty domain: one point that binds nothing here, rejected (reason "domain").
    d.knobs = {group[0]->name};
    d.tuples = {{}};
    return d;
  }
  for (const ir::Param* p : group) {
    d.name += (d.name.empty() ? "" : "+") + p->name;
    d.knobs.push_back(p->name);
  }
  if (Status s = listCandidates(group, fixed, d.tuples); !s) return s.error();
  return d;
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
  if (Status s = ir::checkProblemKnobsBound(params, fixed); !s) return s.error();
  Space space;
  space.fixed_ = fixed;
  for (const std::vector<const ir::Param*>& group : groupKnobs(params, fixed)) {
    Expected<Dimension> d = dimensionOf(group, fixed);
    if (!d) return d.error();
    if (Status s = space.addDimension(std::move(*d)); !s) return s.error();
  }
  return space;
}

Status Space::addDimension(Dimension dimension) {
  const std::string& name = dimension.name;
  if (dimension.size() == 0) return Error{"dimension '" + name + "' has no values"};
  if (!dimension.isJoint())
    if (auto v = repeatedValue(dimension.values))
      return Error{"dimension '" + name + "' lists " + v->str() + " twice in " +
                   domainOf(dimension.values)};
  std::map<std::vector<ir::KnobValue>, size_t> index;
  for (size_t i = 0; i < dimension.tuples.size(); ++i)
    if (dimension.tuples[i].size() > dimension.knobs.size() ||
        !index.emplace(dimension.tuples[i], i).second)
      return Error{"dimension '" + name + "' has a repeated or malformed candidate"};
  std::vector<std::string> names =
      dimension.isJoint() ? dimension.knobs : std::vector<std::string>{name};
  for (const std::string& n : names) {
    if (fixed_.count(n)) return Error{"dimension '" + n + "' is also a fixed knob"};
    for (const Dimension& d : dimensions_)
      if (d.name == n || std::count(d.knobs.begin(), d.knobs.end(), n))
        return Error{"dimension '" + n + "' is already in the space"};
  }
  uint64_t n = dimension.size();
  if (size_ > kMaxSpaceSize / n)
    return Error{"the search space is too large: more than 2^63 points with dimension '" + name +
                 "' (" + std::to_string(n) + " values); bind some knobs"};
  size_ *= n;
  for (uint64_t& stride : strides_)
    stride *= n;
  strides_.push_back(1);
  dimensions_.push_back(std::move(dimension));
  tupleIndex_.push_back(std::move(index));
  const Dimension& added = dimensions_.back();
  const auto d = uint32_t(dimensions_.size() - 1);
  if (!added.isJoint()) byName_.emplace_back(d, -1);
  for (size_t k = 0; k < added.knobs.size(); ++k)
    byName_.emplace_back(d, int32_t(k));
  std::sort(byName_.begin(), byName_.end(),
            [&](const auto& a, const auto& b) { return knobName(a) < knobName(b); });
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
    assert(indices[d] < dimensions_[d].size());
    id += uint64_t(indices[d]) * strides_[d];
  }
  return id;
}

const std::string& Space::knobName(std::pair<uint32_t, int32_t> knob) const {
  const Dimension& dim = dimensions_[knob.first];
  return knob.second < 0 ? dim.name : dim.knobs[size_t(knob.second)];
}

ir::Binding Space::point(uint64_t id) const {
  ir::Binding out;
  std::vector<size_t> at = indices(id);
  for (const auto& [d, k] : byName_) {
    const Dimension& dim = dimensions_[d];
    if (k < 0) {
      out.emplace_hint(out.end(), dim.name, dim.values[at[d]]);
      continue;
    }
    // A joint candidate cut short binds only its first knobs.
    const std::vector<ir::KnobValue>& tuple = dim.tuples[at[d]];
    if (size_t(k) < tuple.size())
      out.emplace_hint(out.end(), dim.knobs[size_t(k)], tuple[size_t(k)]);
  }
  return out;
}

ir::Binding Space::binding(uint64_t id) const {
  ir::Binding out = point(id);
  out.insert(fixed_.begin(), fixed_.end());
  return out;
}

std::optional<size_t> Space::indexIn(size_t d, const ir::Binding& point, size_t& matched) const {
  const Dimension& dim = dimensions_[d];
  if (!dim.isJoint()) {
    auto it = point.find(dim.name);
    if (it == point.end()) return std::nullopt;
    auto v = std::find(dim.values.begin(), dim.values.end(), it->second);
    if (v == dim.values.end()) return std::nullopt;
    ++matched;
    return size_t(v - dim.values.begin());
  }
  // The knobs present, in order, up to the first one missing (a candidate cut short).
  std::vector<ir::KnobValue> tuple;
  for (const std::string& k : dim.knobs) {
    auto it = point.find(k);
    if (it == point.end()) break;
    tuple.push_back(it->second);
  }
  auto it = tupleIndex_[d].find(tuple);
  if (it == tupleIndex_[d].end()) return std::nullopt;
  matched += tuple.size();
  return it->second;
}

std::optional<uint64_t> Space::idOf(const ir::Binding& point) const {
  size_t matched = 0;
  std::vector<size_t> at(dimensions_.size());
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    std::optional<size_t> index = indexIn(d, point, matched);
    if (!index) return std::nullopt;
    at[d] = *index;
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
    if (at[d] + 1 < dimensions_[d].size()) out.push_back(id + strides_[d]);
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
