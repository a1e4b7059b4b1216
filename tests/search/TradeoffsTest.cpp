// The trade-offs a plan report states (search/cost/Tradeoffs.h): each kind appears when its
// choice is in the plan, names its subject, and its figure is the model's prediction of the
// alternative, checked here by predicting that alternative independently.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/search/cost/Report.h"
#include "ttlplan/support/ReadFile.h"

#include <gtest/gtest.h>

namespace ttlplan::search::cost {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;

struct Costed {
  std::unique_ptr<ir::Module> module;
  CostReport report;
};

Costed costSource(const std::string& text, const ir::Device& device,
                  lower::PlanOptions options = {}) {
  ir::DiagnosticEngine diags;
  Costed out;
  out.module = ir::parseSource(text, "test.ttl", diags);
  EXPECT_TRUE(out.module && ir::verify(*out.module, diags));
  if (!out.module) return out;
  Expected<CostReport> report = costModule(*out.module, device, options);
  EXPECT_TRUE(report) << (report ? "" : report.error().message);
  if (report) out.report = std::move(*report);
  return out;
}

std::string example(const std::string& name) {
  Expected<std::string> text = readTextFile(kSource + "/examples/" + name);
  EXPECT_TRUE(text) << name;
  return text ? *text : "";
}

const Tradeoff* find(const KernelCost& k, const std::string& kind, const std::string& subject) {
  for (const Tradeoff& t : k.tradeoffs)
    if (t.kind == kind && t.subject == subject) return &t;
  return nullptr;
}

/// The plan's time over the prediction of its Program with CB `name` `depth` deep, in percent.
double percentAtDepth(const KernelCost& k, const std::string& name, int64_t depth,
                      const ir::Device& device) {
  Program p = k.program;
  for (CoreClass& c : p.classes)
    for (Cb& cb : c.cbs)
      if (cb.name == name) cb.depth = depth;
  Expected<Prediction> alt = predict(p, device);
  EXPECT_TRUE(alt);
  return alt ? 100.0 * (k.prediction.deviceNs / alt->deviceNs - 1.0) : 0;
}

TEST(Tradeoffs, FixedSingleBufferedCbIsPricedAgainstDoubleBuffering) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  // matmul_single_core with every CB one block deep: the reader and compute take turns on %cba.
  std::string text = example("matmul_single_core.ttl");
  int replaced = 0;
  for (size_t at = text.find(", !tile, 2>"); at != std::string::npos;
       at = text.find(", !tile, 2>", at), ++replaced)
    text.replace(at, 11, ", !tile, 1>");
  ASSERT_EQ(replaced, 3);
  Costed c = costSource(text, d);
  ASSERT_EQ(c.report.kernels.size(), 1u);
  const KernelCost& k = c.report.kernels[0];
  const Tradeoff* t = find(k, "single_buffered", "%cba");
  ASSERT_TRUE(t) << formatTradeoffs(k.tradeoffs);
  ASSERT_TRUE(t->costPercent);
  EXPECT_NEAR(*t->costPercent, percentAtDepth(k, "%cba", 2, d), 1e-9);
  EXPECT_GT(*t->costPercent, 0.5) << "double-buffering the reader's CB should pay";
  EXPECT_NE(t->text.find("%cba single-buffered: noc0 and compute take turns"), std::string::npos)
      << t->text;
  EXPECT_NE(t->text.find("fixed in the source at test.ttl:24:12"), std::string::npos) << t->text;
  EXPECT_EQ(t->alternative, "depth 2 (+4,096 B of L1, fits)");
  // Every single-buffered CB shared by two threads is stated, priced or not.
  EXPECT_TRUE(find(k, "single_buffered", "%cbb"));
  EXPECT_TRUE(find(k, "single_buffered", "%cbc"));
  // In the example as shipped (two blocks each) there is nothing to say about depths.
  Costed shipped = costSource(example("matmul_single_core.ttl"), d);
  ASSERT_EQ(shipped.report.kernels.size(), 1u);
  for (const Tradeoff& s : shipped.report.kernels[0].tradeoffs)
    EXPECT_EQ(s.kind, "idle_cores") << s.text;
}

TEST(Tradeoffs, PlannerCbHeldAtOneBlockIsComparedWithTheDeepestDepth) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  lower::PlanOptions options;
  options.maxBlockCount = 3;
  options.blockCounts = {{2, 1}}; // %cbc, the third create_cb
  Costed c = costSource(example("eltwise_add.ttl"), d, options);
  ASSERT_EQ(c.report.kernels.size(), 1u);
  const KernelCost& k = c.report.kernels[0];
  const Tradeoff* t = find(k, "single_buffered", "%cbc");
  ASSERT_TRUE(t) << formatTradeoffs(k.tradeoffs);
  ASSERT_TRUE(t->costPercent);
  EXPECT_NEAR(*t->costPercent, percentAtDepth(k, "%cbc", 3, d), 1e-9);
  EXPECT_NE(t->alternative.find("depth 3"), std::string::npos) << t->alternative;
  EXPECT_NE(t->text.find("the binding chose it"), std::string::npos) << t->text;
}

TEST(Tradeoffs, SplitChainNamesItsIntermediateCbsAfterTheirValues) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  std::string text = example("softmax_row.ttl");
  Costed c = costSource(text, d);
  ASSERT_EQ(c.report.kernels.size(), 1u);
  const KernelCost& k = c.report.kernels[0];
  const Tradeoff* t = find(k, "dst_split", "%y -> %o");
  ASSERT_TRUE(t) << formatTradeoffs(k.tradeoffs);
  ASSERT_TRUE(t->costPercent);
  EXPECT_GT(*t->costPercent, 0.0);
  EXPECT_NE(t->text.find("4 DST passes"), std::string::npos) << t->text;
  EXPECT_NE(t->text.find("%mx, %e, %inv"), std::string::npos) << t->text;
  // Each intermediate CB sits at the line that defines its value.
  int intermediates = 0;
  for (const lower::CbPlan& cb : c.report.plan.kernels[0].cbs) {
    if (!cb.intermediate) continue;
    ++intermediates;
    size_t colon = cb.location.find(':');
    ASSERT_NE(colon, std::string::npos);
    int line = std::stoi(cb.location.substr(colon + 1));
    size_t start = 0;
    for (int i = 1; i < line; ++i)
      start = text.find('\n', start) + 1;
    std::string source = text.substr(start, text.find('\n', start) - start);
    EXPECT_NE(source.find(cb.name + " ="), std::string::npos) << cb.name << " at " << source;
  }
  EXPECT_EQ(intermediates, 3);
}

TEST(Tradeoffs, IdleCoresAreStatedOnlyWhenTheGridIsSmallerThanTheDevice) {
  ir::Device d = *ir::builtinDevice("wormhole_b0");
  Costed c = costSource(example("matmul_mcast_2d.ttl"), d);
  ASSERT_EQ(c.report.kernels.size(), 1u);
  const Tradeoff* t = find(c.report.kernels[0], "idle_cores", "grid");
  ASSERT_TRUE(t);
  EXPECT_NE(t->text.find("runs on 16 of the device's 64 cores (48 idle)"), std::string::npos)
      << t->text;
  EXPECT_FALSE(t->costPercent);

  ASSERT_TRUE(ir::setComputeGrid(d, 4, 4));
  Costed small = costSource(example("matmul_mcast_2d.ttl"), d);
  ASSERT_EQ(small.report.kernels.size(), 1u);
  EXPECT_FALSE(find(small.report.kernels[0], "idle_cores", "grid"));
}

} // namespace
} // namespace ttlplan::search::cost
