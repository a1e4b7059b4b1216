// Symbol knobs and knob expressions through binding choice, instantiation and planning:
// partial --bind (fixed knobs, the rest first legal, bindings with an inexact '/' skipped), bad
// --bind input, instantiation folding (ceildiv/min/max/%, exact '/', division by zero at the op's
// location), symbols bound into tile and tensor types and kernel attributes, and fp32_dest_acc
// halving the DST capacity of the plan.
#include "tests/support/LoadModule.h"
#include "ttlplan/ir/Attributes.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/Instantiate.h"
#include "ttlplan/lower/KernelPlanner.h"

#include <gtest/gtest.h>

namespace ttlplan::lower {
namespace {

const std::string kKnobs = std::string(TTLPLAN_SOURCE_DIR) + "/tests/print/knobs.ttl";

std::unique_ptr<ir::Module> load(const std::string& path) {
  return testing::loadVerified(path);
}

Expected<ModulePlan> planWith(ir::Module& module, const std::string& bind) {
  PlanOptions options;
  if (!bind.empty()) options.binding = *parseBindingList(bind);
  return planModule(module, *ir::builtinDevice("wormhole_b0"), options);
}

TEST(KnobBinding, ParsesIntegersAndSymbols) {
  Expected<ir::Binding> b = parseBindingList("DTYPE=bfp8_b, @M=64,FIDELITY=HiFi2");
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->at("DTYPE"), ir::KnobValue::symbol("bfp8_b"));
  EXPECT_EQ(b->at("M"), 64);
  EXPECT_FALSE(parseBindingList("BM"));
  EXPECT_FALSE(parseBindingList("BM=1x"));
  EXPECT_FALSE(parseBindingList("=2"));
}

TEST(KnobBinding, PartialBindFixesSomeKnobsAndChoosesTheRest) {
  auto module = load(kKnobs);
  ASSERT_TRUE(module);
  Expected<ModulePlan> plan = planWith(*module, "DTYPE=bfp8_b,FIDELITY=HiFi2");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(ir::str(plan->binding.binding),
            "BK=1, BM=1, BN=1, DTYPE=bfp8_b, FIDELITY=HiFi2, FP32=0, K=64, M=64, N=64");
  const KernelPlan& k = plan->kernels.at(0);
  EXPECT_EQ(k.mathFidelity, "HiFi2");
  EXPECT_FALSE(k.fp32DestAcc);
  EXPECT_EQ(k.cbs[0].dataType, "bfp8_b");
  EXPECT_EQ(k.cbs[0].tileBytes, 1088); // 1024 mantissa bytes + 64 exponent bytes
  EXPECT_EQ(k.cbs[1].blockCount, 2);   // depth @BK + 1 with BK = 1
  EXPECT_EQ(k.workDims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(validatePlan(k), "");

  // BN = 4: N = 64 gives 64 / 128 (inexact), so the first legal N is 128.
  plan = planWith(*module, "BN=4");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->binding.binding.at("N"), 128);
  EXPECT_EQ(plan->binding.binding.at("DTYPE"), ir::KnobValue::symbol("bf16"));
  EXPECT_EQ(plan->kernels.at(0).mathFidelity, "LoFi");
}

TEST(KnobBinding, FullBindWithAnInexactDivisionFailsAtTheKernel) {
  auto module = load(kKnobs);
  ASSERT_TRUE(module);
  Expected<ModulePlan> plan =
      planWith(*module, "M=64,K=64,N=64,DTYPE=bf16,FIDELITY=LoFi,FP32=0,BM=1,BN=4,BK=1");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("knobs.ttl:26:"), std::string::npos) << plan.error().message;
  EXPECT_NE(plan.error().message.find("@N / (32 * @BN) is not an integer (64 / 128)"),
            std::string::npos)
      << plan.error().message;
}

TEST(KnobBinding, BadBindNamesTheKnobAndItsDomain) {
  auto module = load(kKnobs);
  ASSERT_TRUE(module);
  auto message = [&](const std::string& bind) {
    Expected<ModulePlan> plan = planWith(*module, bind);
    EXPECT_FALSE(plan) << bind;
    return plan ? std::string() : plan.error().message;
  };
  EXPECT_EQ(message("Q=1").substr(0, 55),
            "--bind: the module has no knob @Q; its knobs are @M, @K");
  EXPECT_EQ(message("DTYPE=f64"),
            "--bind: DTYPE=f64 is not a value of @DTYPE; its domain is [bf16, bfp8_b, bfp4_b] "
            "(" +
                kKnobs + ":20:3)");
  EXPECT_EQ(message("BM=bf16"),
            "--bind: BM=bf16 is not a value of @BM (a symbol for an integer knob); its domain is "
            "[1, 2] (" +
                kKnobs + ":23:3)");
  EXPECT_NE(message("DTYPE=2").find("(an integer for a symbol knob)"), std::string::npos);
}

