// search::Space: ids are ir::forEachBinding's order (first knob slowest), map back from bindings,
// leave fixed knobs out, refuse bad fixed values and oversized spaces; and --shard parsing.
#include "ttlplan/search/Space.h"

#include <gtest/gtest.h>

namespace ttlplan::search {
namespace {

ir::Param param(std::string name, std::vector<ir::KnobValue> values) {
  ir::Param p;
  p.name = std::move(name);
  p.values = std::move(values);
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
  ir::forEachBinding({&params[0], &params[1], &params[2]}, [&](const ir::Binding& b) {
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
