// Knob domains: range(..) and divisors(..) values, membership and counts checked against
// independent brute-force definitions, their errors and limits, the custom and generic forms,
// problem knobs, and ir::forEachBinding over dependent domains.
#include "ttlplan/ir/KnobDomain.h"

#include "ttlplan/ir/Attributes.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"

#include <gtest/gtest.h>

namespace ttlplan::ir {
namespace {

KnobDomain parseDomain(const std::string& text) {
  size_t pos = 0;
  std::string error;
  KnobDomain d = parseKnobDomainCall(text, pos, error);
  EXPECT_TRUE(error.empty()) << text << ": " << error;
  EXPECT_EQ(pos, text.size()) << text;
  return d;
}

std::vector<int64_t> ints(const Expected<std::vector<KnobValue>>& values) {
  EXPECT_TRUE(values) << (values ? "" : values.error().message);
  std::vector<int64_t> out;
  if (values)
    for (const KnobValue& v : *values)
      out.push_back(v.integer());
  return out;
}

/// The knobs `text` declares; the module is kept in `keep` (the params point into it).
std::vector<Param> paramsOf(const char* text, std::unique_ptr<Module>& keep) {
  DiagnosticEngine diags;
  keep = parseSource(text, "t.ttl", diags);
  EXPECT_TRUE(keep) << format(diags.diagnostics());
  return keep ? collectParams(*keep) : std::vector<Param>{};
}

std::string errorOf(const KnobDomain& d, const Binding& b) {
  Expected<std::vector<KnobValue>> v = d.values(b);
  EXPECT_FALSE(v) << d.str();
  return v ? "" : v.error().message;
}

TEST(KnobDomain, RangeIsPythonsRange) {
  // Brute force: every v in [0, 40) with v >= start, v < stop and (v - start) % step == 0.
  for (int64_t start : {0, 1, 3, 7})
    for (int64_t stop : {0, 1, 5, 8, 20})
      for (int64_t step : {1, 2, 3, 32}) {
        KnobDomain d = KnobDomain::range(KnobExpr::integer(start), KnobExpr::integer(stop),
                                         KnobExpr::integer(step));
        std::vector<int64_t> expected;
        for (int64_t v = 0; v < 40; ++v)
          if (v >= start && v < stop && (v - start) % step == 0) expected.push_back(v);
        EXPECT_EQ(ints(d.values({})), expected) << d.str();
        EXPECT_EQ(d.count({}).value_or(999), expected.size()) << d.str();
        for (int64_t v = 0; v < 40; ++v)
          EXPECT_EQ(d.contains(v, {}).value_or(false),
                    std::count(expected.begin(), expected.end(), v) == 1)
              << d.str() << " " << v;
      }
  EXPECT_EQ(ints(parseDomain("range(4)").values({})), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(ints(parseDomain("range(2, 5)").values({})), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_FALSE(parseDomain("range(4)").contains(KnobValue::symbol("bf16"), {}).value_or(true));
}

TEST(KnobDomain, DivisorsAscending) {
  for (int64_t n = 0; n <= 200; ++n) {
    std::vector<int64_t> expected;
    for (int64_t d = 1; d <= n; ++d)
      if (n % d == 0) expected.push_back(d);
    KnobDomain d = KnobDomain::divisors(KnobExpr::integer(n));
    EXPECT_EQ(ints(d.values({})), expected) << n;
    EXPECT_EQ(d.count({}).value_or(999), expected.size()) << n;
    for (int64_t v = 0; v <= n + 1; ++v)
      EXPECT_EQ(d.contains(v, {}).value_or(false),
                std::count(expected.begin(), expected.end(), v) == 1)
          << n << " " << v;
  }
  // The largest argument allowed: 2^40 has 41 divisors, the powers of two.
  KnobDomain big = KnobDomain::divisors(KnobExpr::integer(kMaxDivisorsArgument));
  std::vector<int64_t> powers;
  for (int i = 0; i <= 40; ++i)
    powers.push_back(int64_t(1) << i);
  EXPECT_EQ(ints(big.values({})), powers);
}

TEST(KnobDomain, DependentDomainsReadTheirBinding) {
  KnobDomain d = parseDomain("divisors(ceildiv(@K, 32))");
  std::set<std::string> knobs;
  d.collectKnobs(knobs);
  EXPECT_EQ(knobs, (std::set<std::string>{"K"}));
  EXPECT_TRUE(d.isDependent());
  EXPECT_EQ(ints(d.values({{"K", 3584}})),
            (std::vector<int64_t>{1, 2, 4, 7, 8, 14, 16, 28, 56, 112}));
  EXPECT_TRUE(d.contains(7, {{"K", 3584}}).value_or(false));
  EXPECT_FALSE(d.contains(3, {{"K", 3584}}).value_or(true));
  EXPECT_NE(errorOf(d, {}).find("knob @K has no value"), std::string::npos);
  EXPECT_FALSE(d.contains(1, {}));
  KnobDomain r = parseDomain("range(1, min(@M / 32, 4) + 1)");
  EXPECT_EQ(ints(r.values({{"M", 64}})), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ints(r.values({{"M", 4096}})), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_NE(errorOf(r, {{"M", 100}}).find("must divide exactly"), std::string::npos);
  EXPECT_FALSE(parseDomain("range(4)").isDependent());
}

TEST(KnobDomain, ErrorsAndLimits) {
  EXPECT_NE(errorOf(parseDomain("range(0 - 1, 4)"), {}).find("the start is -1"), std::string::npos);
  EXPECT_NE(errorOf(parseDomain("range(0, 4, 0)"), {}).find("the step is 0"), std::string::npos);
  EXPECT_NE(errorOf(parseDomain("divisors(0 - 6)"), {}).find("must be >= 0"), std::string::npos);
  EXPECT_NE(errorOf(KnobDomain::divisors(KnobExpr::integer(kMaxDivisorsArgument + 1)), {})
                .find("over the limit of divisors()"),
            std::string::npos);
  // One value over the limit is refused without listing; counting and membership still work.
  KnobDomain wide = KnobDomain::range(
      KnobExpr::integer(0), KnobExpr::integer(int64_t(kMaxDomainValues) + 1), KnobExpr::integer(1));
  EXPECT_NE(errorOf(wide, {}).find("more than the 1048576"), std::string::npos);
  EXPECT_EQ(wide.count({}).value_or(0), kMaxDomainValues + 1);
  EXPECT_TRUE(wide.contains(int64_t(kMaxDomainValues), {}).value_or(false));
  KnobDomain atLimit = KnobDomain::range(
      KnobExpr::integer(0), KnobExpr::integer(int64_t(kMaxDomainValues)), KnobExpr::integer(1));
  EXPECT_EQ(atLimit.values({}).value_or({}).size(), kMaxDomainValues);
  // A range over all of int64 counts without overflow.
  KnobDomain all =
      KnobDomain::range(KnobExpr::integer(0), KnobExpr::integer(INT64_MAX), KnobExpr::integer(1));
  EXPECT_EQ(all.count({}).value_or(0), uint64_t(INT64_MAX));
}

TEST(KnobDomain, SyntaxErrorsSayWhatIsWrong) {
  for (auto [text, message] :
       {std::pair{"range()", "expected an integer"}, std::pair{"range(1, 2, 3, 4)", "1 to 3"},
        std::pair{"divisors(1, 2)", "one argument"}, std::pair{"range(1 2)", "expected ','"},
        std::pair{"divisors", "expected '('"}, std::pair{"powers(2)", "range(...) or divisors"}}) {
    size_t pos = 0;
    std::string error;
    parseKnobDomainCall(text, pos, error);
    EXPECT_NE(error.find(message), std::string::npos) << text << ": " << error;
  }
}

TEST(KnobDomain, CustomAndGenericFormsRoundTrip) {
  const char* text = "ttl.param @M = range(32, 1048577, 32) {problem}\n"
                     "ttl.param @P = range(1, ceildiv(@M, 32) + 1)\n"
                     "ttl.param @B = divisors(@P)\n"
                     "ttl.param @L = [1, 2, 4]\n"
                     "ttl.param @R = range(3)\n";
  DiagnosticEngine diags;
  auto module = parseSource(text, "t.ttl", diags);
  ASSERT_TRUE(module) << format(diags.diagnostics());
  std::vector<Param> params = collectParams(*module);
  ASSERT_EQ(params.size(), 5u);
  EXPECT_TRUE(params[0].problem);
  EXPECT_FALSE(params[1].problem);
  EXPECT_EQ(params[0].domain.str(), "range(32, 1048577, 32)");
  EXPECT_EQ(params[1].domain.str(), "range(1, ceildiv(@M, 32) + 1)");
  EXPECT_EQ(params[2].domain.str(), "divisors(@P)");
  EXPECT_EQ(params[3].domain.kind(), KnobDomain::Kind::List);
  EXPECT_EQ(params[4].domain.str(), "range(3)");
  std::string custom = print(*module);
  EXPECT_NE(custom.find("ttl.param @M = range(32, 1048577, 32) {problem}"), std::string::npos)
      << custom;
  EXPECT_NE(custom.find("ttl.param @B = divisors(@P)"), std::string::npos) << custom;
  std::string generic = print(*module, PrintOptions{true});
  EXPECT_NE(generic.find("range = [1, #ttl.expr<ceildiv(@M, 32) + 1>, 1]"), std::string::npos)
      << generic;
  for (const std::string& form : {custom, generic}) {
    DiagnosticEngine again;
    auto reparsed = parseSource(form, "t.ttl", again);
    ASSERT_TRUE(reparsed) << format(again.diagnostics()) << form;
    std::vector<Param> back = collectParams(*reparsed);
    ASSERT_EQ(back.size(), params.size());
    for (size_t i = 0; i < back.size(); ++i) {
      EXPECT_EQ(back[i].domain, params[i].domain) << form;
      EXPECT_EQ(back[i].problem, params[i].problem) << form;
    }
    EXPECT_EQ(print(*reparsed), custom);
  }
}

TEST(KnobDomain, ForEachBindingEvaluatesDependentDomainsInOrder) {
  std::unique_ptr<Module> keep;
  std::vector<Param> params = paramsOf("ttl.param @P = range(1, 5)\n"
                                       "ttl.param @B = divisors(@P)\n"
                                       "ttl.param @S = range(@B, 3)\n",
                                       keep);
  ASSERT_EQ(params.size(), 3u);
  std::vector<const Param*> knobs{&params[0], &params[1], &params[2]};
  // Brute force over a box that holds every value, filtered by the definitions.
  std::vector<Binding> expected;
  for (int64_t p = 1; p < 5; ++p)
    for (int64_t b = 1; b <= p; ++b)
      for (int64_t s = b; s < 3; ++s)
        if (p % b == 0) expected.push_back({{"P", p}, {"B", b}, {"S", s}});
  std::vector<Binding> visited;
  forEachBinding(knobs, {}, [&](const Binding& binding) {
    visited.push_back(binding);
    return true;
  });
  EXPECT_EQ(visited, expected);
  // A base binding is kept in every binding and read by the domains.
  visited.clear();
  forEachBinding({&params[1], &params[2]}, {{"P", 4}}, [&](const Binding& binding) {
    visited.push_back(binding);
    return true;
  });
  EXPECT_EQ(visited, (std::vector<Binding>{{{"P", 4}, {"B", 1}, {"S", 1}},
                                           {{"P", 4}, {"B", 1}, {"S", 2}},
                                           {{"P", 4}, {"B", 2}, {"S", 2}}}));
}

TEST(KnobDomain, UnboundProblemKnobsAreNamed) {
  std::unique_ptr<Module> keep;
  std::vector<Param> params = paramsOf("ttl.param @M = range(32, 1048577, 32) {problem}\n"
                                       "ttl.param @N = range(32, 1048577, 32) {problem}\n"
                                       "ttl.param @B = [1, 2]\n",
                                       keep);
  ASSERT_EQ(params.size(), 3u);
  EXPECT_TRUE(checkProblemKnobsBound(params, {{"M", 64}, {"N", 64}}));
  Status one = checkProblemKnobsBound(params, {{"M", 64}, {"B", 1}});
  ASSERT_FALSE(one);
  EXPECT_NE(one.error().message.find("@N is a problem knob"), std::string::npos)
      << one.error().message;
  EXPECT_NE(one.error().message.find("--bind N=VALUE"), std::string::npos);
  EXPECT_NE(one.error().message.find("t.ttl:2:"), std::string::npos);
  Status both = checkProblemKnobsBound(params, {});
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("@M, @N are problem knobs"), std::string::npos)
      << both.error().message;
}

} // namespace
} // namespace ttlplan::ir