TEST(KnobBinding, Fp32DestAccHalvesTheDstCapacity) {
  auto module = load(kKnobs);
  ASSERT_TRUE(module);
  // wormhole_b0: 16 tiles full sync, 8 with fp32 accumulation; kernels run in half sync.
  Expected<ModulePlan> plain = planWith(*module, "FP32=0");
  ASSERT_TRUE(plain) << plain.error().message;
  ASSERT_EQ(plain->kernels.at(0).chains.size(), 1u);
  EXPECT_EQ(plain->kernels.at(0).chains[0].capacityTiles, 8);
  Expected<ModulePlan> fp32 = planWith(*module, "FP32=1");
  ASSERT_TRUE(fp32) << fp32.error().message;
  EXPECT_TRUE(fp32->kernels.at(0).fp32DestAcc);
  EXPECT_EQ(fp32->kernels.at(0).chains[0].capacityTiles, 4);
  EXPECT_EQ(validatePlan(fp32->kernels.at(0)), "");
}

struct Instantiated {
  std::unique_ptr<ir::Module> module;
  Status status;
  ir::Operation* kernel = nullptr;
};

Instantiated instantiate(const ir::Binding& binding) {
  ir::DiagnosticEngine diags;
  Instantiated out{ir::parseSource(testing::testKernelText("lower/kernels/knob_template.ttl"),
                                   "knob_template.ttl", diags),
                   Status::success()};
  EXPECT_TRUE(out.module) << ir::format(diags.diagnostics()); // not verified: the CB is unused
  out.kernel = out.module->topLevel("ttl.kernel").at(0);
  out.status = instantiateBinding(out.kernel, binding);
  return out;
}

TEST(KnobInstantiate, FoldsExpressionsAndBindsSymbols) {
  ir::Binding b{{"M", 96}, {"P", 1}};
  b["DTYPE"] = ir::KnobValue::symbol("bfp8_b");
  b["F"] = ir::KnobValue::symbol("HiFi3");
  Instantiated i = instantiate(b);
  ASSERT_TRUE(i.status) << i.status.error().message;
  // work = [ceildiv(96, 32), min(96, 7) % 4] = [3, 3]; grid = [1, max(1, 1)].
  EXPECT_EQ(i.kernel->attribute("work").str(), "[3, 3]");
  EXPECT_EQ(i.kernel->attribute("grid").str(), "[1, 1]");
  EXPECT_EQ(i.kernel->attribute("math_fidelity").str(), "\"HiFi3\"");
  ir::Block& body = i.kernel->region(0).front();
  EXPECT_EQ(body.argument(0)->type().str(), "tensor<96x64xbfp8_b>");
  EXPECT_EQ(body.argument(1)->type().str(), "tensor<3x2x!ttcore.tile<32x32, bfp8_b>>");
  EXPECT_EQ(body.operations().front()->result(0)->type().str(),
            "!ttl.cb<[2, 3], !ttcore.tile<32x32, bfp8_b>, 2>");
  EXPECT_EQ(body.operations().front()->result(0)->type().elementType().tileDataType(),
            ir::DataType::BFP8_B);

  b["DTYPE"] = ir::KnobValue::symbol("bf16");
  b["P"] = 2;
  b["M"] = 128;
  i = instantiate(b);
  ASSERT_TRUE(i.status) << i.status.error().message;
  EXPECT_EQ(i.kernel->attribute("work").str(), "[2, 3]"); // ceildiv(128, 64), 7 % 4
  EXPECT_EQ(i.kernel->region(0).front().argument(0)->type().str(), "tensor<128x64xbf16>");
}

TEST(KnobInstantiate, DivisionByZeroAndInexactDivisionAreErrorsAtTheOp) {
  ir::Binding b{{"M", 96}, {"P", 0}};
  b["DTYPE"] = ir::KnobValue::symbol("bf16");
  b["F"] = ir::KnobValue::symbol("LoFi");
  Instantiated i = instantiate(b);
  ASSERT_FALSE(i.status);
  EXPECT_EQ(i.status.error().message, "knob_template.ttl:8:3: error: division by zero in "
                                      "ceildiv(@M, 32 * @P) (the divisor 32 * @P is "
                                      "0)");
  b["P"] = 1;
  b["M"] = 100;
  i = instantiate(b);
  ASSERT_FALSE(i.status);
  EXPECT_EQ(i.status.error().message, "knob_template.ttl:8:3: error: @M / 32 is not an integer "
                                      "(100 / 32); '/' must divide exactly, use "
                                      "ceildiv to round up");
}

} // namespace
} // namespace ttlplan::lower
