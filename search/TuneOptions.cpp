#include "ttlplan/search/TuneOptions.h"

#include "ttlplan/search/Strategy.h"

namespace ttlplan::search {

const OptionTable& tuneOptions() {
  using enum OptionType;
  static const OptionTable table{
      "tune",
      "How `ttlplan tune` searches the unbound knobs and `?` block counts (docs/tuning.md); it "
      "also takes the planner's `node-limit` and `max-block-count` (the block counts searched are "
      "1 to max-block-count).",
      {
          {"strategy",
           "exhaustive (canonical order), random (seeded, without repeats), anneal (simulated "
           "annealing) or evolve (genetic)",
           Choice,
           0,
           0,
           {toString(StrategyKind::Exhaustive), toString(StrategyKind::Random),
            toString(StrategyKind::Anneal), toString(StrategyKind::Evolve)},
           "exhaustive"},
          {"budget-evals",
           "Points to visit (required except for exhaustive; 0 = the whole space); the result "
           "then does not depend on machine speed",
           Integer,
           0,
           1e15,
           {},
           "0"},
          {"time-limit",
           "Stop after the round that passes this many seconds, with the best so far; 0 for none",
           Real,
           0,
           1e9,
           {},
           "0"},
          {"threads",
           "Worker threads, 0 for every hardware thread; the result is the same at any "
           "count",
           Integer,
           0,
           4096,
           {},
           "0"},
          {"seed", "Seed of the random, anneal and evolve strategies", Integer, 0, 1e15, {}, "1"},
          {"shard",
           "I/N: visit only shard I of N of the enumeration (exhaustive, random); merge the "
           "shards' --db files with `ttlplan db merge`",
           Text,
           0,
           0,
           {},
           ""},
          {"top", "How many of the best points to list", Integer, 1, 10000, {}, "5"},
          {"db",
           "Append a record per evaluated point to this JSON-lines file (must not exist unless "
           "--resume)",
           Text,
           0,
           0,
           {},
           ""},
          {"resume",
           "Continue --db: recorded points are reused, a torn last line repaired",
           Flag,
           0,
           0,
           {},
           "false"},
      }};
  return table;
}

} // namespace ttlplan::search
