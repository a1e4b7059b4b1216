// The reference interpreter against the kernels' mathematical meaning, computed here directly
// (naive loops), never from the interpreter or the generated code.
#include "ttlplan/reference/Interpret.h"

#include "tests/support/LoadModule.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/reference/RandomInputs.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>

namespace ttlplan::reference {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;

ir::Device wormhole() {
  return *ir::builtinDevice("wormhole_b0");
}

std::unique_ptr<ir::Module> loadExample(const std::string& name) {
  ir::DiagnosticEngine diags;
  return testing::verified(ir::parseFile(kSource + "/examples/" + name, diags), diags);
}

/// A kernel of tests/reference/kernels/, parsed and verified.
std::unique_ptr<ir::Module> parseKernel(const std::string& name) {
  return testing::loadVerified(testing::testKernelPath("reference/kernels/" + name));
}

std::unique_ptr<ir::Module> parse(const std::string& text) {
  ir::DiagnosticEngine diags;
  return testing::verified(ir::parseSource(text, "test.ttl", diags), diags);
}

ir::Operation* kernelOf(ir::Module& module) {
  std::vector<ir::Operation*> kernels = module.topLevel("ttl.kernel");
  return kernels.empty() ? nullptr : kernels.front();
}

using Tensors = std::map<std::string, HostTensor>;

Expected<Tensors> run(ir::Module& module, const Tensors& inputs, ReferenceOptions options = {}) {
  return interpretKernel(kernelOf(module), inputs, wormhole(), options);
}

HostTensor random(std::vector<int64_t> shape, int arg) {
  return randomTensor(shape, ir::DataType::BF16, 1234, arg);
}

HostTensor naiveMatmul(const HostTensor& a, const HostTensor& b) {
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  HostTensor c{{m, n}, std::vector<double>(static_cast<size_t>(m * n), 0.0)};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += a.data[i * k + p] * b.data[p * n + j];
      c.data[i * n + j] = sum;
    }
  return c;
}

void expectNear(const HostTensor& actual, const HostTensor& expected, double tolerance) {
  ASSERT_EQ(actual.shape, expected.shape);
  ASSERT_EQ(actual.data.size(), expected.data.size());
  size_t bad = 0;
  for (size_t i = 0; i < actual.data.size(); ++i)
    if (!(std::fabs(actual.data[i] - expected.data[i]) <= tolerance) && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": " << actual.data[i] << " vs " << expected.data[i];
  EXPECT_EQ(bad, 0u);
}

TEST(ReferenceInterpret, SplitWorkToCoresMatchesTheTtMetalRule) {
  // 10 items on 4 cores: q = 2, r = 2 -> 3, 3, 2, 2.
  EXPECT_EQ(splitWorkToCores(10, 4, 0), std::make_pair(int64_t{0}, int64_t{3}));
  EXPECT_EQ(splitWorkToCores(10, 4, 1), std::make_pair(int64_t{3}, int64_t{3}));
  EXPECT_EQ(splitWorkToCores(10, 4, 2), std::make_pair(int64_t{6}, int64_t{2}));
  EXPECT_EQ(splitWorkToCores(10, 4, 3), std::make_pair(int64_t{8}, int64_t{2}));
  // Fewer items than cores: one each, the rest idle.
  EXPECT_EQ(splitWorkToCores(3, 8, 2), std::make_pair(int64_t{2}, int64_t{1}));
  EXPECT_EQ(splitWorkToCores(3, 8, 5).second, 0);
}

TEST(ReferenceInterpret, EltwiseAddIsExactlyTheSum) {
  auto module = loadExample("eltwise_add.ttl");
  ASSERT_TRUE(module);
  Tensors in{{"a", random({256, 256}, 0)}, {"b", random({256, 256}, 1)}};
  // The device grid (32 items on 64 cores) and an uneven 3 x 5 grid (32 items on 15 cores) must
  // give the same result: the assignment does not change a correct kernel's meaning.
  for (auto [rows, cols] : {std::pair{0, 0}, std::pair{3, 5}}) {
    SCOPED_TRACE(rows);
    ReferenceOptions options;
    options.gridRows = rows;
    options.gridCols = cols;
    Expected<Tensors> out = run(*module, in, options);
    ASSERT_TRUE(out) << out.error().message;
    ASSERT_EQ(out->size(), 3u);
    EXPECT_EQ(out->at("a").data, in["a"].data); // inputs unchanged
    HostTensor expected = in["a"];
    for (size_t i = 0; i < expected.data.size(); ++i)
      expected.data[i] += in["b"].data[i];
    expectNear(out->at("c"), expected, 0.0);
  }
}

TEST(ReferenceInterpret, MatmulExamplesComputeTheProduct) {
  for (std::string file :
       {"matmul_single_core.ttl", "matmul_multicore.ttl", "matmul_mcast_2d.ttl"}) {
    SCOPED_TRACE(file);
    auto module = loadExample(file);
    ASSERT_TRUE(module);
    Tensors in{{"a", random({256, 256}, 0)}, {"b", random({256, 256}, 1)}};
    Expected<Tensors> out = run(*module, in);
    ASSERT_TRUE(out) << out.error().message;
    expectNear(out->at("c"), naiveMatmul(in["a"], in["b"]), 1e-9);
  }
}

TEST(ReferenceInterpret, ResultsDoNotDependOnScheduling) {
  auto module = loadExample("matmul_mcast_2d.ttl");
  ASSERT_TRUE(module);
  Tensors in{{"a", random({256, 256}, 0)}, {"b", random({256, 256}, 1)}};
  Expected<Tensors> first = run(*module, in);
  ASSERT_TRUE(first) << first.error().message;
  for (int i = 0; i < 3; ++i) {
    Expected<Tensors> again = run(*module, in);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->at("c").data, first->at("c").data); // bit for bit
  }
}

