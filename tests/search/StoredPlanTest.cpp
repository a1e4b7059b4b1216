// Stored plans (search/StoredPlan.h) and PointEvaluator::recost: a record's plans, written and read
// back, cost exactly what the evaluation that planned them predicted, on kernels that exercise
// every stored part (auto grid and work ranges, multicast nets, edge-core classes, a DST chain
// split through intermediate CBs); a tampered plan is an Error naming what is wrong, never used.
#include "ttlplan/search/StoredPlan.h"

#include "tests/support/LoadModule.h"
#include "ttlplan/search/Tuner.h"

#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ttlplan::search {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;
using OJson = nlohmann::ordered_json;

ir::Device wormhole() {
  return *ir::builtinDevice("wormhole_b0");
}

/// A record compared without its wall clock.
Record untimed(Record r) {
  r.timingMs = 0;
  return r;
}

struct Kernel {
  std::string file;       ///< under examples/
  ir::Binding fixed;      ///< bound knobs
  size_t maxPoints = 400; ///< points of the space evaluated (the first ones, then every k-th)
};

ir::Binding template2d(int64_t m, int64_t k, int64_t n) {
  return {{"M", m},
          {"K", k},
          {"N", n},
          {"DTYPE", ir::KnobValue::symbol("bf16")},
          {"FIDELITY", ir::KnobValue::symbol("HiFi4")},
          {"FP32_DEST_ACC", 1},
          {"out_subblock_h", 1},
          {"out_subblock_w", 1}};
}

std::vector<Kernel> kernels() {
  ir::Binding edgeCores = template2d(320, 128, 320);
  edgeCores.emplace("per_core_M", 4);
  edgeCores.emplace("per_core_N", 4);
  return {{"matmul_template.ttl", {}},
          {"softmax_row.ttl", {}},
          {"matmul_mcast_2d.ttl", {}},
          // 10 x 4 x 10 tiles: with per_core 4 the last row and column of cores own half.
          {"matmul_2d_template.ttl", edgeCores},
          {"matmul_2d_template.ttl", template2d(1024, 512, 2048)}};
}

TEST(StoredPlan, RecostFromStoredPlansEqualsTheEvaluation) {
  ir::Device device = wormhole();
  for (const Kernel& k : kernels()) {
    SCOPED_TRACE(k.file);
    auto module = testing::loadVerified(kSource + "/examples/" + k.file);
    ASSERT_TRUE(module);
    Expected<Space> space = tuningSpace(*module, k.fixed, true, 4);
    ASSERT_TRUE(space) << space.error().message;
    planner::kernel::PlanCache cache;
    PointEvaluator evaluator(*module, device, k.fixed, {}, &cache);
    evaluator.setKeepPlans(true);
    uint64_t step = std::max<uint64_t>(1, space->size() / k.maxPoints);
    size_t feasible = 0;
    for (uint64_t id = 0; id < space->size(); id += step) {
      Record r = evaluator.evaluate(space->point(id));
      if (!r.ok()) {
        EXPECT_TRUE(r.plans.empty()) << "a rejected record keeps no plan";
        continue;
      }
      ++feasible;
      ASSERT_FALSE(r.plans.empty());
      // Through the record's JSON line, as a db stores it.
      Expected<Record> stored = parseRecord(toJsonLine(r));
      ASSERT_TRUE(stored) << stored.error().message;
      EXPECT_EQ(stored->plans, r.plans) << "the plans text survives a db line unchanged";
      Expected<Record> again = evaluator.recost(*stored);
      ASSERT_TRUE(again) << again.error().message;
      EXPECT_EQ(untimed(*again), untimed(r)) << ir::str(r.point);
      // Decoding and encoding again gives the same text.
      Expected<std::vector<planner::kernel::KernelPlan>> plans = parseStoredPlans(r.plans);
      ASSERT_TRUE(plans) << plans.error().message;
      std::vector<std::string> each;
      for (const auto& p : *plans)
        each.push_back(storedPlanJson(p));
      EXPECT_EQ(storedPlansJson(each), r.plans);
    }
    EXPECT_GT(feasible, 0u) << "no feasible point: the test compares nothing";
  }
}

TEST(StoredPlan, RecordsOfARunWithoutADbKeepNoPlans) {
  auto module = testing::loadVerified(kSource + "/examples/matmul_template.ttl");
  ASSERT_TRUE(module);
  ir::Device device = wormhole();
  TuneOptions options;
  options.top = 3;
  options.strategy.kind = StrategyKind::Random;
  options.strategy.budgetEvals = 200;
  Expected<TuneResult> result = tune(*module, device, {}, options);
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_FALSE(result->top.empty());
  for (const Record& r : result->top)
    EXPECT_TRUE(r.plans.empty());
}

/// The stored plan of a feasible point of matmul_mcast_2d (multicast nets, a matmul chain).
std::string mcastPlan() {
  auto module = testing::loadVerified(kSource + "/examples/matmul_mcast_2d.ttl");
  if (!module) return "";
  ir::Device device = wormhole();
  PointEvaluator evaluator(*module, device, {}, {}, nullptr);
  evaluator.setKeepPlans(true);
  Expected<Space> space = tuningSpace(*module, {}, true, 4);
  if (!space) return "";
  for (uint64_t id = 0; id < space->size(); ++id)
    if (Record r = evaluator.evaluate(space->point(id)); r.ok()) return r.plans;
  return "";
}

