#include "ttlplan/search/Strategy.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <string>
#include <unordered_set>

namespace ttlplan::search {
namespace {

constexpr std::string_view kNames[] = {"exhaustive", "random", "anneal", "evolve"};

/// The SplitMix64 output function: a bijection of 64-bit words that mixes every input bit.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// True with probability exp(-x) for x in [0, 1] (von Neumann 1951): draw u1, u2, ... while
/// x > u1 > u2 > ...; P(the run has length >= n) = x^n / n!, so P(it stops at an odd draw), the
/// alternating sum of those, is exp(-x).
bool vonNeumannExpNeg(double x, SplitMix64& rng) {
  double previous = x;
  for (uint64_t n = 1;; ++n) {
    double u = rng.unit();
    if (u > previous) return n % 2 == 1;
    previous = u;
  }
}

/// A point and its score; nullopt = rejected.
struct Scored {
  uint64_t id = 0;
  std::optional<double> score;
};

/// The ranking every adaptive strategy uses: feasible before rejected, lower score first, then
/// lower id, so ties break the same way everywhere.
bool better(const Scored& a, const Scored& b) {
  if (a.score.has_value() != b.score.has_value()) return a.score.has_value();
  if (a.score && *a.score != *b.score) return *a.score < *b.score;
  return a.id < b.id;
}

/// Exhaustive and random: a fixed stream of ids cut at the budget, of which this shard proposes
/// the positions it owns. Scores change nothing.
class StreamStrategy final : public Strategy {
public:
  StreamStrategy(std::optional<IdPermutation> order, uint64_t length, Shard shard)
      : order_(std::move(order)), length_(length), next_(shard.index), step_(shard.count) {}

  std::vector<uint64_t> propose(size_t maxBatch) override {
    std::vector<uint64_t> out;
    for (; out.size() < std::max<size_t>(maxBatch, 1) && next_ < length_; advance())
      out.push_back(order_ ? (*order_)(next_) : next_);
    return out;
  }
  void observe(const std::vector<uint64_t>&, const std::vector<std::optional<double>>&) override {}

private:
  /// The shard's next position; stops at length_ without overflowing.
  void advance() { next_ = step_ >= length_ - next_ ? length_ : next_ + step_; }

  std::optional<IdPermutation> order_; ///< none: the canonical order (id = position)
  uint64_t length_;                    ///< positions in the unsharded stream
  uint64_t next_;                      ///< this shard's next position
  uint64_t step_;                      ///< the shard count
};

/// The adaptive strategies' frame: rounds of fresh ids chosen from the scores of earlier rounds,
/// handed out in batches; a visited set guarantees no id is proposed twice.
class RoundStrategy : public Strategy {
public:
  std::vector<uint64_t> propose(size_t maxBatch) override;
  void observe(const std::vector<uint64_t>& ids,
               const std::vector<std::optional<double>>& scores) override;

protected:
  RoundStrategy(const Space& space, uint64_t budget, uint64_t seed)
      : space_(space), rng_(seed), order_(space.size(), rng_.next()), budget_(budget) {}

  /// The next round: at most `room` (>= 1) ids, each taken with claim() or fresh().
  virtual std::vector<uint64_t> nextRound(uint64_t room) = 0;
  /// Learns the scores of the round just finished, in proposal order.
  virtual void learn(const std::vector<Scored>& round) = 0;

  /// Marks `id` proposed; false when it already was.
  bool claim(uint64_t id) { return visited_.insert(id).second; }
  /// True when `id` was proposed (or claimed for the round being built).
  bool visited(uint64_t id) const { return visited_.count(id) != 0; }
  /// An unproposed id at random, claimed (the seeded permutation's next unvisited one); nullopt
  /// only when the whole space is proposed.
  std::optional<uint64_t> fresh();
  /// Ids in the rounds so far.
  uint64_t issued() const { return issued_; }
  /// The evaluations this run makes: min(budget, size).
  uint64_t budget() const { return budget_; }

  Space space_;
  SplitMix64 rng_;

private:
  /// Starts the next round; false when the run is over.
  bool startRound();
  /// Counts every proposed id of the round observed; learns when the round is complete.
  void closeProposed();

