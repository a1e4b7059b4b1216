// Option tables (support/Options.h, planner/Options.h): records check their values, the planner's
// table is complete and its documented defaults are the real ones.
#include "ttlplan/planner/Options.h"

#include "ttlplan/driver/Options.h"
#include "ttlplan/lower/PassManager.h"
#include "ttlplan/search/TuneOptions.h"
#include "ttlplan/support/Options.h"

#include <gtest/gtest.h>
#include <set>

namespace ttlplan {
namespace {

TEST(Options, RecordsCheckTheirValues) {
  OptionRecord count{"count", "how many", OptionType::Integer, 1, 64, {}, "4"};
  EXPECT_EQ(*count.number("64"), 64);
  EXPECT_FALSE(count.number("65").ok());
  EXPECT_FALSE(count.number("2.5").ok());
  EXPECT_FALSE(count.number("4x").ok());
  EXPECT_FALSE(count.number("nan").ok());
  EXPECT_EQ(count.number("0").error().message, "count: expected an integer in [1, 64], got '0'");
  OptionRecord seconds{"seconds", "how long", OptionType::Real, 0, 1e6, {}, "0"};
  EXPECT_EQ(*seconds.number("0.25"), 0.25);
  EXPECT_FALSE(seconds.number("-1").ok());
  EXPECT_FALSE(seconds.number("inf").ok());
  OptionRecord rule{"rule", "a rule", OptionType::Flag, 0, 0, {}, "true"};
  EXPECT_TRUE(*rule.flag("on"));
  EXPECT_FALSE(*rule.flag("0"));
  EXPECT_FALSE(rule.flag("maybe").ok());
  EXPECT_EQ(count.help(), "how many (default 4; [1, 64])");
}

TEST(Options, EveryDefaultIsInItsRange) {
  std::vector<const OptionTable*> tables = {&driver::targetOptions(), &planner::plannerOptions(),
                                            &search::tuneOptions()};
  std::vector<OptionTable> passes = lower::passOptionTables();
  for (const OptionTable& t : passes)
    tables.push_back(&t);
  for (const OptionTable* t : tables) {
    std::set<std::string_view> names;
    for (const OptionRecord& r : t->records) {
      EXPECT_TRUE(names.insert(r.name).second) << t->component << " defines " << r.name << " twice";
      EXPECT_FALSE(r.doc.empty()) << r.name;
      switch (r.type) {
      case OptionType::Integer:
      case OptionType::Real:
        EXPECT_TRUE(r.number(r.defaultValue).ok()) << r.name;
        break;
      case OptionType::Flag:
        EXPECT_TRUE(r.flag(r.defaultValue).ok()) << r.name;
        break;
      case OptionType::Choice: // an empty default: the option is unset unless given
        if (!r.defaultValue.empty()) {
          EXPECT_NE(std::find(r.choices.begin(), r.choices.end(), r.defaultValue), r.choices.end())
              << r.name;
        }
        break;
      case OptionType::Text:
        break;
      }
    }
  }
}

TEST(Options, PlannerDefaultsAreTheRealOnes) {
  // Setting every planner option to its documented default changes nothing.
  planner::kernel::PlanOptions real;
  planner::kernel::PlanOptions documented;
  for (const OptionRecord& r : planner::plannerOptions().records)
    ASSERT_TRUE(planner::setPlannerOption(documented, r.name, r.defaultValue).ok()) << r.name;
  EXPECT_EQ(documented.solver, real.solver);
  EXPECT_EQ(documented.limits.timeLimitSeconds, real.limits.timeLimitSeconds);
  EXPECT_EQ(documented.limits.nodeLimit, real.limits.nodeLimit);
  EXPECT_EQ(documented.maxBlockCount, real.maxBlockCount);
  for (std::string_view rule : planner::exactRuleNames())
    EXPECT_EQ(*planner::exactRule(documented.exact, rule), *planner::exactRule(real.exact, rule))
        << rule;
}

TEST(Options, EveryPruningRuleIsAnOption) {
  // Each ExactParams member is reachable: switching its option off changes that member only.
  std::vector<std::string_view> rules = planner::exactRuleNames();
  EXPECT_EQ(rules.size(), 9u);
  for (std::string_view rule : rules) {
    ASSERT_NE(planner::plannerOptions().find(rule), nullptr) << rule;
    planner::kernel::PlanOptions options;
    ASSERT_TRUE(planner::setPlannerOption(options, rule, "false").ok());
    for (std::string_view other : rules)
      EXPECT_EQ(*planner::exactRule(options.exact, other), other != rule) << rule << " " << other;
  }
}

TEST(Options, ThePlanPassTakesThePlannerTable) {
  const lower::PassInfo* plan = lower::lookupPass("plan");
  ASSERT_NE(plan, nullptr);
  std::vector<std::string_view> names;
  for (const OptionRecord& r : plan->options)
    names.push_back(r.name);
  std::vector<std::string_view> planner;
  for (const OptionRecord& r : planner::plannerOptions().records)
    planner.push_back(r.name);
  EXPECT_EQ(names, planner);
  EXPECT_FALSE(lower::PassManager::parse("plan{max-block-count=65}").ok());
  EXPECT_FALSE(lower::PassManager::parse("plan{gap-dominance=maybe}").ok());
  EXPECT_TRUE(lower::PassManager::parse("plan{gap-dominance=false,solver=cbc}").ok());
}

} // namespace
} // namespace ttlplan
