// `ttlplan plan` end to end at the library level: every example plans and passes every planner
// validator; hand-computed CB bytes and addresses; the infeasible report; `?` depths; bindings;
// the JSON report.
#include "ttlplan/lower/KernelPlanner.h"

#include "tests/support/LoadModule.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/ApplyPlan.h"
#include "ttlplan/lower/PlanReport.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>

namespace ttlplan::lower {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;

ir::Device wormhole() {
  return *ir::builtinDevice("wormhole_b0");
}

std::unique_ptr<ir::Module> load(const std::string& path) {
  return testing::loadVerified(path);
}

std::unique_ptr<ir::Module> parse(const std::string& text) {
  return testing::parseVerified(text);
}

std::vector<std::string> examples() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kSource + "/examples"))
    if (e.path().extension() == ".ttl") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(KernelPlanner, EveryExamplePlansAndPassesEveryValidator) {
  auto files = examples();
  ASSERT_GE(files.size(), 7u);
  for (std::string device : {"wormhole_b0", "wormhole_n300", "blackhole_p150"}) {
    for (const std::string& file : files) {
      SCOPED_TRACE(file + " on " + device);
      auto module = load(file);
      ASSERT_TRUE(module);
      // A template's problem knobs: its `// example-bind:` line (examples/README.md).
      PlanOptions options;
      std::ifstream in(file);
      for (std::string line; std::getline(in, line);)
        if (line.rfind("// example-bind: ", 0) == 0) {
          std::string list = line.substr(17, line.find(' ', 17) - 17);
          Expected<ir::Binding> b = parseBindingList(list);
          ASSERT_TRUE(b) << list;
          options.binding = *b;
        }
      Expected<ModulePlan> plan = planModule(*module, *ir::builtinDevice(device), options);
      ASSERT_TRUE(plan) << plan.error().message;
      ASSERT_FALSE(plan->kernels.empty());
      for (const KernelPlan& k : plan->kernels) {
        EXPECT_EQ(validatePlan(k), "");
        for (const SubProblemRun& run : k.runs)
          EXPECT_TRUE(run.status == planner::SolveStatus::Optimal ||
                      run.status == planner::SolveStatus::Feasible)
              << run.name;
        EXPECT_FALSE(k.chains.empty());
        EXPECT_LE(k.l1Used, k.l1Capacity);
      }
    }
  }
}

