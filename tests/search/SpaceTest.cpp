// search::Space: ids are ir::forEachBinding's order (first knob slowest), map back from bindings,
// leave fixed knobs out, refuse bad fixed values and oversized spaces; and --shard parsing.
#include "ttlplan/search/Space.h"

#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Parser.h"

#include <gtest/gtest.h>

namespace ttlplan::search {
namespace {

ir::Param param(std::string name, std::vector<ir::KnobValue> values) {
  ir::Param p;
  p.name = std::move(name);
  p.domain = ir::KnobDomain::list(std::move(values));
  return p;
}

ir::KnobValue sym(const char* name) {
  return ir::KnobValue::symbol(name);
}

/// BM and K integer knobs around a symbolic DTYPE, then a duplicate BM that must not count.
std::vector<ir::Param> smallParams() {
  return {param("BM", {1, 2, 4}), param("DTYPE", {sym("bf16"), sym("bfp8_b")}), param("K", {8, 16}),
          param("BM", {7})};
}

TEST(Space, IdsFollowForEachBindingAndRoundTrip) {
  std::vector<ir::Param> params = smallParams();
  Expected<Space> space = Space::fromParams(params, {});
  ASSERT_TRUE(space) << space.error().message;
  ASSERT_EQ(space->size(), 12u);
  std::vector<ir::Binding> expected;
  ir::forEachBinding({&params[0], &params[1], &params[2]}, {}, [&](const ir::Binding& b) {
    expected.push_back(b);
    return true;
  });
  ASSERT_EQ(expected.size(), 12u);
  for (uint64_t id = 0; id < space->size(); ++id) {
    EXPECT_EQ(space->binding(id), expected[id]) << id;
    EXPECT_EQ(space->point(id), expected[id]) << id; // nothing fixed: the point is the binding
    EXPECT_EQ(space->idOf(space->binding(id)), id);
    EXPECT_EQ(space->idOfIndices(space->indices(id)), id);
  }
  EXPECT_EQ(space->binding(0), (ir::Binding{{"BM", 1}, {"DTYPE", sym("bf16")}, {"K", 8}}));
  EXPECT_EQ(space->binding(1).at("K"), ir::KnobValue(16)); // the last dimension is fastest
}

TEST(Space, FixedKnobsAreNotSearched) {
  ir::Binding fixed{{"DTYPE", sym("bfp8_b")}};
  Expected<Space> space = Space::fromParams(smallParams(), fixed);
  ASSERT_TRUE(space) << space.error().message;
  ASSERT_EQ(space->dimensions().size(), 2u);
  EXPECT_EQ(space->dimensions()[0].name, "BM");
  EXPECT_EQ(space->dimensions()[1].name, "K");
  EXPECT_EQ(space->size(), 6u);
  ir::Binding point{{"BM", 4}, {"K", 16}};
  EXPECT_EQ(space->point(5), point);
  ir::Binding full = point;
  full["DTYPE"] = sym("bfp8_b");
  EXPECT_EQ(space->binding(5), full);
  EXPECT_EQ(space->idOf(point), 5u);
  EXPECT_EQ(space->idOf(full), 5u);
  full["DTYPE"] = sym("bf16"); // not the fixed value
  EXPECT_EQ(space->idOf(full), std::nullopt);
  EXPECT_EQ(space->idOf({{"BM", 4}}), std::nullopt);                      // K missing
  EXPECT_EQ(space->idOf({{"BM", 3}, {"K", 16}}), std::nullopt);           // 3 not in BM's domain
  EXPECT_EQ(space->idOf({{"BM", 4}, {"K", 16}, {"X", 1}}), std::nullopt); // unknown knob
}

TEST(Space, BadFixedValuesNameTheKnobAndItsDomain) {
  Expected<Space> unknown = Space::fromParams(smallParams(), {{"BN", 2}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("'BN'"), std::string::npos) << unknown.error().message;
  Expected<Space> outside = Space::fromParams(smallParams(), {{"BM", 3}});
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().message.find("'BM' = 3"), std::string::npos);
  EXPECT_NE(outside.error().message.find("[1, 2, 4]"), std::string::npos);
  // The first declaration of a duplicated knob is its domain: BM = 7 is not allowed.
  EXPECT_FALSE(Space::fromParams(smallParams(), {{"BM", 7}}));
  Expected<Space> symbol = Space::fromParams(smallParams(), {{"DTYPE", 1}});
  ASSERT_FALSE(symbol);
  EXPECT_NE(symbol.error().message.find("[bf16, bfp8_b]"), std::string::npos);
}

TEST(Space, PlannerDimensionsAppendAsTheFastest) {
  Space space = *Space::fromParams(smallParams(), {{"K", 8}});
  ASSERT_TRUE(space.addDimension({"?%cba", {1, 2, 3, 4}}));
  EXPECT_EQ(space.size(), 24u);
  EXPECT_EQ(space.binding(1),
            (ir::Binding{{"?%cba", 2}, {"BM", 1}, {"DTYPE", sym("bf16")}, {"K", 8}}));
  EXPECT_EQ(space.point(4), (ir::Binding{{"?%cba", 1}, {"BM", 1}, {"DTYPE", sym("bfp8_b")}}));
  EXPECT_FALSE(space.addDimension({"?%cba", {8}})); // already searched
  EXPECT_FALSE(space.addDimension({"K", {8, 16}})); // fixed
  EXPECT_FALSE(space.addDimension({"?%dst", {}}));  // no values
  Status repeated = space.addDimension({"?%dst", {1, 2, 1}});
  ASSERT_FALSE(repeated);
  EXPECT_NE(repeated.error().message.find("lists 1 twice"), std::string::npos);
  EXPECT_EQ(space.size(), 24u); // refused dimensions change nothing
  EXPECT_EQ(space.dimensions().size(), 3u);
  Expected<Space> created = Space::create({{"a", {1, 2}}, {"a", {3}}});
  EXPECT_FALSE(created);
}

TEST(Space, SizesOver2To63AreErrors) {
  std::vector<Dimension> dims(63, Dimension{"", {0, 1}});
  for (size_t i = 0; i < dims.size(); ++i)
    dims[i].name = "d" + std::to_string(i);
  Expected<Space> largest = Space::create(dims);
  ASSERT_TRUE(largest) << largest.error().message;
  EXPECT_EQ(largest->size(), uint64_t(1) << 63);
  uint64_t last = largest->size() - 1;
  EXPECT_EQ(largest->binding(last).at("d0"), ir::KnobValue(1));
  EXPECT_EQ(largest->binding(last).at("d62"), ir::KnobValue(1));
  EXPECT_EQ(largest->idOf(largest->binding(last)), last);
  Status more = largest->addDimension({"d63", {0, 1}});
  ASSERT_FALSE(more);
  EXPECT_NE(more.error().message.find("2^63"), std::string::npos);
  EXPECT_FALSE(Space::create({{"a", std::vector<ir::KnobValue>(3, 0)}}));
  std::vector<ir::KnobValue> wide;
  for (int v = 0; v < 3000; ++v)
    wide.push_back(v);
  // 3000^5 < 2^63 < 3000^6: the sixth dimension is refused.
  std::vector<Dimension> big;
  for (int i = 0; i < 6; ++i)
    big.push_back({"w" + std::to_string(i), wide});
  Expected<Space> tooBig = Space::create(big);
  ASSERT_FALSE(tooBig);
  EXPECT_NE(tooBig.error().message.find("'w5'"), std::string::npos) << tooBig.error().message;
}

TEST(Space, NeighboursMoveOneDimensionOneStep) {
  Space space = *Space::create({{"a", {0, 1, 2}}, {"b", {0, 1}}, {"c", {0, 1, 2, 3}}});
  // (1, 0, 3): a down, a up, b up, c down; c up is past the end, b down before the start.
  uint64_t id = space.idOfIndices({1, 0, 3});
  EXPECT_EQ(space.neighbours(id),
            (std::vector<uint64_t>{space.idOfIndices({0, 0, 3}), space.idOfIndices({2, 0, 3}),
                                   space.idOfIndices({1, 1, 3}), space.idOfIndices({1, 0, 2})}));
  EXPECT_EQ(space.neighbours(0), (std::vector<uint64_t>{8, 4, 1}));
  EXPECT_TRUE(Space().neighbours(0).empty());
}

TEST(Space, NoDimensionsIsOnePoint) {
  Space space = *Space::fromParams({param("BM", {1, 2})}, {{"BM", 2}});
  EXPECT_EQ(space.size(), 1u);
  EXPECT_EQ(space.binding(0), (ir::Binding{{"BM", 2}}));
  EXPECT_TRUE(space.point(0).empty());
  EXPECT_EQ(space.idOf({}), 0u);
}

/// Knobs declared by TTL text (dependent domains need expressions).
std::vector<ir::Param> paramsOf(const char* text, std::unique_ptr<ir::Module>& keep) {
  ir::DiagnosticEngine diags;
  keep = ir::parseSource(text, "t.ttl", diags);
  EXPECT_TRUE(keep) << ir::format(diags.diagnostics());
  return keep ? ir::collectParams(*keep) : std::vector<ir::Param>{};
}

const char* const kDependent = "ttl.param @M = range(32, 1048577, 32) {problem}\n"
                               "ttl.param @L = [7, 9]\n"
                               "ttl.param @P = range(1, @M / 32 + 1)\n"
                               "ttl.param @W = divisors(@M / 32)\n"
                               "ttl.param @B = divisors(@P)\n"
                               "ttl.param @S = divisors(@B)\n";

TEST(Space, DependentDomainsFormOneJointDimensionOfTheirLegalCombinations) {
  std::unique_ptr<ir::Module> keep;
  std::vector<ir::Param> params = paramsOf(kDependent, keep);
  Expected<Space> space = Space::fromParams(params, {{"M", 192}}); // 6 tiles
  ASSERT_TRUE(space) << space.error().message;
  // L and W read no searched knob: dimensions of their own; P, B and S read each other: one
  // joint dimension, ordered by its first knob.
  ASSERT_EQ(space->dimensions().size(), 3u);
  EXPECT_EQ(space->dimensions()[0].name, "L");
  EXPECT_EQ(space->dimensions()[1].name, "P+B+S");
  EXPECT_EQ(space->dimensions()[2].name, "W");
  EXPECT_EQ(space->dimensions()[2].values, (std::vector<ir::KnobValue>{1, 2, 3, 6}));
  // The combinations, by brute force in canonical order: p in 1..6, b | p, s | b.
  std::vector<ir::Binding> joint;
  for (int64_t p = 1; p <= 6; ++p)
    for (int64_t b = 1; b <= p; ++b)
      for (int64_t sub = 1; sub <= b; ++sub)
        if (p % b == 0 && b % sub == 0) joint.push_back({{"P", p}, {"B", b}, {"S", sub}});
  ASSERT_EQ(space->dimensions()[1].size(), joint.size());
  EXPECT_EQ(space->size(), 2 * joint.size() * 4); // exact, before any search
  for (uint64_t id = 0; id < space->size(); ++id) {
    ir::Binding b = space->binding(id);
    EXPECT_EQ(b.at("M"), ir::KnobValue(192));
    std::vector<size_t> at = space->indices(id);
    ir::Binding expected = joint[at[1]];
    expected["M"] = 192;
    expected["L"] = at[0] == 0 ? 7 : 9;
    expected["W"] = space->dimensions()[2].values[at[2]];
    EXPECT_EQ(b, expected) << id;
    EXPECT_EQ(space->idOf(b), id);
    EXPECT_EQ(space->idOf(space->point(id)), id);
  }
  // Not a combination of the joint dimension: no id.
  ir::Binding bad = space->binding(0);
  bad["B"] = 4;
  EXPECT_EQ(space->idOf(bad), std::nullopt);
  // Neighbours step through the joint dimension's candidates like any other.
  EXPECT_EQ(space->neighbours(0).size(), 3u); // L up, joint up, W up
}

TEST(Space, BoundKnobsTurnDependentDomainsIntoLists) {
  std::unique_ptr<ir::Module> keep;
  std::vector<ir::Param> params = paramsOf(kDependent, keep);
  Expected<Space> space = Space::fromParams(params, {{"M", 192}, {"P", 4}});
  ASSERT_TRUE(space) << space.error().message;
  // B reads only P (bound) now, S reads B: one joint dimension B+S of 1/1, 2/1, 2/2, 4/1, 4/2,
  // 4/4, after L and W (ordered by their first knob's declaration).
  ASSERT_EQ(space->dimensions().size(), 3u);
  EXPECT_EQ(space->dimensions()[2].name, "B+S");
  EXPECT_EQ(space->dimensions()[2].tuples, (std::vector<std::vector<ir::KnobValue>>{
                                               {1, 1}, {2, 1}, {2, 2}, {4, 1}, {4, 2}, {4, 4}}));
  // Bound out of its (evaluated) domain: refused with the domain; P = 7 > 6 tiles.
  Expected<Space> outside = Space::fromParams(params, {{"M", 192}, {"P", 7}});
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().message.find("'P' = 7 is not in its domain range(1, @M / 32 + 1)"),
            std::string::npos)
      << outside.error().message;
  // A knob bound where its domain reads a searched knob is checked per point, not here.
  EXPECT_TRUE(Space::fromParams(params, {{"M", 192}, {"B", 3}}));
}

TEST(Space, ProblemKnobsMustBeBound) {
  std::unique_ptr<ir::Module> keep;
  std::vector<ir::Param> params = paramsOf(kDependent, keep);
  Expected<Space> space = Space::fromParams(params, {});
  ASSERT_FALSE(space);
  EXPECT_NE(space.error().message.find("@M is a problem knob"), std::string::npos)
      << space.error().message;
  // Bound outside its domain: M must be a multiple of 32.
  Expected<Space> odd = Space::fromParams(params, {{"M", 100}});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("'M' = 100 is not in its domain"), std::string::npos);
}

