// lower::parsePtoProgram: the op registry's pto field as one instruction or a composite program
// (docs/pto.md, "Composite ops"), and every registry field parses.
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/lower/PtoPlanner.h"

#include <gtest/gtest.h>

namespace ttlplan::lower {
namespace {

TEST(PtoProgram, OneInstructionWritesY) {
  Expected<std::vector<PtoStatement>> p = parsePtoProgram("TADD");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].dst, "y");
  EXPECT_EQ((*p)[0].instruction, "TADD");
  EXPECT_TRUE((*p)[0].args.empty());
}

TEST(PtoProgram, StatementsWithScratchAndLiterals) {
  Expected<std::vector<PtoStatement>> p =
      parsePtoProgram("t=TMULS(x, -1); t=TEXP(t);  y=TRECIP(t)");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ((*p)[0].dst, "t");
  EXPECT_EQ((*p)[0].instruction, "TMULS");
  EXPECT_EQ((*p)[0].args, (std::vector<std::string>{"x", "-1"}));
  EXPECT_EQ((*p)[2].dst, "y");
  EXPECT_EQ((*p)[2].args, (std::vector<std::string>{"t"}));
}

TEST(PtoProgram, MalformedProgramsAreRefused) {
  EXPECT_FALSE(parsePtoProgram("t=TEXP(x)"));            // never writes y
  EXPECT_FALSE(parsePtoProgram("z=TEXP(x); y=TEXP(z)")); // writes neither y nor t
  EXPECT_FALSE(parsePtoProgram("y=TEXP x"));             // no parentheses
  EXPECT_FALSE(parsePtoProgram("y TEXP(x)"));            // no '='
}

TEST(PtoProgram, EveryRegistryFieldParses) {
  size_t programs = 0;
  for (const ir::OpDef& def : ir::registeredOps()) {
    if (def.compute.pto.empty()) continue;
    Expected<std::vector<PtoStatement>> p = parsePtoProgram(def.compute.pto);
    EXPECT_TRUE(p) << def.name << ": " << p.error().message;
    if (p && p->size() > 1) ++programs;
  }
  EXPECT_EQ(programs, 3u); // gelu, sigmoid, tanh
}

} // namespace
} // namespace ttlplan::lower