TEST(KernelPlanner, EltwiseAddBytesAndAddressesByHand) {
  auto module = load(kSource + "/examples/eltwise_add.ttl");
  ASSERT_TRUE(module);
  Expected<ModulePlan> plan = planModule(*module, wormhole());
  ASSERT_TRUE(plan) << plan.error().message;
  const KernelPlan& k = plan->kernels.at(0);
  ASSERT_EQ(k.cbs.size(), 3u);
  // [2, 1] bf16, 2 blocks: 2 * 1 * 2048 * 2 = 8,192 B; the `?` CB gets the default maximum 4.
  EXPECT_EQ(k.cbs[0].bytes, 8192);
  EXPECT_EQ(k.cbs[1].bytes, 8192);
  EXPECT_EQ(k.cbs[2].blockCount, 4);
  EXPECT_TRUE(k.cbs[2].chosenByPlanner);
  EXPECT_EQ(k.cbs[2].bytes, 16384);
  // Program order from l1_unreserved_base = 103,712 (16-B aligned), packed without gaps.
  EXPECT_EQ(k.cbs[0].address, 103712);
  EXPECT_EQ(k.cbs[1].address, 103712 + 8192);
  EXPECT_EQ(k.cbs[2].address, 103712 + 16384);
  std::set<int> indices;
  for (const CbPlan& cb : k.cbs) {
    EXPECT_EQ(cb.address % 16, 0);
    indices.insert(cb.index);
  }
  EXPECT_EQ(indices, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(k.l1Used, 32768);
  EXPECT_EQ(k.l1Capacity, 1499136 - 103712);
  // 32 items on the auto grid: one item per core on 4 x 8.
  ASSERT_TRUE(k.coresSolution);
  EXPECT_EQ(k.coresSolution->makespan, 1);
  EXPECT_EQ(k.coresSolution->coresUsed, 32);
  // DST: one add on a 2x1 block, half sync bf16 = 8 tiles.
  ASSERT_EQ(k.chains.size(), 1u);
  EXPECT_EQ(k.chains[0].capacityTiles, 8);
  EXPECT_EQ(k.chains[0].solution.rounds, 1);
}

TEST(KernelPlanner, InfeasibleL1NamesShortfallCbsAndFix) {
  auto module = load(kSource + "/tests/plan/huge_cbs.ttl");
  ASSERT_TRUE(module);
  Expected<ModulePlan> plan = planModule(*module, wormhole());
  ASSERT_FALSE(plan);
  const std::string& m = plan.error().message;
  // 3 x 8*8*2048*4 = 1,572,864 B; free 1,499,136 - 103,712 = 1,395,424 B; short 177,440 B.
  EXPECT_NE(m.find("L1: kernel @huge needs 1,572,864 B of CBs but 1,395,424 B are free (short "
                   "by 177,440 B)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("%cba (4 blocks, 524,288 B, "), std::string::npos) << m;
  EXPECT_NE(m.find("huge_cbs.ttl:12:12"), std::string::npos) << m;
  // 4 -> 3 frees 131,072 B < 177,440 B; 4 -> 2 frees 262,144 B.
  EXPECT_NE(m.find("block_count of %cba from 4 to 2 frees 262,144 B"), std::string::npos) << m;
}

TEST(KernelPlanner, QuestionMarkDepthIsTheDeepestThatFits) {
  auto module = testing::loadVerified(testing::testKernelPath("lower/kernels/deep_auto.ttl"));
  ASSERT_TRUE(module);
  // Two fixed CBs take 2 x 524,288 = 1,048,576 B; 346,848 B are left, i.e. 2 blocks of 131,072.
  Expected<ModulePlan> plan = planModule(*module, wormhole());
  ASSERT_TRUE(plan) << plan.error().message;
  const KernelPlan& k = plan->kernels.at(0);
  EXPECT_EQ(k.cbs[2].blockCount, 2);
  EXPECT_EQ(validatePlan(k), "");
  ASSERT_EQ(k.depthNotes.size(), 1u);
  EXPECT_NE(k.depthNotes[0].find("reduced from 4"), std::string::npos);
  // A lower maximum is taken as is.
  PlanOptions options;
  options.maxBlockCount = 1;
  plan = planModule(*module, wormhole(), options);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->kernels[0].cbs[2].blockCount, 1);
}

TEST(KernelPlanner, TemplateBindingFirstLegalOrRequested) {
  auto module = load(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  Expected<ModulePlan> plan = planModule(*module, wormhole());
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->binding.binding.at("WM"), 8);
  EXPECT_EQ(plan->binding.source, "first binding satisfying every ttl.require");

  PlanOptions options;
  options.binding = *parseBindingList("BM=2, BN=2, @BK=2, WM=4, WN=4");
  plan = planModule(*module, wormhole(), options);
  ASSERT_TRUE(plan) << plan.error().message;
  const KernelPlan& k = plan->kernels.at(0);
  EXPECT_EQ(plan->binding.source, "--bind");
  EXPECT_EQ(k.cbs[0].bytes, 2 * 2 * 2048 * 2);
  EXPECT_EQ(k.coresProblem->items, 16);
  EXPECT_EQ(validatePlan(k), "");

  options.binding = *parseBindingList("BM=2,BN=2,BK=2,WM=2,WN=4"); // 2 * 2 != 8
  plan = planModule(*module, wormhole(), options);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("ttl.require does not hold"), std::string::npos);
  EXPECT_FALSE(parseBindingList("BM"));
  EXPECT_FALSE(parseBindingList("BM=1x"));
}

// The first legal binding is searched for among at most kMaxBindingsChecked points: 8^7 points
// whose first legal one is point 7 * 8^6 (knobs vary last-fastest) is an error saying so, not an
// hour of checking; one at point 8^6 is found.
TEST(KernelPlanner, FirstLegalBindingSearchIsBounded) {
  auto moduleWhereAIs = [](int a) {
    // The file's %want (8) becomes `a`.
    std::string text = testing::testKernelText("lower/kernels/knob_a_must_be.ttl");
    const std::string line = "%want = arith.constant 8";
    size_t at = text.find(line);
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos)
      text.replace(at, line.size(), "%want = arith.constant " + std::to_string(a));
    return parse(text);
  };
  static_assert(kMaxBindingsChecked < 7 * 262144 && kMaxBindingsChecked > 262144);
  auto late = moduleWhereAIs(8);
  ASSERT_TRUE(late);
  Expected<ChosenBinding> none = chooseBinding(*late, std::nullopt);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message,
            "none of the first 1000000 bindings of the 7 knobs satisfies every ttl.require and "
            "knob expression; bind more knobs (--bind) or search the space with `ttlplan tune`");
  auto early = moduleWhereAIs(2);
  ASSERT_TRUE(early);
  Expected<ChosenBinding> found = chooseBinding(*early, std::nullopt);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->binding.at("A"), 2);
  EXPECT_EQ(found->binding.at("G"), 1);
}

