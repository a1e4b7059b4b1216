// planner::pto::plan and validate (planner/pto/Plan.h). The expected numbers are worked out by
// hand in the comments: every slot is live for the whole kernel, so a memory needs the sum of its
// aligned slots (the last one unpadded) and a pipe pair one event id per slot each way.
#include "ttlplan/planner/pto/Plan.h"

#include <gtest/gtest.h>

namespace ttlplan::planner::pto {
namespace {

// A2/A3's UB below its hidden window (docs/pto-facts.md): 184 KiB, 32-byte alignment.
Problem eltwiseAdd() {
  Problem p;
  p.kernel = "@eltwise_add";
  p.device = "ascend_a2a3";
  for (MemoryLimit& m : p.memories)
    m = {512 * 1024, 32};
  p.memories[size_t(Memory::Ub)] = {184 * 1024, 32};
  // Blocks of 2x1 bf16 tiles: 2 * 32 * 32 * 2 B = 4096 B.
  auto cb = [](std::string name, std::optional<int64_t> slots, Pipe from, Pipe to) {
    BufferSpec b;
    b.name = std::move(name);
    b.location = "add.ttl:1:1";
    b.slotBytes = 4096;
    b.slots = slots;
    b.maxSlots = 4;
    b.producer = from;
    b.consumer = to;
    return b;
  };
  p.buffers = {cb("%cba", 2, Pipe::Mte2, Pipe::V), cb("%cbb", 2, Pipe::Mte2, Pipe::V),
               cb("%cbc", std::nullopt, Pipe::V, Pipe::Mte3)};
  return p;
}

const EventPlan* events(const Plan& plan, Pipe src, Pipe dst) {
  for (const EventPlan& e : plan.events)
    if (e.src == src && e.dst == dst) return &e;
  return nullptr;
}

TEST(PtoPlan, EltwiseAddTakesTheDeepestCountAndNumbersEveryFlag) {
  Problem problem = eltwiseAdd();
  PlanResult r = plan(problem);
  ASSERT_TRUE(r.plan) << r.rejection->message;
  const Plan& p = *r.plan;
  EXPECT_EQ(p.buffers[2].slots, 4); // 8 slots of 4 KiB = 32 KiB, far below 184 KiB
  EXPECT_TRUE(p.buffers[2].chosenByPlanner);
  ASSERT_EQ(p.memories.size(), 1u);
  EXPECT_EQ(p.memories[0].memory, Memory::Ub);
  EXPECT_EQ(p.memories[0].used, 8 * 4096);
  // MTE2 -> V: a ready flag per slot of %cba and %cbb; V -> MTE2: their free flags.
  ASSERT_NE(events(p, Pipe::Mte2, Pipe::V), nullptr);
  EXPECT_EQ(events(p, Pipe::Mte2, Pipe::V)->used, 4);
  EXPECT_EQ(events(p, Pipe::V, Pipe::Mte2)->used, 4);
  EXPECT_EQ(events(p, Pipe::V, Pipe::Mte3)->used, 4);
  EXPECT_EQ(events(p, Pipe::Mte3, Pipe::V)->used, 4);
  EXPECT_EQ(p.events.size(), 4u);
  EXPECT_EQ(p.buffers[0].readyEvents.size(), 2u);
  EXPECT_EQ(p.buffers[2].freeEvents.size(), 4u);
  EXPECT_EQ(validate(problem, p), Validity::Valid);
}

TEST(PtoPlan, EverySolverPlacesTheSameProblem) {
  const Problem problem = eltwiseAdd();
  for (l1::L1Solver solver : l1::allL1Solvers()) {
    PlanOptions options;
    options.solver = solver;
    PlanResult r = plan(problem, options);
    ASSERT_TRUE(r.plan) << l1::toString(solver) << ": " << r.rejection->message;
    EXPECT_EQ(r.plan->memories[0].used, 8 * 4096) << l1::toString(solver);
    EXPECT_EQ(validate(problem, *r.plan), Validity::Valid) << l1::toString(solver);
  }
}

TEST(PtoPlan, QuestionMarkCountsShrinkUntilTheMemoryFits) {
  Problem problem = eltwiseAdd();
  // 28 KiB: %cba and %cbb take 16 KiB, so %cbc gets 3 slots of 4 KiB.
  problem.memories[size_t(Memory::Ub)].capacity = 28 * 1024;
  PlanResult r = plan(problem);
  ASSERT_TRUE(r.plan) << r.rejection->message;
  EXPECT_EQ(r.plan->buffers[2].slots, 3);
  ASSERT_EQ(r.plan->depthNotes.size(), 1u);
  EXPECT_NE(r.plan->depthNotes[0].find("reduced from 4"), std::string::npos);
  EXPECT_EQ(validate(problem, *r.plan), Validity::Valid);
}

TEST(PtoPlan, AMemoryTooSmallNamesTheShortfallAndTheCheapestFix) {
  Problem problem = eltwiseAdd();
  // 20,000 B: even with %cbc at 1 slot the five slots need 20,480 B.
  problem.memories[size_t(Memory::Ub)].capacity = 20000;
  PlanResult r = plan(problem);
  ASSERT_FALSE(r.plan);
  const Rejection& why = *r.rejection;
  EXPECT_EQ(why.resource, Resource::Memory);
  EXPECT_EQ(why.memory, Memory::Ub);
  EXPECT_EQ(why.needed, 20480);
  EXPECT_EQ(why.available, 20000);
  // Short by 480 B: one slot less of %cba (the first of the 8 KiB buffers) closes it.
  EXPECT_EQ(why.fix, "give %cba block count 1 instead of 2 (saves 4,096 B)");
  EXPECT_NE(why.message.find("short by 480 B"), std::string::npos) << why.message;
  EXPECT_NE(why.message.find("%cbc (add.ttl:1:1, 1 slot of 4,096 B)"), std::string::npos)
      << why.message;
}

TEST(PtoPlan, OnlyTheLastSlotGoesUnpadded) {
  Problem problem;
  problem.kernel = "@k";
  problem.device = "d";
  for (MemoryLimit& m : problem.memories)
    m = {228, 32};
  BufferSpec b;
  b.name = "%x";
  b.slotBytes = 100; // padded to 128: slots at 0 and 128, the second ends at 228
  b.slots = 2;
  b.producer = b.consumer = Pipe::V;
  problem.buffers = {b};
  PlanResult fits = plan(problem);
  ASSERT_TRUE(fits.plan) << fits.rejection->message;
  EXPECT_EQ(fits.plan->memories[0].used, 228);
  EXPECT_TRUE(fits.plan->events.empty()); // one pipe: no flags
  EXPECT_TRUE(fits.plan->buffers[0].readyEvents.empty());
  problem.memories[size_t(Memory::Ub)].capacity = 227;
  PlanResult tight = plan(problem);
  ASSERT_FALSE(tight.plan);
  EXPECT_EQ(tight.rejection->needed, 228);
}

TEST(PtoPlan, TooManyFlagsOnAPipePairAreRejected) {
  Problem problem = eltwiseAdd();
  // Five inputs of 2 slots: 10 ready flags MTE2 -> V, 8 ids.
  problem.buffers.resize(2);
  for (int i = 0; i < 3; ++i) {
    BufferSpec extra = problem.buffers[0];
    extra.name = "%in" + std::to_string(i);
    problem.buffers.push_back(extra);
  }
  PlanResult r = plan(problem);
  ASSERT_FALSE(r.plan);
  EXPECT_EQ(r.rejection->resource, Resource::Events);
  EXPECT_EQ(r.rejection->src, Pipe::Mte2);
  EXPECT_EQ(r.rejection->dst, Pipe::V);
  EXPECT_EQ(r.rejection->needed, 10);
  EXPECT_EQ(r.rejection->available, 8);
  EXPECT_EQ(r.rejection->fix, "lower the block counts on MTE2->V by 2 slots in all");
  // 2 + 2 + 2 + 4 + 1 = 11 flags, 3 too many: only %in1 has 3 slots to give.
  problem.buffers[3].slots = 4;
  problem.buffers[4].slots = 1;
  r = plan(problem);
  ASSERT_FALSE(r.plan);
  EXPECT_EQ(r.rejection->needed, 11);
  EXPECT_EQ(r.rejection->fix, "give %in1 block count 1 instead of 4");
}

TEST(PtoPlan, QuestionMarkCountsShrinkUntilThePipePairFits) {
  Problem problem = eltwiseAdd();
  // %cbc between V and MTE3 with 4 slots, and two more `?` outputs: 12 flags, 8 ids.
  for (int i = 0; i < 2; ++i) {
    BufferSpec extra = problem.buffers[2];
    extra.name = "%out" + std::to_string(i);
    problem.buffers.push_back(extra);
  }
  PlanResult r = plan(problem);
  ASSERT_TRUE(r.plan) << r.rejection->message;
  int64_t total = 0;
  for (size_t i = 2; i < 5; ++i)
    total += r.plan->buffers[i].slots;
  EXPECT_EQ(total, 8);
  EXPECT_EQ(events(*r.plan, Pipe::V, Pipe::Mte3)->used, 8);
  EXPECT_EQ(validate(problem, *r.plan), Validity::Valid);
}

TEST(PtoPlan, AMalformedProblemIsInvalidNotACrash) {
  Problem problem = eltwiseAdd();
  problem.buffers[0].slotBytes = 0;
  PlanResult r = plan(problem);
  ASSERT_FALSE(r.plan);
  EXPECT_EQ(r.rejection->resource, Resource::Invalid);
  EXPECT_NE(r.rejection->message.find("%cba"), std::string::npos);
}

TEST(PtoValidate, CatchesEachKindOfBrokenPlan) {
  const Problem problem = eltwiseAdd();
  PlanResult r = plan(problem);
  ASSERT_TRUE(r.plan);
  const Plan good = *r.plan;
  auto broken = [&](auto mutate) {
    Plan p = good;
    mutate(p);
    return validate(problem, p);
  };
  EXPECT_EQ(broken([](Plan& p) { p.buffers.pop_back(); }), Validity::WrongBufferCount);
  EXPECT_EQ(broken([](Plan& p) { p.buffers[0].slots = 3; }), Validity::WrongSlots);
  EXPECT_EQ(broken([](Plan& p) {
              p.buffers[2].slots = 5;
              p.buffers[2].offsets.push_back(64 * 1024);
            }),
            Validity::WrongSlots); // past maxSlots
  EXPECT_EQ(broken([](Plan& p) { p.buffers[0].offsets[0] += 16; }), Validity::Misplaced);
  EXPECT_EQ(broken([](Plan& p) { p.buffers[0].offsets[0] = 184 * 1024; }), Validity::Misplaced);
  EXPECT_EQ(broken([](Plan& p) { p.buffers[0].offsets[1] = p.buffers[0].offsets[0]; }),
            Validity::Overlap);
  EXPECT_EQ(broken([](Plan& p) { p.buffers[0].readyEvents.pop_back(); }), Validity::MissingEvents);
  EXPECT_EQ(broken([](Plan& p) { p.buffers[0].freeEvents[0] = 8; }), Validity::EventOutOfRange);
  EXPECT_EQ(broken([](Plan& p) { p.buffers[1].readyEvents[0] = p.buffers[0].readyEvents[0]; }),
            Validity::SharedEvent);
  EXPECT_EQ(broken([](Plan& p) { p.memories[0].used += 1; }), Validity::WrongSummary);
  EXPECT_EQ(broken([](Plan& p) { p.events[0].used += 1; }), Validity::WrongSummary);
  Problem bad = problem;
  bad.eventIds = 0;
  EXPECT_EQ(validate(bad, good), Validity::InvalidProblem);
}

} // namespace
} // namespace ttlplan::planner::pto