TEST(Space, AnEmptyDomainIsOnePointThatBindsLess) {
  std::unique_ptr<ir::Module> keep;
  std::vector<ir::Param> params = paramsOf("ttl.param @A = range(1, 4)\n"
                                           "ttl.param @B = range(@A, 3)\n"
                                           "ttl.param @C = range(@K, 2)\n"
                                           "ttl.param @K = [5]\n",
                                           keep);
  ASSERT_EQ(params.size(), 4u);
  // C reads K, declared after it (the verifier refuses that); bound, K gives C an empty domain.
  Expected<Space> space = Space::fromParams(params, {{"K", 5}});
  ASSERT_TRUE(space) << space.error().message;
  // A+B: (1, 1), (1, 2), (2, 2), then A = 3 with B's domain range(3, 3) empty: a point without B.
  ASSERT_EQ(space->dimensions()[0].name, "A+B");
  EXPECT_EQ(space->dimensions()[0].tuples,
            (std::vector<std::vector<ir::KnobValue>>{{1, 1}, {1, 2}, {2, 2}, {3}}));
  // C alone, empty: one point binding nothing of it.
  ASSERT_EQ(space->dimensions()[1].name, "C");
  EXPECT_EQ(space->dimensions()[1].size(), 1u);
  EXPECT_EQ(space->size(), 4u);
  ir::Binding last = space->binding(3);
  EXPECT_EQ(last, (ir::Binding{{"A", 3}, {"K", 5}}));
  EXPECT_EQ(space->idOf(last), 3u);
}