TEST(ReferenceInterpret, BcastScalarMultipliesByElementZeroZero) {
  auto module = loadExample("eltwise_bcast_scalar.ttl");
  ASSERT_TRUE(module);
  Tensors in{{"a", random({256, 256}, 0)}, {"s", random({32, 32}, 1)}};
  Expected<Tensors> out = run(*module, in);
  ASSERT_TRUE(out) << out.error().message;
  HostTensor expected = in["a"];
  for (double& x : expected.data)
    x *= in["s"].data[0];
  expectNear(out->at("c"), expected, 0.0);
}

TEST(ReferenceInterpret, SoftmaxRowMatchesADirectSoftmax) {
  auto module = loadExample("softmax_row.ttl");
  ASSERT_TRUE(module);
  Tensors in{{"in", random({256, 256}, 0)}};
  Expected<Tensors> out = run(*module, in);
  ASSERT_TRUE(out) << out.error().message;
  HostTensor expected{{256, 256}, std::vector<double>(256 * 256)};
  for (int r = 0; r < 256; ++r) {
    const double* x = &in["in"].data[r * 256];
    double m = *std::max_element(x, x + 256), sum = 0;
    for (int c = 0; c < 256; ++c)
      sum += std::exp(x[c] - m);
    for (int c = 0; c < 256; ++c)
      expected.data[r * 256 + c] = std::exp(x[c] - m) / sum;
  }
  expectNear(out->at("out"), expected, 1e-12);
}

TEST(ReferenceInterpret, MatmulTemplateUnderSeveralBindings) {
  auto module = loadExample("matmul_template.ttl");
  ASSERT_TRUE(module);
  Tensors in{{"a", random({256, 256}, 0)}, {"b", random({256, 256}, 1)}};
  HostTensor expected = naiveMatmul(in["a"], in["b"]);
  for (ir::Binding binding : {ir::Binding{{"BM", 2}, {"BN", 4}, {"BK", 2}, {"WM", 4}, {"WN", 2}},
                              ir::Binding{{"BM", 8}, {"BN", 1}, {"BK", 8}, {"WM", 1}, {"WN", 8}},
                              ir::Binding{{"BM", 1}, {"BN", 1}, {"BK", 1}, {"WM", 8}, {"WN", 8}}}) {
    SCOPED_TRACE(binding.at("BM").integer() * 100 + binding.at("BN").integer() * 10 +
                 binding.at("BK").integer());
    ReferenceOptions options;
    options.binding = binding;
    Expected<Tensors> out = run(*module, in, options);
    ASSERT_TRUE(out) << out.error().message;
    expectNear(out->at("c"), expected, 1e-9);
  }
}

TEST(ReferenceInterpret, BindingThatViolatesRequireIsAnError) {
  auto module = loadExample("matmul_template.ttl");
  ASSERT_TRUE(module);
  ReferenceOptions options;
  options.binding = {{"BM", 2}, {"BN", 2}, {"BK", 2}, {"WM", 2}, {"WN", 4}};
  Expected<Tensors> out = run(*module, {}, options);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("matmul_template.ttl:"), std::string::npos)
      << out.error().message;
  EXPECT_NE(out.error().message.find("ttl.require does not hold"), std::string::npos);
}

