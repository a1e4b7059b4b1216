#pragma once
// Search strategies (`ttlplan tune --strategy exhaustive|random|anneal|evolve`): which points of a
// Space to evaluate, in batches, given the scores of earlier ones. Everything is a function of the
// space, the options and the observed scores only: the same inputs give the same proposals on any
// machine, standard library and thread count. The random numbers come from SplitMix64 and
// IdPermutation below (written out, no <random> distributions), and the floating point is
// comparisons and IEEE basic operations only (no libm exp(), whose last bit differs between
// libraries; see SplitMix64::bernoulliExpNeg).
//
// The adaptive strategies (anneal, evolve) work in rounds: a round's ids are fixed from the scores
// of the rounds before it, propose() hands them out at most maxBatch at a time, and the next round
// starts once all of them are observed. So the sequence does not depend on maxBatch either.
#include "ttlplan/search/Space.h"
#include "ttlplan/support/Expected.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace ttlplan::search {

/// The `--strategy` values.
enum class StrategyKind { Exhaustive, Random, Anneal, Evolve };

/// "exhaustive", "random", "anneal", "evolve".
std::string_view toString(StrategyKind kind);
/// The inverse of toString(); the Error lists the valid names.
Expected<StrategyKind> parseStrategy(std::string_view text);

/// Proposes batches of point ids of a Space and learns their scores. Lower scores are better
/// (predicted ns); a rejected point (nullopt) is worse than any score.
class Strategy {
public:
  virtual ~Strategy() = default;
  /// The next ids to evaluate (at most maxBatch, never an id proposed before); empty when done.
  /// maxBatch 0 counts as 1 (an empty answer always means done).
  virtual std::vector<uint64_t> propose(size_t maxBatch) = 0;
  /// Scores of the ids of the last propose(), in the same order; nullopt = rejected/infeasible.
  /// Ids of that batch not given here (or a propose() without observe()) count as rejected.
  virtual void observe(const std::vector<uint64_t>& ids,
                       const std::vector<std::optional<double>>& scores) = 0;
};

/// What makeStrategy() builds.
struct StrategyOptions {
  StrategyKind kind = StrategyKind::Exhaustive; ///< the algorithm
  /// Evaluations in all (over every shard, like a stream length): 0 means the whole space and is
  /// allowed for exhaustive only; a budget over the space's size is the whole space.
  uint64_t budgetEvals = 0;
  uint64_t seed = 1; ///< seeds every random choice (unused by exhaustive)
  /// The part of the run to propose: exhaustive and random only (an adaptive search depends on
  /// all its scores, so its shards could not merge into the single-run result).
  Shard shard;
};

/// The strategy `options` describe over a copy of `space`. Sharding: the unsharded run's
/// proposals form a stream (exhaustive: ids 0, 1, 2, ...; random: a seeded permutation of the
/// ids), cut at budgetEvals; shard I/N proposes the stream positions p with p % N == I, in order.
/// Error: a budget of 0 for random, anneal or evolve; an invalid shard; a shard count over 1 for
/// anneal or evolve.
Expected<std::unique_ptr<Strategy>> makeStrategy(const Space& space,
                                                 const StrategyOptions& options);

/// SplitMix64 (Steele, Lea, Flood 2014; the reference constants): a 64-bit generator whose output
/// is the same everywhere, for every random choice of the strategies.
class SplitMix64 {
public:
  /// A generator whose first output depends on all bits of `seed`.
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  /// The next 64 random bits.
  uint64_t next();
  /// Uniform in [0, n) for n >= 1, by rejection (no modulo bias, unlike `next() % n`).
  uint64_t below(uint64_t n);
  /// Uniform in [0, 1) on the grid of multiples of 2^-53 (exact in a double).
  double unit();
  /// True with probability exp(-x) for x >= 0 (von Neumann's method: comparisons of unit()
  /// draws only, so no libm exp() whose last bit could differ between machines); false for
  /// x >= 64 or NaN, whose probability is below 2^-92.
  bool bernoulliExpNeg(double x);

private:
  uint64_t state_;
};

/// A seeded pseudo-random permutation of [0, size): a 6-round balanced Feistel network on the
/// smallest even bit width that holds size - 1, keyed by SplitMix64(seed), with cycle walking to
/// stay below size. Sampling without replacement in O(1) memory, by position, for any size.
class IdPermutation {
public:
  /// The permutation of [0, size) for `seed` (size >= 1).
  IdPermutation(uint64_t size, uint64_t seed);
  /// The id at stream position `position` (< size); distinct positions give distinct ids.
  uint64_t operator()(uint64_t position) const;

private:
  /// One pass of the Feistel network over [0, 2^(2 * halfBits_)).
  uint64_t encrypt(uint64_t x) const;

  uint64_t size_;
  unsigned halfBits_ = 0; ///< width of each Feistel half
  uint64_t keys_[6] = {}; ///< one round key per round
};

} // namespace ttlplan::search