/// parseStoredPlans of `plans` with `edit` applied to its first plan: the Error's message.
std::string errorAfter(const std::string& plans, const std::function<void(OJson&)>& edit) {
  OJson j = OJson::parse(plans);
  edit(j[0]);
  Expected<std::vector<planner::kernel::KernelPlan>> decoded = parseStoredPlans(j.dump());
  return decoded ? "(decoded)" : decoded.error().message;
}

TEST(StoredPlan, TamperedPlansAreErrors) {
  std::string plans = mcastPlan();
  ASSERT_FALSE(plans.empty());
  ASSERT_TRUE(parseStoredPlans(plans));
  OJson parsed = OJson::parse(plans);
  ASSERT_FALSE(parsed[0]["nets"].empty()) << "the kernel must have multicast nets";
  ASSERT_FALSE(parsed[0]["chains"].empty());

  EXPECT_NE(errorAfter(plans,
                       [](OJson& p) {
                         p["nets"][0]["sender"] = {99, 0};
                       })
                .find("core (99, 0) is outside the"),
            std::string::npos);
  EXPECT_NE(errorAfter(plans,
                       [](OJson& p) {
                         p["nets"][0]["dests"].push_back({0, -1});
                       })
                .find("is outside the"),
            std::string::npos);
  EXPECT_NE(errorAfter(plans,
                       [](OJson& p) {
                         p["grid"] = {0, 4};
                       })
                .find("\"grid\""),
            std::string::npos);
  EXPECT_NE(errorAfter(plans,
                       [](OJson& p) {
                         if (p["cores"].is_null())
                           p["cores"] = {{"used", 1}, {"ranges", OJson::array()}};
                         p["cores"]["ranges"].push_back({0, 1});
                       })
                .find("work ranges for the"),
            std::string::npos);
  EXPECT_NE(errorAfter(plans,
                       [](OJson& p) {
                         p["chains"][0]["solution"]["segments"][0]["subblock"] = {1, 3};
                       })
                .find("its solution is not valid"),
            std::string::npos);
  EXPECT_NE(errorAfter(plans, [](OJson& p) { p["cbs"][0]["block_count"] = 0; })
                .find("\"block_count\" 0 is outside"),
            std::string::npos);
  EXPECT_NE(errorAfter(plans, [](OJson& p) { p["cbs"][0]["chain"] = 7; }).find("\"chain\" 7"),
            std::string::npos);
  EXPECT_NE(errorAfter(plans, [](OJson& p) { p.erase("cbs"); }).find("stored plan 0: "),
            std::string::npos);
  EXPECT_NE(errorAfter(plans, [](OJson& p) { p["math_fidelity"] = "HiFi9"; })
                .find("unknown math fidelity 'HiFi9'"),
            std::string::npos);
  Expected<std::vector<planner::kernel::KernelPlan>> notJson = parseStoredPlans("[{");
  ASSERT_FALSE(notJson);
  EXPECT_NE(notJson.error().message.find("not JSON"), std::string::npos);
  EXPECT_FALSE(parseStoredPlans("{}")) << "not an array";
}

TEST(StoredPlan, ADstChainStoresItsCapacityAndOlderRecordsKeepTheirs) {
  std::string plans = mcastPlan();
  OJson parsed = OJson::parse(plans);
  ASSERT_FALSE(parsed[0]["chains"].empty());
  OJson& problem = parsed[0]["chains"][0]["problem"];
  const bool fullSync = problem["sync"] == "full", fp32 = problem["fp32"] == true;
  const int capacity = wormhole().dstCapacityTiles(fullSync, fp32);
  EXPECT_EQ(problem["capacity_tiles"], capacity);
  // A record written before the capacity came from the device held the device's full-sync
  // 16-bit count (16), which the planner halved for half sync and for fp32 accumulation.
  problem.erase("capacity_tiles");
  problem["device_tiles"] = 16;
  Expected<std::vector<planner::kernel::KernelPlan>> old = parseStoredPlans(parsed.dump());
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->at(0).chains.at(0).problem.capacityTiles,
            16 / (fullSync ? 1 : 2) / (fp32 ? 2 : 1));
  EXPECT_EQ(old->at(0).chains.at(0).problem.capacityTiles, capacity);
  EXPECT_NE(errorAfter(plans, [](OJson& p) { p["chains"][0]["problem"]["capacity_tiles"] = 0; })
                .find("\"capacity_tiles\" 0 is outside"),
            std::string::npos);
}

TEST(StoredPlan, RecostRefusesARecordWithoutUsablePlans) {
  auto module = testing::loadVerified(kSource + "/examples/matmul_mcast_2d.ttl");
  ASSERT_TRUE(module);
  ir::Device device = wormhole();
  PointEvaluator evaluator(*module, device, {}, {}, nullptr);
  Record r;
  r.status = "ok";
  Expected<Record> none = evaluator.recost(r);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("keeps no plan"), std::string::npos);
  r.plans = "[]";
  Expected<Record> zero = evaluator.recost(r);
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("0 stored plans for 1 kernels"), std::string::npos);
}

} // namespace
} // namespace ttlplan::search