TEST(ReferenceInterpret, TimeLimitStopsAnEndlessKernelNamingWhatEachThreadDid) {
  // tests/hostile/endless_loop.ttl: three threads of 10^15 iterations each.
  ir::DiagnosticEngine diags;
  const std::string file = kSource + "/tests/hostile/endless_loop.ttl";
  auto module = testing::verified(ir::parseFile(file, diags), diags);
  ASSERT_TRUE(module);
  ReferenceOptions options;
  options.timeLimitSeconds = 0.5;
  HostTensor zero{{32, 32}, std::vector<double>(32 * 32, 0.0)};
  Expected<Tensors> out = run(*module, {{"a", zero}, {"c", zero}}, options);
  ASSERT_FALSE(out);
  const std::string& m = out.error().message;
  EXPECT_NE(m.find("endless_loop.ttl:11:3: error: reference: @endless did not finish within the "
                   "time limit of 0.5 s; its threads were:"),
            std::string::npos)
      << m;
  // One line per thread, each naming an op of that thread: executing it, or waiting at a CB op.
  EXPECT_NE(m.find("\n  core (0, 0) ttl.datamovement_thread at " + file + ":15:5: "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("\n  core (0, 0) ttl.compute_thread at " + file + ":27:5: "), std::string::npos)
      << m;
  EXPECT_NE(m.find("\n  core (0, 0) ttl.datamovement_thread at " + file + ":40:5: "),
            std::string::npos)
      << m;
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 3) << m;
}

TEST(ReferenceInterpret, ReceiveWithoutSendIsADeadlockNamingTheThreads) {
  auto module = parseKernel("receive_without_send.ttl");
  ASSERT_TRUE(module);
  Expected<Tensors> out = run(*module, {});
  ASSERT_FALSE(out);
  const std::string& m = out.error().message;
  EXPECT_NE(m.find("receive_without_send.ttl:8:3: error: reference: deadlock"), std::string::npos)
      << m;
  EXPECT_NE(m.find("core (1, 0) ttl.datamovement_thread at " + kSource +
                   "/tests/reference/kernels/receive_without_send.ttl:10:5: ttl.copy from %p at " +
                   kSource +
                   "/tests/reference/kernels/receive_without_send.ttl:14:14 waits for a block "
                   "that core (0, 0) never sends"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("core (1, 0) ttl.compute_thread at " + kSource +
                   "/tests/reference/kernels/receive_without_send.ttl:19:5: ttl.cb_wait %cb at " +
                   kSource + "/tests/reference/kernels/receive_without_send.ttl:20:12"),
            std::string::npos)
      << m;
  // Core (0, 0) is not a destination: it pushes and both its threads finish.
  EXPECT_EQ(m.find("\n  core (0, 0)"), std::string::npos) << m;
}

TEST(ReferenceInterpret, PipeWithSemaphoreHandshake) {
  auto module = parseKernel("handshake.ttl");
  ASSERT_TRUE(module);
  Tensors in{{"a", random({32, 32}, 0)}};
  Expected<Tensors> out = run(*module, in);
  ASSERT_TRUE(out) << out.error().message;
  const HostTensor& c = out->at("c");
  for (int r = 0; r < 32; ++r)
    for (int k = 0; k < 32; ++k) {
      EXPECT_EQ(c.data[r * 64 + k], in["a"].data[r * 32 + k]);
      EXPECT_EQ(c.data[r * 64 + 32 + k], in["a"].data[r * 32 + k]);
    }
}

// tests/reference/kernels/compute_one_block.ttl: one 1x2-tile block X in, Y = EXPR(X) out, on one
// core; `expression` (ops computing %out from %in) takes the place of the file's line of %out.
std::string computeKernel(const std::string& expression) {
  std::string text = testing::testKernelText("reference/kernels/compute_one_block.ttl");
  const std::string line = "      %out = ttl.exp %in : !blk\n";
  size_t at = text.find(line);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos) text.replace(at, line.size(), expression + "\n");
  return text;
}