  IdPermutation order_;
  uint64_t orderNext_ = 0; ///< fresh()'s position in order_
  std::unordered_set<uint64_t> visited_;
  std::vector<Scored> round_;
  size_t proposed_ = 0; ///< round_[0, proposed_) handed out
  size_t observed_ = 0; ///< round_[0, observed_) scored (or counted rejected)
  uint64_t budget_;
  uint64_t issued_ = 0;
};

std::optional<uint64_t> RoundStrategy::fresh() {
  while (orderNext_ < space_.size())
    if (uint64_t id = order_(orderNext_++); claim(id)) return id;
  return std::nullopt;
}

bool RoundStrategy::startRound() {
  if (issued_ >= budget_) return false;
  std::vector<uint64_t> ids = nextRound(budget_ - issued_);
  assert(ids.size() <= budget_ - issued_);
  if (ids.empty()) return false;
  round_.assign(ids.size(), Scored{});
  for (size_t i = 0; i < ids.size(); ++i)
    round_[i].id = ids[i];
  proposed_ = observed_ = 0;
  issued_ += ids.size();
  return true;
}

void RoundStrategy::closeProposed() {
  if (observed_ == proposed_) return;
  observed_ = proposed_;
  if (observed_ == round_.size()) learn(round_);
}

std::vector<uint64_t> RoundStrategy::propose(size_t maxBatch) {
  closeProposed(); // a propose() without observe(): that batch counts as rejected
  if (proposed_ == round_.size() && !startRound()) return {};
  size_t end = std::min(round_.size(), proposed_ + std::max<size_t>(maxBatch, 1));
  std::vector<uint64_t> out;
  for (; proposed_ < end; ++proposed_)
    out.push_back(round_[proposed_].id);
  return out;
}

void RoundStrategy::observe(const std::vector<uint64_t>& ids,
                            const std::vector<std::optional<double>>& scores) {
  for (size_t i = 0; i < std::min(ids.size(), scores.size()); ++i)
    for (size_t j = observed_; j < proposed_; ++j)
      if (round_[j].id == ids[i])
        round_[j].score = scores[i] && !std::isnan(*scores[i]) ? scores[i] : std::nullopt;
  closeProposed();
}

/// Simulated annealing: kChains chains advanced in lockstep (one round = one step of each). A
/// step proposes a random unvisited neighbour, or a random unvisited point when every neighbour
/// is visited, and moves there by the Metropolis rule on the relative score change
/// (new - current) / |current| at temperature kStartTemperature * (evaluations left / budget),
/// which reaches 0 (greedy) at the budget.
class Anneal final : public RoundStrategy {
public:
  Anneal(const Space& space, uint64_t budget, uint64_t seed) : RoundStrategy(space, budget, seed) {}

private:
  static constexpr size_t kChains = 4;
  /// At the start, a point 10% worse is accepted with probability 1/e.
  static constexpr double kStartTemperature = 0.1;

  struct Chain {
    uint64_t id = 0;             ///< the current point
    std::optional<double> score; ///< its score
    bool placed = false;         ///< false until the starting point is scored
  };

  std::vector<uint64_t> nextRound(uint64_t room) override;
  void learn(const std::vector<Scored>& round) override;
  /// The chain's next candidate, claimed.
  std::optional<uint64_t> step(const Chain& chain);
  /// The Metropolis rule; rejected points are worse than any score, and a chain sitting on a
  /// rejected point moves anywhere (so it can walk out of an infeasible region).
  bool accept(const std::optional<double>& current, const std::optional<double>& candidate);

