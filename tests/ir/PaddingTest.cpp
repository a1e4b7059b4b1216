// ir::derivePadding on shipped kernels under bindings: which arguments are padded, to what size,
// and with which value; the expectations follow from the math of each kernel (docs/language.md,
// "Tensors of any shape"), not from a run of the analysis.
#include "ttlplan/ir/Padding.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/lower/Extract.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace ttlplan::ir {
namespace {

struct Loaded {
  std::unique_ptr<Module> module;
  Operation* kernel = nullptr;
};

Loaded load(const std::string& relative) {
  std::ifstream in(std::string(TTLPLAN_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  DiagnosticEngine diags;
  Loaded l;
  l.module = parseSource(text.str(), relative, diags);
  EXPECT_TRUE(l.module) << format(diags.diagnostics());
  if (l.module) l.kernel = l.module->topLevel(KernelOp::kName).at(0);
  return l;
}

std::vector<TensorPadding> padsOf(const std::string& file, const std::string& bind) {
  Loaded l = load(file);
  if (!l.kernel) return {};
  Expected<Binding> binding = lower::parseBindingList(bind);
  EXPECT_TRUE(binding);
  Expected<std::vector<TensorPadding>> pads = derivePadding(*l.kernel, *binding);
  EXPECT_TRUE(pads) << (pads ? "" : pads.error().message);
  return pads ? *pads : std::vector<TensorPadding>{};
}

TEST(Padding, MatmulPadsItsOperandsWithZero) {
  std::vector<TensorPadding> p = padsOf("examples/matmul_any_shape.ttl", "M=33,K=65,N=17");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].name, "a");
  EXPECT_EQ(p[0].rows, 33);
  EXPECT_EQ(p[0].cols, 65);
  EXPECT_EQ(p[0].paddedRows, 64);
  EXPECT_EQ(p[0].paddedCols, 96);
  EXPECT_EQ(p[0].pad, PadValue::Zero); // K is summed over
  EXPECT_EQ(p[1].paddedRows, 96);
  EXPECT_EQ(p[1].paddedCols, 32);
  EXPECT_EQ(p[1].pad, PadValue::Zero);
  EXPECT_TRUE(p[2].padded()); // C: written only, cropped; its pad never reaches the kernel
}

TEST(Padding, TheTemplatesTakeAnySizeAndPadWithZero) {
  const std::pair<const char*, const char*> cases[] = {
      {"examples/matmul_2d_template.ttl", "M=1000,K=1000,N=1000,DTYPE=bf16,per_core_M=8,"
                                          "per_core_N=8,in0_block_w=4,out_block_h=4,out_block_w=4"},
      {"examples/matmul_1d_template.ttl", "M=1000,K=1000,N=1000,DTYPE=bf16,per_core_M=32,"
                                          "per_core_N=8,in0_block_w=4,out_block_h=4,out_block_w=4,"
                                          "grid_x=8"}};
  for (auto [file, bind] : cases) {
    std::vector<TensorPadding> p = padsOf(file, bind);
    ASSERT_EQ(p.size(), 3u) << file;
    for (const TensorPadding& t : p) {
      EXPECT_EQ(t.paddedRows, 1024) << file;
      EXPECT_EQ(t.paddedCols, 1024) << file;
      EXPECT_EQ(t.pad, PadValue::Zero) << file << " %" << t.name;
    }
  }
}

TEST(Padding, WholeTilesAreNotPadded) {
  std::vector<TensorPadding> p = padsOf("examples/matmul_any_shape.ttl", "M=64,K=96,N=32");
  ASSERT_EQ(p.size(), 3u);
  for (const TensorPadding& t : p) {
    EXPECT_FALSE(t.padded());
    EXPECT_EQ(t.pad, PadValue::None);
  }
}

TEST(Padding, SoftmaxAndMaximaPadWithMinusInfinity) {
  std::vector<TensorPadding> p = padsOf("tests/run/padding/softmax_1000_columns.ttl", "");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].pad, PadValue::NegInf);
  EXPECT_EQ(p[0].paddedCols, 1024);
  EXPECT_EQ(p[0].paddedRows, 64);
  p = padsOf("tests/run/padding/max_dtype.ttl", "DTYPE=bf16");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].pad, PadValue::NegInf);
  EXPECT_FALSE(p[1].padded()); // 32 x 32
}

TEST(Padding, BlockFloatCannotHoldMinusInfinity) {
  Loaded l = load("tests/run/padding/max_dtype.ttl");
  ASSERT_TRUE(l.kernel);
  Expected<std::vector<TensorPadding>> p =
      derivePadding(*l.kernel, *lower::parseBindingList("DTYPE=bfp8_b"));
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("max_dtype.ttl:14:3: error: no pad value"), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find("ttl.reduce_max {dims = [1]} reads the padding past the last "
                                   "logical column, which may hold 0 where it needs -inf"),
            std::string::npos)
      << p.error().message;
}

TEST(Padding, AnUnboundSizeIsAnError) {
  Loaded l = load("examples/matmul_any_shape.ttl");
  ASSERT_TRUE(l.kernel);
  Expected<std::vector<TensorPadding>> p =
      derivePadding(*l.kernel, *lower::parseBindingList("M=33,N=17"));
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("argument %a has dimension @K with no value"), std::string::npos)
      << p.error().message;
}

} // namespace
} // namespace ttlplan::ir