TEST(ReferenceInterpret, ComputeOpsFollowTheirDefinitions) {
  using Fn = std::function<double(const HostTensor& x, int r, int c)>;
  auto at = [](const HostTensor& x, int r, int c) { return x.data[r * 64 + c]; };
  auto unary = [&](double (*f)(double)) -> Fn {
    return [=](const HostTensor& x, int r, int c) { return f(at(x, r, c)); };
  };
  struct Case {
    std::string expression;
    Fn expected;
  };
  std::vector<Case> cases = {
      {"%out = ttl.exp %in : !blk", unary([](double v) { return std::exp(v); })},
      {"%a = ttl.abs %in : !blk\n%out = ttl.log %a : !blk",
       unary([](double v) { return std::log(std::fabs(v)); })},
      {"%a = ttl.abs %in : !blk\n%out = ttl.sqrt %a : !blk",
       unary([](double v) { return std::sqrt(std::fabs(v)); })},
      {"%a = ttl.abs %in : !blk\n%out = ttl.rsqrt %a : !blk",
       unary([](double v) { return 1 / std::sqrt(std::fabs(v)); })},
      {"%out = ttl.recip %in : !blk", unary([](double v) { return 1 / v; })},
      {"%out = ttl.relu %in : !blk", unary([](double v) { return v > 0 ? v : 0.0; })},
      {"%out = ttl.gelu %in : !blk",
       unary([](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); })},
      {"%out = ttl.sigmoid %in : !blk", unary([](double v) { return 1 / (1 + std::exp(-v)); })},
      {"%out = ttl.tanh %in : !blk", unary([](double v) { return std::tanh(v); })},
      {"%n = ttl.neg %in : !blk\n%out = ttl.max %n, %in : !blk",
       unary([](double v) { return std::fabs(v); })},
      {"%s = ttl.sub %in, %in : !blk\n%m = ttl.mul %in, %in : !blk\n%out = ttl.add %s, %m : !blk",
       unary([](double v) { return v * v; })},
      // Column sums in row 0, the other rows zero.
      {"%out = ttl.reduce_sum %in {dims = [0]} : !blk -> !blk",
       [&](const HostTensor& x, int r, int c) {
         double sum = 0;
         for (int i = 0; i < 32; ++i)
           sum += at(x, i, c);
         return r == 0 ? sum : 0.0;
       }},
      // Row maxima repeated across each row.
      {"%m = ttl.reduce_max %in {dims = [1]} : !blk -> !one\n"
       "%out = ttl.bcast %m {dims = [1]} : !one -> !blk",
       [&](const HostTensor& x, int r, int) {
         double m = -INFINITY;
         for (int j = 0; j < 64; ++j)
           m = std::max(m, at(x, r, j));
         return m;
       }},
      // The sum of everything everywhere.
      {"%m = ttl.reduce_sum %in {dims = [0, 1]} : !blk -> !one\n"
       "%out = ttl.bcast %m {dims = [0, 1]} : !one -> !blk",
       [&](const HostTensor& x, int, int) {
         double sum = 0;
         for (double v : x.data)
           sum += v;
         return sum;
       }},
      // Row 0 repeated down the rows.
      {"%out = ttl.bcast %in {dims = [0]} : !blk -> !blk",
       [&](const HostTensor& x, int, int c) { return at(x, 0, c); }},
  };
  Tensors in{{"x", random({32, 64}, 0)}};
  for (const Case& k : cases) {
    SCOPED_TRACE(k.expression);
    auto module = parse(computeKernel(k.expression));
    ASSERT_TRUE(module);
    Expected<Tensors> out = run(*module, in);
    ASSERT_TRUE(out) << out.error().message;
    HostTensor expected{{32, 64}, std::vector<double>(32 * 64)};
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 64; ++c)
        expected.data[r * 64 + c] = k.expected(in["x"], r, c);
    expectNear(out->at("y"), expected, 1e-12);
  }
}

TEST(ReferenceInterpret, UnsupportedOpIsAnErrorWithItsLocation) {
  auto module = parseKernel("unsupported_op.ttl");
  ASSERT_TRUE(module);
  Expected<Tensors> out = run(*module, {});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, kSource + "/tests/reference/kernels/unsupported_op.ttl:9:7: "
                                           "error: reference: vendor.scope is not supported");
}

