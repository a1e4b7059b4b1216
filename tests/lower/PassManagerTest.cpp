// The pass manager: pipeline parsing (names, options, errors), IR dumps after passes, timing
// with statistics, stopping at the first failing pass, and locations surviving expand-threads.
#include "ttlplan/lower/PassManager.h"

#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/passes/PassUtil.h"

#include <gtest/gtest.h>

namespace ttlplan::lower {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;

TEST(PassManager, DefaultPipelineNamesRegisteredPassesInOrder) {
  Expected<PassManager> pm = PassManager::parse(kDefaultPipeline);
  ASSERT_TRUE(pm) << pm.error().message;
  std::vector<std::string> registered;
  for (const PassInfo& p : registeredPasses())
    registered.emplace_back(p.name);
  EXPECT_EQ(pm->passNames(), registered);
}

TEST(PassManager, UnknownPassListsKnownOnes) {
  Expected<PassManager> pm = PassManager::parse("verify,no-such-pass");
  ASSERT_FALSE(pm);
  EXPECT_NE(pm.error().message.find("unknown pass 'no-such-pass'"), std::string::npos);
  EXPECT_NE(pm.error().message.find("expand-threads"), std::string::npos);
}

TEST(PassManager, OptionsAreCheckedByName) {
  EXPECT_TRUE(PassManager::parse("verify, plan{max-block-count=2, solver=glpk}, apply-plan"));
  Expected<PassManager> unknown = PassManager::parse("plan{depth=2}");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("no option 'depth'"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("max-block-count"), std::string::npos);
  Expected<PassManager> range = PassManager::parse("plan{max-block-count=0}");
  ASSERT_FALSE(range);
  EXPECT_NE(range.error().message.find("[1, 64]"), std::string::npos);
  EXPECT_FALSE(PassManager::parse("plan{max-block-count}"));
  EXPECT_FALSE(PassManager::parse("plan{max-block-count=2"));
  EXPECT_FALSE(PassManager::parse("verify,,plan"));
  EXPECT_FALSE(PassManager::parse("verify{x=1}"));
}

struct Run {
  bool ok = false;
  std::string dumps;
  std::unique_ptr<ir::Module> module;
  ir::DiagnosticEngine diagnostics;
};

std::unique_ptr<Run> runOn(const std::string& file, std::string_view pipeline,
                           PipelineOptions options) {
  auto run = std::make_unique<Run>();
  run->module = ir::parseFile(file, run->diagnostics);
  EXPECT_TRUE(run->module);
  if (!run->module) return run;
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  PassContext context{*run->module, device, run->diagnostics, {}, std::nullopt, {}, true};
  Expected<PassManager> pm = PassManager::parse(pipeline);
  EXPECT_TRUE(pm);
  options.dump = [&](const std::string& text) { run->dumps += text; };
  run->ok = pm->run(context, options);
  return run;
}

TEST(PassManager, PrintIrAfterNamedPassOnly) {
  PipelineOptions options;
  options.printIrAfter = {"apply-plan"};
  auto run = runOn(kSource + "/examples/eltwise_add.ttl", "verify,plan,apply-plan,expand-threads",
                   options);
  ASSERT_TRUE(run->ok);
  EXPECT_NE(run->dumps.find("IR Dump After apply-plan"), std::string::npos);
  EXPECT_EQ(run->dumps.find("IR Dump After verify"), std::string::npos);
  EXPECT_EQ(run->dumps.find("IR Dump After expand-threads"), std::string::npos);
  // After apply-plan the threads are still there and the CBs are bound.
  EXPECT_NE(run->dumps.find("ttl.bind_cb"), std::string::npos);
  EXPECT_NE(run->dumps.find("ttl.compute_thread"), std::string::npos);
}

TEST(PassManager, PrintIrAfterAllAndTimingWithStatistics) {
  PipelineOptions options;
  options.printIrAfterAll = true;
  options.timePasses = true;
  auto run = runOn(kSource + "/examples/eltwise_add.ttl", "verify,plan,apply-plan,expand-threads",
                   options);
  ASSERT_TRUE(run->ok);
  for (const char* name : {"verify", "plan", "apply-plan", "expand-threads"})
    EXPECT_NE(run->dumps.find(std::string("IR Dump After ") + name), std::string::npos) << name;
  EXPECT_NE(run->dumps.find("pass timing report"), std::string::npos);
  // eltwise_add has three threads and three CBs.
  EXPECT_NE(run->dumps.find("3 threads-expanded"), std::string::npos) << run->dumps;
  EXPECT_NE(run->dumps.find("3 cbs-placed"), std::string::npos) << run->dumps;
}

TEST(PassManager, StopsAtFirstFailingPassWithItsDiagnostic) {
  PipelineOptions options;
  options.printIrAfterAll = true;
  // expand-threads without a plan cannot know the grid.
  auto run =
      runOn(kSource + "/examples/eltwise_add.ttl", "verify,expand-threads,apply-plan", options);
  EXPECT_FALSE(run->ok);
  ASSERT_TRUE(run->diagnostics.hasErrors());
  const ir::Diagnostic& d = run->diagnostics.diagnostics().front();
  EXPECT_NE(d.message.find("ttl.grid_planned"), std::string::npos);
  // The kernel's own line (eltwise_add.ttl declares the kernel on line 17 or later).
  EXPECT_TRUE(d.location.known());
  EXPECT_EQ(run->dumps.find("IR Dump After expand-threads"), std::string::npos);
  EXPECT_EQ(run->dumps.find("IR Dump After apply-plan"), std::string::npos);
}

TEST(PassManager, ExpandThreadsKeepsTheUserLocations) {
  auto run =
      runOn(kSource + "/examples/eltwise_add.ttl", "verify,plan,apply-plan,expand-threads", {});
  ASSERT_TRUE(run->ok);
  int checked = 0;
  run->module->op->walk([&](ir::Operation* op) {
    if (op->isa("ttl.cb_reserve") || op->isa("ttl.copy") || op->isa("ttl.add")) {
      EXPECT_TRUE(op->location().known()) << op->name();
      EXPECT_NE(op->location().file->find("eltwise_add.ttl"), std::string::npos);
      ++checked;
    }
    // The ops expand-threads creates for the work loop take the loop's location.
    if (op->isa("ttkernel.get_arg_val")) {
      EXPECT_TRUE(op->location().known());
      ++checked;
    }
  });
  EXPECT_GE(checked, 10);
}

TEST(PassUtil, PlannerErrorTextBecomesADiagnosticAtItsLocation) {
  ir::DiagnosticEngine diags;
  ir::Module module;
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  PassContext context{module, device, diags, {}, std::nullopt, {}, true};
  reportError(context, "k.ttl:12:5: error: %cba does not fit in L1\n  note: more");
  reportError(context, "no location here: error: plain");
  reportError(context, "k.ttl:x:5: error: not a line number");
  // A line number too long for 32 bits is no location (it used to throw from std::stoul).
  reportError(context, "k.ttl:99999999999999999999:1: error: huge");
  reportError(context, "a:b\nc:1:2: error: a line break before the numbers");
  const std::vector<ir::Diagnostic>& d = diags.diagnostics();
  ASSERT_EQ(d.size(), 5u);
  ASSERT_TRUE(d[0].location.file);
  EXPECT_EQ(*d[0].location.file, "k.ttl");
  EXPECT_EQ(d[0].location.line, 12u);
  EXPECT_EQ(d[0].location.column, 5u);
  EXPECT_EQ(d[0].message, "%cba does not fit in L1\n  note: more");
  for (size_t i = 1; i < d.size(); ++i) {
    EXPECT_FALSE(d[i].location.file) << i;
    EXPECT_EQ(d[i].location.line, 0u) << i;
  }
  EXPECT_EQ(d[3].message, "k.ttl:99999999999999999999:1: error: huge");
}

} // namespace
} // namespace ttlplan::lower