// Found by fuzz_plan (a 7-minute run, docs/fuzzing.md): matmul_2d_template with out_subblock_h
// 0 first in its list and per_core_M 716 for 16 made planModule check bindings for minutes. The
// search now ends at the planner's time limit (or kMaxBindingsChecked points) with an error. Here
// with computed domains: 10^12 bindings (a dependent one among them) whose only legal one is last.
TEST(KernelPlanner, FirstLegalBindingSearchEndsAtTheTimeLimit) {
  auto module = load(testing::testKernelPath("lower/kernels/last_binding_legal.ttl"));
  ASSERT_TRUE(module);
  PlanOptions options;
  options.limits.timeLimitSeconds = 0.05;
  Expected<ModulePlan> plan = planModule(*module, wormhole(), options);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("none of the first "), std::string::npos)
      << plan.error().message;
}

// What `ttlplan plan` passes after tuning the unbound knobs (driver/Binding.cpp): the source
// replaces "--bind" in the report, and kernel 0's block counts (by CB position) override the
// planner's choice for its `?` CB (%cbc, the third create_cb; the planner alone takes 4).
TEST(KernelPlanner, CallerChosenBindingSourceAndKernelBlockCounts) {
  auto module = load(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  PlanOptions options;
  options.binding = *parseBindingList("BM=2,BN=2,BK=2,WM=4,WN=4");
  Expected<ModulePlan> plan = planModule(*module, wormhole(), options);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->kernels.at(0).cbs.at(2).blockCount, 4);

  options.bindingSource = "tuned: the fastest predicted of all 4096 points";
  options.kernelBlockCounts = {{{2, 3}}};
  options.blockCounts = {{2, 1}}; // kernelBlockCounts wins for the kernels it covers
  plan = planModule(*module, wormhole(), options);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->binding.source, "tuned: the fastest predicted of all 4096 points");
  EXPECT_EQ(plan->kernels.at(0).cbs.at(2).blockCount, 3);
  EXPECT_EQ(validatePlan(plan->kernels.at(0)), "");

  // Without a binding the source is lower's own (first legal), whatever the caller says.
  options.binding.reset();
  plan = planModule(*module, wormhole(), options);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->binding.source, "first binding satisfying every ttl.require");
}