  std::vector<Chain> chains_;
  std::vector<size_t> owner_; ///< the chain of each id of the current round
};

std::vector<uint64_t> Anneal::nextRound(uint64_t room) {
  std::vector<uint64_t> ids;
  owner_.clear();
  if (chains_.empty()) chains_.resize(size_t(std::min<uint64_t>(kChains, room)));
  for (size_t c = 0; c < chains_.size() && ids.size() < room; ++c) {
    std::optional<uint64_t> id = chains_[c].placed ? step(chains_[c]) : fresh();
    if (!id) break;
    ids.push_back(*id);
    owner_.push_back(c);
  }
  return ids;
}

std::optional<uint64_t> Anneal::step(const Chain& chain) {
  std::vector<uint64_t> open;
  for (uint64_t n : space_.neighbours(chain.id))
    if (!visited(n)) open.push_back(n);
  if (open.empty()) return fresh();
  uint64_t id = open[size_t(rng_.below(open.size()))];
  claim(id);
  return id;
}

void Anneal::learn(const std::vector<Scored>& round) {
  for (size_t i = 0; i < round.size(); ++i) {
    Chain& chain = chains_[owner_[i]];
    if (!chain.placed || accept(chain.score, round[i].score)) {
      chain.id = round[i].id;
      chain.score = round[i].score;
      chain.placed = true;
    }
  }
}

bool Anneal::accept(const std::optional<double>& current, const std::optional<double>& candidate) {
  if (!candidate) return !current;
  if (!current || *candidate <= *current) return true;
  double temperature = kStartTemperature * (double(budget() - issued()) / double(budget()));
  if (!(temperature > 0)) return false;
  double x = (*candidate - *current) / (temperature * std::fabs(*current));
  return rng_.bernoulliExpNeg(x);
}

/// A small genetic algorithm, one generation per round: the population is the kPopulation best
/// points evaluated so far (elitist); each child takes each dimension from one of two parents
/// chosen by binary tournaments (uniform crossover), then, with probability 1/2, one dimension
/// moves to another random value. A child already proposed mutates again (at most kRetries
/// times), then gives way to a random unvisited point.
class Evolve final : public RoundStrategy {
public:
  Evolve(const Space& space, uint64_t budget, uint64_t seed);

private:
  static constexpr size_t kPopulation = 16;
  static constexpr int kRetries = 8;

  std::vector<uint64_t> nextRound(uint64_t room) override;
  void learn(const std::vector<Scored>& round) override;
  /// A new child, claimed; nullopt when the space is exhausted.
  std::optional<uint64_t> child();
  /// The better of two random members of the population.
  uint64_t tournament();
  /// Moves one dimension with more than one value to a different random value.
  void mutate(std::vector<size_t>& indices);

  std::vector<Scored> population_; ///< best first (better())
  std::vector<size_t> mutable_;    ///< the dimensions with more than one value
};

Evolve::Evolve(const Space& space, uint64_t budget, uint64_t seed)
    : RoundStrategy(space, budget, seed) {
  for (size_t d = 0; d < space.dimensions().size(); ++d)
    if (space.dimensions()[d].size() > 1) mutable_.push_back(d);
}

std::vector<uint64_t> Evolve::nextRound(uint64_t room) {
  std::vector<uint64_t> ids;
  while (ids.size() < std::min<uint64_t>(kPopulation, room)) {
    std::optional<uint64_t> id = population_.empty() ? fresh() : child();
    if (!id) break;
    ids.push_back(*id);
  }
  return ids;
}

void Evolve::learn(const std::vector<Scored>& round) {
  population_.insert(population_.end(), round.begin(), round.end());
  std::sort(population_.begin(), population_.end(), better);
  if (population_.size() > kPopulation) population_.resize(kPopulation);
}

std::optional<uint64_t> Evolve::child() {
  std::vector<size_t> a = space_.indices(tournament());
  std::vector<size_t> b = space_.indices(tournament());
  for (size_t d = 0; d < a.size(); ++d)
    if (rng_.below(2) == 1) a[d] = b[d];
  if (rng_.below(2) == 1) mutate(a);
  for (int tries = 0; tries < kRetries; ++tries, mutate(a))
    if (uint64_t id = space_.idOfIndices(a); claim(id)) return id;
  return fresh();
}

uint64_t Evolve::tournament() {
  const Scored& a = population_[size_t(rng_.below(population_.size()))];
  const Scored& b = population_[size_t(rng_.below(population_.size()))];
  return better(a, b) ? a.id : b.id;
}

void Evolve::mutate(std::vector<size_t>& indices) {
  if (mutable_.empty()) return;
  size_t d = mutable_[size_t(rng_.below(mutable_.size()))];
  // A uniform value other than the current one: draw from n - 1 and skip over the current.
  size_t v = size_t(rng_.below(space_.dimensions()[d].size() - 1));
  indices[d] = v >= indices[d] ? v + 1 : v;
}

/// The checks makeStrategy() makes before building anything.
Status checkOptions(const StrategyOptions& options) {
  const Shard& shard = options.shard;
  std::string name(toString(options.kind));
  if (shard.count == 0 || shard.index >= shard.count)
    return Error{"invalid shard " + std::to_string(shard.index) + "/" +
                 std::to_string(shard.count) + ": index must be < count"};
  bool adaptive = options.kind == StrategyKind::Anneal || options.kind == StrategyKind::Evolve;
  if (adaptive && shard.count > 1)
    return Error{"--shard: sharding is defined for the exhaustive and random strategies only; "
                 "--strategy " +
                 name +
                 " is adaptive (its proposals depend on every score), so "
                 "independent shards could not merge into the single-run result"};
  if (options.kind != StrategyKind::Exhaustive && options.budgetEvals == 0)
    return Error{"--strategy " + name + " needs --budget-evals N (N >= 1)"};
  return Status::success();
}

} // namespace

std::string_view toString(StrategyKind kind) {
  return kNames[size_t(kind)];
}

Expected<StrategyKind> parseStrategy(std::string_view text) {
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (text == kNames[i]) return StrategyKind(i);
  return Error{"unknown strategy '" + std::string(text) +
               "' (expected exhaustive, random, anneal or evolve)"};
}

Expected<std::unique_ptr<Strategy>> makeStrategy(const Space& space,
                                                 const StrategyOptions& options) {
  if (Status s = checkOptions(options); !s) return s.error();
  uint64_t length =
      options.budgetEvals == 0 ? space.size() : std::min(options.budgetEvals, space.size());
  std::unique_ptr<Strategy> out;
  switch (options.kind) {
  case StrategyKind::Exhaustive:
    out = std::make_unique<StreamStrategy>(std::nullopt, length, options.shard);
    break;
  case StrategyKind::Random:
    out = std::make_unique<StreamStrategy>(IdPermutation(space.size(), options.seed), length,
                                           options.shard);
    break;
  case StrategyKind::Anneal:
    out = std::make_unique<Anneal>(space, length, options.seed);
    break;
  case StrategyKind::Evolve:
    out = std::make_unique<Evolve>(space, length, options.seed);
    break;
  }
  return out;
}

uint64_t SplitMix64::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  return mix64(state_);
}

