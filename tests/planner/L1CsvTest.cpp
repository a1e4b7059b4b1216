// CSV reading and writing for L1 placement problems: round trips and each error.
#include "ttlplan/planner/l1/Csv.h"

#include <gtest/gtest.h>

using namespace ttlplan::planner::l1;

namespace {

std::string errorOf(std::string_view text) {
  auto parsed = parseCsv(text, "in.csv");
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? std::string() : parsed.error().message;
}

} // namespace

TEST(L1Csv, ReadsMinimallocFormat) {
  auto parsed = parseCsv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n", "x.csv");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Problem& p = parsed->problem;
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.capacity, 0);
  EXPECT_EQ(p.buffers[1].id, "b2");
  EXPECT_EQ(p.buffers[1].lower, 3);
  EXPECT_EQ(p.buffers[1].upper, 9);
  EXPECT_EQ(p.buffers[1].size, 4);
  EXPECT_EQ(p.buffers[1].alignment, 1);
  EXPECT_FALSE(parsed->offsets);
}

TEST(L1Csv, ColumnsInAnyOrderWithSpacesAndCrlf) {
  auto parsed = parseCsv(
      "size, alignment ,upper,id,lower\r\n 32,16,5, cb0 ,1\r\n\r\n8,1,2,cb1,0\r\n", "x.csv");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->problem.buffers.size(), 2u);
  const Buffer& b = parsed->problem.buffers[0];
  EXPECT_EQ(b.id, "cb0");
  EXPECT_EQ(b.lower, 1);
  EXPECT_EQ(b.upper, 5);
  EXPECT_EQ(b.size, 32);
  EXPECT_EQ(b.alignment, 16);
}

TEST(L1Csv, RoundTripWithOffsets) {
  Problem p;
  p.buffers = {{"a", 0, 2, 16, 8}, {"b", -3, 3, 8, 1}, {"c", 3, 4, 24, 1}};
  Solution s{{0, 16, 0}, 24};
  std::string text = formatCsv(p, s);
  EXPECT_EQ(text, "id,lower,upper,size,alignment,offset\na,0,2,16,8,0\nb,-3,3,8,1,16\n"
                  "c,3,4,24,1,0\n");
  auto parsed = parseCsv(text, "round.csv");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_TRUE(parsed->offsets);
  EXPECT_EQ(*parsed->offsets, s.offsets);
  EXPECT_EQ(formatCsv(parsed->problem, s), text);
  EXPECT_EQ(formatCsv(parsed->problem), "id,lower,upper,size,alignment\na,0,2,16,8\n"
                                        "b,-3,3,8,1\nc,3,4,24,1\n");
  Problem plain;
  plain.buffers = {{"x", 0, 1, 5, 1}};
  EXPECT_EQ(formatCsv(plain), "id,lower,upper,size\nx,0,1,5\n");
}

TEST(L1Csv, ReadsTheSharedBenchmarkFiles) {
  auto parsed = readCsv(std::string(TTLPLAN_SOURCE_DIR) + "/data/minimalloc/input.12.csv");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->problem.buffers.size(), 5u);
}

TEST(L1Csv, Errors) {
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,x,4\n"), "in.csv:2: upper 'x' is not an integer");
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,1,4.5\n"), "in.csv:2: size '4.5' is not an integer");
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,1,\n"), "in.csv:2: size '' is not an integer");
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,1,99999999999999999999\n"),
            "in.csv:2: size '99999999999999999999' is not an integer");
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,1,4\nb,3,3,4\n"),
            "in.csv:3: upper 3 <= lower 3 (lifetimes are [lower, upper))");
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,1,0\n"), "in.csv:2: size 0 <= 0");
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,1,-4\n"), "in.csv:2: size -4 <= 0");
  EXPECT_EQ(errorOf("id,lower,upper,size,alignment\na,0,1,4,0\n"), "in.csv:2: alignment 0 < 1");
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,1,4\n\nb,0,1,4\na,1,2,4\n"),
            "in.csv:5: duplicate id 'a' (first on line 2)");
  EXPECT_EQ(errorOf("id,lower,size\na,0,4\n"), "in.csv:1: missing column 'upper' in the header");
  EXPECT_EQ(errorOf("id,lower,upper,size,colour\na,0,1,4,red\n"),
            "in.csv:1: unknown column 'colour' (columns are id, lower, upper, size and "
            "optionally alignment, offset)");
  EXPECT_EQ(errorOf("id,lower,upper,size,size\n"), "in.csv:1: column 'size' appears twice");
  EXPECT_EQ(errorOf("id,lower,upper,size\na,0,1\n"), "in.csv:2: expected 4 fields, found 3");
  EXPECT_EQ(errorOf("id,lower,upper,size\n,0,1,4\n"), "in.csv:2: empty id");
  EXPECT_EQ(errorOf(""), "in.csv:1: empty file (expected a header such as id,lower,upper,size)");
  auto missing = readCsv("/no/such/file.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/no/such/file.csv"), std::string::npos);
}
