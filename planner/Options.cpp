#include "ttlplan/planner/Options.h"

#include <fmt/format.h>

namespace ttlplan::planner {

namespace {

using enum OptionType;

/// Each pruning rule: its option name and the ExactParams member (the doc is in the table).
struct RuleMember {
  std::string_view name;
  bool l1::ExactParams::*member;
};
constexpr RuleMember kRules[] = {
    {"canonical-order", &l1::ExactParams::canonicalOrder},
    {"section-bound", &l1::ExactParams::sectionBound},
    {"unusable-gap-floor", &l1::ExactParams::unusableGapFloor},
    {"monotonic-floor", &l1::ExactParams::monotonicFloor},
    {"gap-dominance", &l1::ExactParams::gapDominance},
    {"decomposition", &l1::ExactParams::decomposition},
    {"dynamic-ordering", &l1::ExactParams::dynamicOrdering},
    {"restarts", &l1::ExactParams::restarts},
    {"rerank-groups", &l1::ExactParams::rerankGroups},
};

std::vector<std::string_view> solverNames() {
  std::vector<std::string_view> out;
  for (l1::L1Solver s : l1::allL1Solvers())
    out.push_back(l1::toString(s));
  return out;
}

} // namespace

const OptionTable& plannerOptions() {
  static const std::string maxBlockCountText = std::to_string(kernel::kDefaultMaxBlockCount);
  static const OptionTable table{
      "planner",
      "How `plan`, `lower`, `compile`, `run`, `cost` and the `plan` pass plan each kernel (and "
      "`alloc` places a CSV): flags of those commands, options of the `plan` pass "
      "(`plan{max-block-count=2}`). The exact solver's pruning rules are all safe (the optimum "
      "is kept); switching one off shows what it buys (docs/l1-exact-solver.md).",
      {
          {"solver", "L1 placement back end", Choice, 0, 0, solverNames(),
           l1::toString(kernel::kDefaultSolver)},
          {"time-limit",
           "Wall-clock seconds per planner sub-problem, 0 for none; a limit hit with a plan in "
           "hand is reported as feasible with a gap",
           Real,
           0,
           1e6,
           {},
           "0"},
          {"node-limit",
           "Branch-and-bound nodes per sub-problem, 0 for none; unlike time, the same on every "
           "machine",
           Integer,
           0,
           1e15,
           {},
           "0"},
          {"max-block-count",
           "Deepest block count tried for a `?` CB; reduced until L1 fits",
           Integer,
           1,
           64,
           {},
           maxBlockCountText},
          {"canonical-order",
           "Exact L1: place buffers by non-decreasing offset only (prunes other orders of the "
           "same placement)",
           Flag,
           0,
           0,
           {},
           "true"},
          {"section-bound",
           "Exact L1: in every time section the floor plus the unplaced bytes live there must fit",
           Flag,
           0,
           0,
           {},
           "true"},
          {"unusable-gap-floor",
           "Exact L1: a section's floor rises to the least possible offset of its unplaced "
           "buffers",
           Flag,
           0,
           0,
           {},
           "true"},
          {"monotonic-floor",
           "Exact L1: every floor is at least the offset placed last (needs canonical-order)",
           Flag,
           0,
           0,
           {},
           "true"},
          {"gap-dominance",
           "Exact L1: skip a candidate above the top of an unplaced buffer that would fit below it",
           Flag,
           0,
           0,
           {},
           "true"},
          {"decomposition",
           "Exact L1: solve groups of buffers with disjoint lifetimes on their own",
           Flag,
           0,
           0,
           {},
           "true"},
          {"dynamic-ordering",
           "Exact L1: try candidates by least offset first",
           Flag,
           0,
           0,
           {},
           "true"},
          {"restarts",
           "Exact L1: three buffer rankings in turn under a doubling node budget, as minimalloc "
           "does",
           Flag,
           0,
           0,
           {},
           "true"},
          {"rerank-groups",
           "Exact L1: rank each group split off during the search afresh (needs decomposition)",
           Flag,
           0,
           0,
           {},
           "true"},
      }};
  return table;
}

bool* exactRule(l1::ExactParams& params, std::string_view name) {
  for (const RuleMember& r : kRules)
    if (r.name == name) return &(params.*r.member);
  return nullptr;
}

std::vector<std::string_view> exactRuleNames() {
  std::vector<std::string_view> out;
  for (const RuleMember& r : kRules)
    out.push_back(r.name);
  return out;
}

Status setPlannerOption(kernel::PlanOptions& options, std::string_view name,
                        std::string_view text) {
  const OptionRecord& record = plannerOptions().at(name);
  if (bool* rule = exactRule(options.exact, name)) {
    Expected<bool> on = record.flag(text);
    if (!on) return on.error();
    *rule = *on;
    return Status::success();
  }
  if (name == "solver") {
    Expected<l1::L1Solver> solver = l1::parseL1Solver(text);
    if (!solver) return solver.error();
    options.solver = *solver;
    return Status::success();
  }
  Expected<double> value = record.number(text);
  if (!value) return value.error();
  if (name == "time-limit") options.limits.timeLimitSeconds = *value;
  if (name == "node-limit") options.limits.nodeLimit = static_cast<int64_t>(*value);
  if (name == "max-block-count") options.maxBlockCount = static_cast<int>(*value);
  return Status::success();
}

} // namespace ttlplan::planner