uint64_t SplitMix64::below(uint64_t n) {
  assert(n >= 1);
  // 2^64 mod n: drawing only from [threshold, 2^64), a multiple of n values, makes x % n uniform.
  uint64_t threshold = (0 - n) % n;
  for (;;)
    if (uint64_t x = next(); x >= threshold) return x % n;
}

double SplitMix64::unit() {
  return double(next() >> 11) * 0x1.0p-53;
}

bool SplitMix64::bernoulliExpNeg(double x) {
  if (!(x < 64)) return false;
  // exp(-x) = exp(-1)^floor(x) * exp(-frac(x)): independent trials that must all succeed.
  for (; x > 1; x -= 1)
    if (!vonNeumannExpNeg(1.0, *this)) return false;
  return x <= 0 || vonNeumannExpNeg(x, *this);
}

IdPermutation::IdPermutation(uint64_t size, uint64_t seed) : size_(std::max<uint64_t>(size, 1)) {
  halfBits_ = (unsigned(std::bit_width(size_ - 1)) + 1) / 2;
  SplitMix64 keys(seed);
  for (uint64_t& key : keys_)
    key = keys.next();
}

uint64_t IdPermutation::encrypt(uint64_t x) const {
  if (halfBits_ == 0) return x;
  uint64_t mask = (uint64_t(1) << halfBits_) - 1;
  uint64_t left = x >> halfBits_, right = x & mask;
  for (uint64_t key : keys_) {
    uint64_t next = left ^ (mix64(right ^ key) & mask);
    left = right;
    right = next;
  }
  return (left << halfBits_) | right;
}

uint64_t IdPermutation::operator()(uint64_t position) const {
  assert(position < size_);
  // Cycle walking: the cycle through `position` returns to it, so it meets a value < size_, and
  // the first such value is a bijection of [0, size_). The domain is < 4 * size_: few steps.
  uint64_t x = position;
  do
    x = encrypt(x);
  while (x >= size_);
  return x;
}

} // namespace ttlplan::search