TEST(KernelPlanner, MulticastNetsOfTheTwoDimensionalMatmul) {
  auto module = load(kSource + "/examples/matmul_mcast_2d.ttl");
  ASSERT_TRUE(module);
  Expected<ModulePlan> plan = planModule(*module, wormhole());
  ASSERT_TRUE(plan) << plan.error().message;
  const KernelPlan& k = plan->kernels.at(0);
  ASSERT_TRUE(k.multicastSolution);
  // 4 row nets (%pa) + 4 column nets (%pb), one rectangle each; each core is in one row net
  // and one column net: 2 x 2 semaphore ids.
  EXPECT_EQ(k.multicastProblem.nets.size(), 8u);
  EXPECT_EQ(k.multicastSolution->rectangles, 8);
  EXPECT_EQ(k.multicastSolution->semaphoreIds, 4);
  // Row 0's A net: logical (1,0)-(3,0) -> translated x 19..21, y 18 (Wormhole: + 18).
  const auto& m = k.multicastSolution->nets[0].multicasts.at(0);
  EXPECT_EQ(m.noc.startX, 19);
  EXPECT_EQ(m.noc.endX, 21);
  EXPECT_EQ(m.noc.startY, 18);
}

TEST(KernelPlanner, JsonReportHasSchemaVersionAndParses) {
  auto module = load(kSource + "/examples/eltwise_bcast_scalar.ttl");
  ASSERT_TRUE(module);
  Expected<ModulePlan> plan = planModule(*module, wormhole());
  ASSERT_TRUE(plan) << plan.error().message;
  nlohmann::json j = nlohmann::json::parse(toJson(*plan).dump());
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["device"], "wormhole_b0");
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["kernels"][0]["cbs"].size(), 3u);
  EXPECT_EQ(j["kernels"][0]["multicast"]["nets"].size(), 2u);
  EXPECT_FALSE(j["kernels"][0]["solves"].empty());
  std::string text = formatReport(*plan);
  EXPECT_NE(text.find("kernel @eltwise_bcast_scalar"), std::string::npos);
  EXPECT_NE(text.find("multicast: 2 nets"), std::string::npos);

  applyPlan(*module, *plan);
  // CB 0 of the plan is the kernel's first create_cb (applied by index).
  ir::Operation* firstCb = nullptr;
  module->op->walk([&](ir::Operation* op) {
    if (!firstCb && op->isa("ttl.create_cb")) firstCb = op;
  });
  ASSERT_NE(firstCb, nullptr);
  EXPECT_EQ(plan->kernels[0].cbs[0].source, 0);
  ir::Attribute bind = firstCb->attribute("ttl.bind_cb");
  ASSERT_TRUE(bind.is(ir::AttrKind::Dictionary));
  EXPECT_EQ(bind.entries().at(2).value.intValue(), 103712);
}

TEST(KernelPlanner, MoreCbsThanIndicesNamesThem) {
  // 33 one-tile CBs: Wormhole has 32 CB indices, Blackhole 64. (Not verified: unused CBs are a
  // verifier error; the planner only needs the create_cb ops.)
  std::string text = "!tile = !ttcore.tile<32x32, bf16>\nmodule {\n"
                     "  ttl.kernel @many() attributes {grid = [1, 1]} {\n";
  for (int i = 0; i < 33; ++i)
    text += "    %cb" + std::to_string(i) + " = ttl.create_cb : !ttl.cb<[1, 1], !tile, 2>\n";
  text += "  }\n}\n";
  ir::DiagnosticEngine diags;
  auto module = ir::parseSource(text, "many.ttl", diags);
  ASSERT_TRUE(module) << ir::format(diags.diagnostics());
  Expected<ModulePlan> plan = planModule(*module, wormhole());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("CB indices: kernel @many has 33 CBs live together but "
                                      "wormhole_b0 allows 32 (short by 1)"),
            std::string::npos)
      << plan.error().message;
  EXPECT_NE(plan.error().message.find("%cb32 (2 blocks, 4,096 B, many.ttl:36:"), std::string::npos)
      << plan.error().message;
  plan = planModule(*module, *ir::builtinDevice("blackhole_p150"));
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->kernels[0].cbs.back().index, 32);
}

} // namespace
} // namespace ttlplan::lower