TEST(Space, OversizedDomainsAreLocatedErrors) {
  std::unique_ptr<ir::Module> keep;
  std::vector<ir::Param> params = paramsOf("ttl.param @N = range(1, 4294967296) {problem}\n"
                                           "ttl.param @P = range(1, @N + 1)\n",
                                           keep);
  EXPECT_TRUE(Space::fromParams(params, {{"N", 1000}}));
  Expected<Space> wide = Space::fromParams(params, {{"N", 2000000}});
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().message.find("the domain of @P, range(1, @N + 1), has 2000000 values "
                                      "under N=2000000, more than the 1048576"),
            std::string::npos)
      << wide.error().message;
  EXPECT_NE(wide.error().message.find("t.ttl:2:"), std::string::npos) << wide.error().message;
  // A joint dimension over its limit: about 2048^3 / 6 combinations, refused once counted past
  // 2^20.
  std::vector<ir::Param> joint = paramsOf("ttl.param @N = range(1, 4294967296) {problem}\n"
                                          "ttl.param @P = range(1, @N + 1)\n"
                                          "ttl.param @Q = range(1, @N + 1)\n"
                                          "ttl.param @R = range(@P, @Q + 1)\n",
                                          keep);
  Expected<Space> big = Space::fromParams(joint, {{"N", 2048}});
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("the knobs @P, @Q, @R (whose domains read each other) have "
                                     "more than 1048576 combinations under N=2048"),
            std::string::npos)
      << big.error().message;
}

TEST(Space, ParseShard) {
  Expected<Shard> ok = parseShard("2/5");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->index, 2u);
  EXPECT_EQ(ok->count, 5u);
  EXPECT_TRUE(ok->owns(7));
  EXPECT_FALSE(ok->owns(8));
  EXPECT_TRUE(parseShard("0/1"));
  Expected<Shard> high = parseShard("3/2");
  ASSERT_FALSE(high);
  EXPECT_EQ(high.error().message, "--shard 3/2: index must be < count");
  Expected<Shard> zero = parseShard("0/0");
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("--shard 0/0: count"), std::string::npos);
  for (const char* bad : {"", "1", "a/2", "1/b", "-1/2", "1/-2", "1 /2", "/2", "1/", "1/2/3",
                          "+1/2", "99999999999999999999/2"}) {
    Expected<Shard> s = parseShard(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().message.rfind("--shard " + std::string(bad) + ": ", 0), 0u)
        << s.error().message;
  }
}

} // namespace
} // namespace ttlplan::search
