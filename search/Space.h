#pragma once
// The tuner's search space (docs/architecture.md, "The search"): the knobs a template leaves
// unbound, and the planner choices the tuner adds, as an ordered list of dimensions over a fixed
// partial binding. Every point has an id, mixed radix over the dimensions with the FIRST dimension
// SLOWEST (the order of ir::forEachBinding), so strategies, shards and the TuningDB agree on one
// canonical enumeration: id 0 is every dimension's first value.
#include "ttlplan/ir/KnobValue.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/support/Expected.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::search {

/// One searched choice: a knob's domain, a planner choice the tuner searches, or a joint
/// dimension: knobs whose domains read each other (`@out_block_h = divisors(@per_core_M)`), whose
/// candidates are their legal combinations.
struct Dimension {
  /// The knob's name without '@', or the planner choice's name ("block_count(%cba)"); a joint
  /// dimension's knobs joined by '+' ("per_core_M+out_block_h"). Unique in a Space.
  std::string name;
  /// A plain dimension's candidates in canonical order (index 0 is id 0's value); distinct, at
  /// least one. Empty for a joint dimension.
  std::vector<ir::KnobValue> values;
  /// A joint dimension's knobs, each after the knobs its domain reads (declaration order); empty
  /// for a plain dimension.
  std::vector<std::string> knobs;
  /// A joint dimension's candidates: a value per knob, in canonical order (lexicographic, each
  /// knob's values in its domain's order). A candidate stops short of `knobs` where a domain is
  /// empty or does not evaluate under the values before it: that point binds fewer knobs and the
  /// binding checker rejects it (reason "domain").
  std::vector<std::vector<ir::KnobValue>> tuples;

  bool isJoint() const { return !knobs.empty(); }
  /// Number of candidates.
  size_t size() const { return isJoint() ? tuples.size() : values.size(); }
};

/// The most values a joint dimension may have: its candidates are listed in memory.
inline constexpr uint64_t kMaxJointCandidates = uint64_t(1) << 20;

/// The most points a Space may have. Larger spaces are an Error when they are built (rather than
/// a saturated size), so every id, position and count of a valid Space fits in a uint64_t.
inline constexpr uint64_t kMaxSpaceSize = uint64_t(1) << 63;

/// The points the tuner may evaluate: the Cartesian product of the dimensions, each completed by
/// the fixed binding (the knobs the user bound).
class Space {
public:
  /// One point (no dimensions), nothing fixed.
  Space() = default;

  /// A space over `dimensions` in order (the first varies slowest) with `fixed` bound. Error: a
  /// dimension addDimension() refuses.
  static Expected<Space> create(std::vector<Dimension> dimensions, ir::Binding fixed = {});

  /// The space of a template's knobs. Every knob of `params` not in `fixed` is searched (a
  /// duplicated name counts once, with its first declaration, as ir::findParam does): a knob
  /// whose domain reads no searched knob is a plain dimension of its domain's values under
  /// `fixed`; knobs whose domains read each other (directly or through others) form one joint
  /// dimension. Dimensions are ordered by their first knob's declaration. Errors: a fixed knob no
  /// param declares or whose value is not in its domain (where the domain reads only fixed knobs;
  /// the message names the knob and its domain), an unbound problem knob, a searched domain over
  /// ir::kMaxDomainValues values, a joint dimension over kMaxJointCandidates, a space over
  /// kMaxSpaceSize. Each error names the knob and where it is declared.
  static Expected<Space> fromParams(const std::vector<ir::Param>& params, const ir::Binding& fixed);

  /// Appends `dimension` as the fastest-varying one (ids of existing points change). Error, and
  /// the space unchanged: no values, a repeated value (or candidate), a name (or a joint
  /// dimension's knob) already searched or fixed, or a product over kMaxSpaceSize.
  Status addDimension(Dimension dimension);

  /// The searched dimensions, slowest first.
  const std::vector<Dimension>& dimensions() const { return dimensions_; }
  /// The knobs bound outside the search; part of every binding().
  const ir::Binding& fixed() const { return fixed_; }
  /// Number of points: the product of the dimensions' value counts, 1 when there are none.
  uint64_t size() const { return size_; }

  /// The value index of each dimension at point `id` (id < size()).
  std::vector<size_t> indices(uint64_t id) const;
  /// The id of the point with value `indices[d]` in dimension d (each index in range).
  uint64_t idOfIndices(const std::vector<size_t>& indices) const;

  /// The searched dimensions' values at point `id` (id < size()).
  ir::Binding point(uint64_t id) const;
  /// The full binding of point `id`: fixed() plus point(id); what the template is instantiated at.
  ir::Binding binding(uint64_t id) const;
  /// The id of `point`, which binds every dimension to one of its values; it may also hold fixed
  /// knobs at their fixed values (so binding(id) maps back). nullopt for anything else.
  std::optional<uint64_t> idOf(const ir::Binding& point) const;

  /// The points one step away from `id`: one dimension moved to the adjacent value, in the order
  /// dimension 0 down, dimension 0 up, dimension 1 down, ... (missing steps at the ends skipped).
  std::vector<uint64_t> neighbours(uint64_t id) const;

private:
  /// The index of the candidate of dimension `d` that `point` binds (adding to `matched` the
  /// entries of `point` it reads), or nullopt when it binds none.
  std::optional<size_t> indexIn(size_t d, const ir::Binding& point, size_t& matched) const;
  /// The name of an entry of byName_.
  const std::string& knobName(std::pair<uint32_t, int32_t> knob) const;

  std::vector<Dimension> dimensions_;
  /// Per joint dimension (by index), each candidate's index by its values.
  std::vector<std::map<std::vector<ir::KnobValue>, size_t>> tupleIndex_;
  std::vector<uint64_t> strides_; ///< id weight of each dimension: the product of the later sizes
  /// Every searched knob as (dimension, index in its knobs, or -1 for a plain dimension), sorted
  /// by name, so point() builds its map in key order (one hinted insertion per knob).
  std::vector<std::pair<uint32_t, int32_t>> byName_;
  ir::Binding fixed_;
  uint64_t size_ = 1;
};

/// One of N parts of a run: `--shard I/N`. A shard owns the stream positions p with
/// p % count == index (strided, so the parts are balanced under any budget, and their union is
/// exactly the unsharded run's stream).
struct Shard {
  uint64_t index = 0; ///< this part, < count
  uint64_t count = 1; ///< number of parts, >= 1

  /// True when stream position `position` belongs to this shard.
  bool owns(uint64_t position) const { return position % count == index; }
};

/// Parses "I/N" (decimal, 0 <= I < N). Errors start "--shard TEXT: ".
Expected<Shard> parseShard(std::string_view text);

} // namespace ttlplan::search
