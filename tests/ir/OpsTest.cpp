// Typed op views read the right operands and attributes of ops parsed from the examples.
#include "ttlplan/ir/Ops.h"

#include "ttlplan/ir/Parser.h"

#include <gtest/gtest.h>

using namespace ttlplan::ir;

namespace {

std::unique_ptr<Module> parseExample(const char* name) {
  DiagnosticEngine diags;
  auto module = parseFile(std::string(TTLPLAN_SOURCE_DIR) + "/examples/" + name, diags);
  EXPECT_TRUE(module) << format(diags.diagnostics());
  return module;
}

template <typename View> std::vector<View> all(Module& module) {
  std::vector<View> out;
  module.op->walk([&](Operation* op) {
    if (auto v = View::dyn(op)) out.push_back(*v);
  });
  return out;
}

} // namespace

TEST(OpViews, EltwiseAddKernelAndCopies) {
  auto module = parseExample("eltwise_add.ttl");
  ASSERT_TRUE(module);
  auto kernels = all<KernelOp>(*module);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].symbolName(), "eltwise_add");
  EXPECT_TRUE(kernels[0].gridIsAuto());
  EXPECT_EQ(kernels[0].arguments().size(), 3u);
  std::vector<int64_t> work;
  ASSERT_TRUE(kernels[0].work().getIntegers(work));
  EXPECT_EQ(work, (std::vector<int64_t>{4, 8}));
  // Two reads (a, b) in the reader and one write (c) in the writer (docs/language.md example).
  int reads = 0, writes = 0;
  for (CopyOp copy : all<CopyOp>(*module)) {
    reads += copy.direction() == CopyOp::Direction::Read;
    writes += copy.direction() == CopyOp::Direction::Write;
  }
  EXPECT_EQ(reads, 2);
  EXPECT_EQ(writes, 1);
  EXPECT_EQ(all<ThreadOp>(*module).size(), 3u);
  EXPECT_EQ(all<CBWaitOp>(*module).size(), 3u);
  for (CBWaitOp wait : all<CBWaitOp>(*module))
    EXPECT_TRUE(wait.cb()->type().is(TypeKind::CircularBuffer));
}

TEST(OpViews, DynRejectsOtherOps) {
  auto module = parseExample("eltwise_add.ttl");
  ASSERT_TRUE(module);
  EXPECT_FALSE(KernelOp::dyn(module->op.get()));
  EXPECT_FALSE(CopyOp::dyn(nullptr));
  EXPECT_TRUE(all<MatmulOp>(*module).empty());
}

TEST(OpViews, MulticastPipesHaveThreePoints) {
  auto module = parseExample("matmul_mcast_2d.ttl");
  ASSERT_TRUE(module);
  auto pipes = all<CreatePipeOp>(*module);
  ASSERT_FALSE(pipes.empty());
  for (CreatePipeOp pipe : pipes) {
    for (auto& [x, y] : pipe.points()) {
      EXPECT_TRUE(x.literal || x.value);
      EXPECT_TRUE(y.literal || y.value);
    }
  }
  EXPECT_TRUE(
      std::any_of(pipes.begin(), pipes.end(), [](CreatePipeOp p) { return p.isMulticast(); }));
}