TEST(ReferenceInterpret, SliceOutsideItsTensorAtRunTime) {
  // The index comes from the core, so only running it finds that core (1, 0) reads past the end.
  auto module = parseKernel("slice_past_end.ttl");
  ASSERT_TRUE(module);
  Expected<Tensors> out = run(*module, {});
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find(kSource +
                                     "/tests/reference/kernels/slice_past_end.ttl:18:14: error: "
                                     "reference: slice [0, 1] (tiles) of "
                                     "%a covers rows 0..31 and columns 32..63, outside its 32 x "
                                     "32 elements"),
            std::string::npos)
      << out.error().message;
}

TEST(ReferenceInterpret, ClippedSlicesMoveOnlyTheTilesInsideTheTensor) {
  // A 96x96 tensor (3x3 tiles) copied through 2x2 blocks at [0, 0], [0, 2], [2, 0], [2, 2]: the
  // last three reach past the edge. C must equal A, and writing past C's edge must not fail.
  auto module = parseKernel("clipped_copy.ttl");
  ASSERT_TRUE(module);
  Tensors in{{"a", random({96, 96}, 0)}, {"c", random({96, 96}, 1)}};
  Expected<Tensors> out = run(*module, in);
  ASSERT_TRUE(out) << out.error().message;
  expectNear(out->at("c"), in["a"], 0);
}

TEST(ReferenceInterpret, MatmulTemplateWithPartialEdgeBlocks) {
  // 320 = 10 tiles in per-core blocks of 4 (3 x 3 cores) computed in 4 x 4 blocks: the last row
  // and column of cores own one partial block (2 of its 4 rows, 2 of its 4 columns).
  auto module = loadExample("matmul_2d_template.ttl");
  ASSERT_TRUE(module);
  Tensors in{{"a", random({320, 128}, 0)}, {"b", random({128, 320}, 1)}};
  HostTensor expected = naiveMatmul(in["a"], in["b"]);
  ReferenceOptions options;
  options.binding = {{"M", 320},
                     {"K", 128},
                     {"N", 320},
                     {"DTYPE", ir::KnobValue::symbol("bf16")},
                     {"FIDELITY", ir::KnobValue::symbol("HiFi4")},
                     {"FP32_DEST_ACC", 0},
                     {"per_core_M", 4},
                     {"per_core_N", 4},
                     {"out_block_h", 4},
                     {"out_block_w", 4},
                     {"in0_block_w", 2},
                     {"out_subblock_h", 1},
                     {"out_subblock_w", 1}};
  Expected<Tensors> out = run(*module, in, options);
  ASSERT_TRUE(out) << out.error().message;
  expectNear(out->at("c"), expected, 1e-9);
}

TEST(ReferenceInterpret, InputsAreChecked) {
  auto module = loadExample("eltwise_add.ttl");
  ASSERT_TRUE(module);
  Expected<Tensors> wrongShape = run(*module, {{"a", random({32, 32}, 0)}});
  ASSERT_FALSE(wrongShape);
  EXPECT_NE(wrongShape.error().message.find("input 'a' has shape [32, 32]"), std::string::npos)
      << wrongShape.error().message;
  Expected<Tensors> unknown = run(*module, {{"x", random({256, 256}, 0)}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("input 'x' is not an argument of @eltwise_add"),
            std::string::npos)
      << unknown.error().message;
  // Arguments not given start as zeros: 0 + 0.
  Expected<Tensors> zeros = run(*module, {});
  ASSERT_TRUE(zeros) << zeros.error().message;
  for (double x : zeros->at("c").data)
    ASSERT_EQ(x, 0.0);
}

TEST(ReferenceInterpret, KernelArgumentsGiveNamesShapesAndTypes) {
  auto module = loadExample("eltwise_bcast_scalar.ttl");
  ASSERT_TRUE(module);
  Expected<std::vector<ArgumentInfo>> args = kernelArguments(kernelOf(*module), {});
  ASSERT_TRUE(args) << args.error().message;
  ASSERT_EQ(args->size(), 3u);
  EXPECT_EQ((*args)[1].name, "s");
  EXPECT_EQ((*args)[1].shape, (std::vector<int64_t>{32, 32}));
  EXPECT_EQ((*args)[1].dataType, ir::DataType::BF16);
  EXPECT_EQ((*args)[2].shape, (std::vector<int64_t>{256, 256}));
}

TEST(ReferenceInterpret, NotAKernel) {
  Expected<Tensors> out = interpretKernel(nullptr, {}, wormhole(), {});
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("needs a ttl.kernel"), std::string::npos);
}

} // namespace
} // namespace ttlplan::reference
