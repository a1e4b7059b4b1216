// The independent L1 validator catches each kind of corruption, one test per Validity value.
#include "ttlplan/planner/l1/Problem.h"

#include <gtest/gtest.h>

using namespace ttlplan::planner::l1;

namespace {

/// a and b live together, c later; a valid plan: a at 0, b at 16, c at 0 (peak 24).
Problem threeBuffers() {
  Problem p;
  p.capacity = 64;
  p.buffers = {{"a", 0, 2, 16, 8}, {"b", 1, 3, 8, 8}, {"c", 3, 4, 24, 1}};
  return p;
}
Solution good() {
  return Solution{{0, 16, 0}, 24};
}

} // namespace

TEST(L1Validate, Valid) {
  EXPECT_EQ(validate(threeBuffers(), good()), Validity::Valid);
  EXPECT_EQ(validate(Problem{}, Solution{}), Validity::Valid);
  Problem unbounded = threeBuffers();
  unbounded.capacity = 0;
  EXPECT_EQ(validate(unbounded, Solution{{0, 16, 1000}, 1024}), Validity::Valid);
}

TEST(L1Validate, WrongOffsetCount) {
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 16}, 24}), Validity::WrongOffsetCount);
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 16, 0, 0}, 24}), Validity::WrongOffsetCount);
}

TEST(L1Validate, NegativeOffset) {
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 16, -8}, 24}), Validity::NegativeOffset);
}

TEST(L1Validate, Misaligned) {
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 20, 0}, 28}), Validity::Misaligned);
}

TEST(L1Validate, OverCapacity) {
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 16, 48}, 72}), Validity::OverCapacity);
  // Exactly at the capacity is fine; no overflow near INT64_MAX.
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 16, 40}, 64}), Validity::Valid);
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, INT64_MAX - 7, 0}, 24}), Validity::OverCapacity);
}

TEST(L1Validate, Overlap) {
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 8, 0}, 24}), Validity::Overlap);
  // c is not live with a or b: sharing bytes with them is fine.
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 16, 0}, 24}), Validity::Valid);
  // Touching lifetimes ([0,2) and [2,..)) do not overlap; touching bytes do not either.
  Problem p;
  p.buffers = {{"x", 0, 2, 4, 1}, {"y", 2, 3, 4, 1}, {"z", 1, 3, 4, 1}};
  EXPECT_EQ(validate(p, Solution{{0, 0, 4}, 8}), Validity::Valid);
  EXPECT_EQ(validate(p, Solution{{0, 0, 3}, 7}), Validity::Overlap);
}

TEST(L1Validate, WrongPeak) {
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 16, 0}, 32}), Validity::WrongPeak);
  EXPECT_EQ(validate(threeBuffers(), Solution{{0, 16, 0}, 23}), Validity::WrongPeak);
  Problem unbounded = threeBuffers();
  unbounded.capacity = 0;
  EXPECT_EQ(validate(unbounded, Solution{{0, 16, INT64_MAX - 7}, INT64_MAX}), Validity::WrongPeak);
}

TEST(L1Validate, InvalidProblem) {
  Problem p = threeBuffers();
  p.buffers[0].size = 0;
  EXPECT_EQ(validate(p, good()), Validity::InvalidProblem);
  p = threeBuffers();
  p.buffers[1].upper = p.buffers[1].lower;
  EXPECT_EQ(validate(p, good()), Validity::InvalidProblem);
  p = threeBuffers();
  p.buffers[2].alignment = 0;
  EXPECT_EQ(validate(p, good()), Validity::InvalidProblem);
  p = threeBuffers();
  p.capacity = -1;
  EXPECT_EQ(validate(p, good()), Validity::InvalidProblem);
}

TEST(L1Validate, Names) {
  EXPECT_EQ(toString(Validity::Valid), "valid");
  EXPECT_EQ(toString(Validity::Overlap), "overlap");
  EXPECT_EQ(toString(Validity::InvalidProblem), "invalid problem");
}
