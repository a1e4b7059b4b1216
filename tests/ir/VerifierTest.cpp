// The verifier: the example corpus verifies cleanly, targeted checks give exact messages, the
// knob utilities fold expressions, and malformed input never crashes.
#include "ttlplan/ir/Verifier.h"

#include "tests/support/LoadModule.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/support/ReadFile.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using namespace ttlplan::ir;

namespace {

std::string readFile(const fs::path& path) {
  return ttlplan::readTextFile(path.string()).value();
}

/// Parses and verifies `text`; returns the formatted diagnostics ("" when clean).
std::string verifyText(const std::string& text, const std::string& name = "t.ttl") {
  DiagnosticEngine diags;
  auto module = parseSource(text, name, diags);
  if (module) verify(*module, diags);
  return format(diags.diagnostics());
}

/// The text of tests/ir/kernels/`name`.
std::string kernelText(const std::string& name) {
  return ttlplan::testing::testKernelText("ir/kernels/" + name);
}

/// Parses and verifies tests/ir/kernels/`name` (named `name` in diagnostics); as verifyText.
std::string verifyKernel(const std::string& name) {
  return verifyText(kernelText(name), name);
}

// tests/ir/kernels/verifier_base.ttl is a small valid kernel; tests replace its lines to break
// one thing at a time (their diagnostics name it, and its lines).
const std::string kBaseName = "verifier_base.ttl";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

} // namespace

TEST(Verifier, EveryExampleVerifiesCleanly) {
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TTLPLAN_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".ttl") continue;
    ++count;
    EXPECT_EQ(verifyText(readFile(entry.path()), entry.path().filename().string()), "")
        << entry.path();
  }
  EXPECT_GE(count, 7u);
}

TEST(Verifier, BaseKernelIsValid) {
  EXPECT_EQ(verifyKernel(kBaseName), "");
}

TEST(Verifier, ComputeOpInMoverNamesThePlaceAndTheThread) {
  std::string text =
      replaced(kernelText(kBaseName), "        ttl.wait %y : !ttl.transfer_handle<write>\n",
               "        ttl.wait %y : !ttl.transfer_handle<write>\n"
               "        %bad = ttl.exp %r : !blk\n");
  EXPECT_EQ(
      verifyText(text, kBaseName),
      "verifier_base.ttl:37:16: error: 'ttl.exp' must be in the compute thread; move it into the "
      "kernel's ttl.compute_thread\n"
      "verifier_base.ttl:30:5: note: it is inside this 'ttl.datamovement_thread'\n");
}

TEST(Verifier, MissingPushInAWorkLoopIsReportedOnceAtTheLoop) {
  std::string text = replaced(kernelText(kBaseName), "        ttl.cb_push %out : !cb\n", "");
  // One diagnostic: the CB is not reported again at the end of the thread or across threads.
  EXPECT_EQ(verifyText(text, kBaseName),
            "verifier_base.ttl:21:7: error: loop body is not balanced: %out is reserved in each "
            "iteration but not pushed; add ttl.cb_push %out inside the loop\n"
            "verifier_base.ttl:23:14: note: the reserve is here\n");
}

TEST(Verifier, MissingPushOutsideLoopsIsReportedAtTheReserve) {
  EXPECT_EQ(verifyKernel("push_outside_loops.ttl"),
            "push_outside_loops.ttl:8:12: error: %cb is reserved but never pushed in this "
            "thread; add ttl.cb_push %cb after filling the block\n");
}

TEST(Verifier, PushPopCountsPerWorkItemMustAgree) {
  std::string text =
      replaced(kernelText(kBaseName), "        ttl.cb_pop %cb : !cb\n      }\n    }\n    ttl.data",
               "        ttl.cb_pop %cb : !cb\n"
               "        %w2 = ttl.cb_wait %cb : !cb -> !blk\n"
               "        ttl.cb_pop %cb : !cb\n      }\n    }\n    ttl.data");
  EXPECT_EQ(verifyText(text, kBaseName),
            "verifier_base.ttl:8:11: error: pushes and pops of %cb do not agree: the producer "
            "thread pushes 1 per work item but the consumer thread pops 2 per work item\n"
            "verifier_base.ttl:13:14: note: the producer thread uses it here\n"
            "verifier_base.ttl:22:14: note: the consumer thread uses it here\n");
}

TEST(Verifier, StoreIntoWaitedView) {
  std::string text =
      replaced(kernelText(kBaseName), "ttl.store %e, %o : !blk", "ttl.store %e, %w : !blk");
  std::string out = verifyText(text, kBaseName);
  EXPECT_NE(out.find("verifier_base.ttl:25:9: error: ttl.store target %w must be a view from "
                     "ttl.cb_reserve (a view from ttl.cb_wait is the consumer's input)"),
            std::string::npos)
      << out;
}

TEST(Verifier, SliceOutOfBounds) {
  std::string text = replaced(kernelText(kBaseName), "%s = ttl.tensor_slice %a[%i, %c0]",
                              "%s = ttl.tensor_slice %a[%i, %c2]");
  text = replaced(text, "      %c0 = arith.constant 0 : index\n",
                  "      %c0 = arith.constant 0 : index\n"
                  "      %c2 = arith.constant 2 : index\n");
  EXPECT_EQ(verifyText(text, kBaseName),
            "verifier_base.ttl:15:14: error: slice out of bounds in dim 1: tiles [2, 3) of a "
            "tensor 2 tiles wide (indices are in tiles)\n");
}

TEST(Verifier, WorkLoopRankMustMatchWork) {
  std::string text = replaced(kernelText(kBaseName), "work = [2]", "work = [2, 2]");
  std::string out = verifyText(text, kBaseName);
  EXPECT_NE(out.find("error: ttl.work_loop has 1 induction variable(s) but the kernel's work has "
                     "2 dimension(s)"),
            std::string::npos)
      << out;
}

TEST(Verifier, UnsatisfiableRequirementNamesTheKnobs) {
  EXPECT_EQ(verifyKernel("unsatisfiable_require.ttl"),
            "unsatisfiable_require.ttl:13:5: error: no binding of @BM, @BK satisfies this "
            "requirement\n"
            "unsatisfiable_require.ttl:3:3: note: @BM is declared here\n"
            "unsatisfiable_require.ttl:4:3: note: @BK is declared here\n");
}

TEST(Params, EvaluatesExpressionsUnderABinding) {
  std::string text = kernelText("param_require.ttl");
  DiagnosticEngine diags;
  auto module = parseSource(text, "param_require.ttl", diags);
  ASSERT_TRUE(module);
  std::vector<Param> params = collectParams(*module);
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].name, "BM");
  EXPECT_EQ(params[0].domain.listValues(), (std::vector<KnobValue>{1, 2, 4}));
  Operation* require = nullptr;
  module->op->walk([&](Operation* op) {
    if (op->isa("ttl.require")) require = op;
  });
  ASSERT_TRUE(require);
  std::set<std::string> knobs;
  collectKnobs(require->operand(0), knobs);
  EXPECT_EQ(knobs, (std::set<std::string>{"BM"}));
  EXPECT_EQ(foldRequire(*require, {{"BM", 2}}), std::optional<bool>(true));  // 4 > 2
  EXPECT_EQ(foldRequire(*require, {{"BM", 4}}), std::optional<bool>(false)); // 2 > 4
  EXPECT_EQ(foldRequire(*require, {}), std::nullopt);                        // unbound
  std::vector<const Param*> all = {&params[0]};
  EXPECT_EQ(countListBindings(all, 100), std::optional<uint64_t>(3));
  int visited = 0;
  forEachBinding(all, {}, [&](const Binding&) { return ++visited < 2; });
  EXPECT_EQ(visited, 2);
  EXPECT_EQ(resolveDim(Dim::ofParam("BM"), {{"BM", 4}}), std::optional<int64_t>(4));
  EXPECT_EQ(resolveDim(Dim::dynamic(), {}), std::nullopt);
}

TEST(Verifier, MalformedGenericOpsAreReportedNotCrashed) {
  // Every registered TTL op with no operands, results or regions, in every placement: the
  // verifier reports the counts and skips the detailed checks.
  std::string text = R"(module {
  "ttl.kernel"() : () -> ()
  "ttl.cb_wait"() : () -> ()
  "ttl.copy"() : () -> ()
  "ttl.matmul"() : () -> ()
  "ttl.tensor_slice"() : () -> ()
  "ttl.work_loop"() : () -> ()
  "scf.for"() : () -> ()
  "ttl.require"() : () -> ()
  ttl.kernel @k() attributes {grid = [1, 1], work = [2]} {
    "ttl.compute_thread"() ({
      "ttl.work_loop"() ({
      }) : () -> ()
      "scf.if"() : () -> ()
      "ttl.store"() : () -> ()
      "ttl.if_src"() ({
      }) : () -> ()
      %u = "foo.bar"() : () -> !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>
      "ttl.cb_push"(%u) : (!ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>, 2>) -> ()
    }) : () -> ()
  }
}
)";
  std::string out = verifyText(text);
  EXPECT_NE(out.find("'ttl.kernel' takes 1 region(s) but has 0"), std::string::npos) << out;
  EXPECT_NE(out.find("'ttl.copy' takes 2 operand(s) but has 0"), std::string::npos) << out;
  EXPECT_NE(out.find("'scf.if' takes 1 operand(s) but has 0"), std::string::npos) << out;
}

TEST(Params, SharedSubexpressionsAreEvaluatedOnce) {
  // %c<i> = %c<i-1> + %c<i-1>: a DAG with 2^62 paths. Walking it as a tree never finishes;
  // evaluated once per value it gives 2^62 at once.
  std::string text = "module {\n  ttl.kernel @k() attributes {grid = [1, 1]} {\n"
                     "    %c0 = arith.constant 1 : index\n";
  for (int i = 1; i <= 62; ++i)
    text += "    %c" + std::to_string(i) + " = arith.addi %c" + std::to_string(i - 1) + ", %c" +
            std::to_string(i - 1) + " : index\n";
  text += "    %ok = arith.cmpi eq, %c62, %c62 : index\n    ttl.require %ok\n  }\n}\n";
  DiagnosticEngine diags;
  auto module = parseSource(text, "t.ttl", diags);
  ASSERT_TRUE(module) << format(diags.diagnostics());
  Operation* require = nullptr;
  Value* last = nullptr;
  module->op->walk([&](Operation* op) {
    if (op->isa("ttl.require")) require = op;
    if (op->isa("arith.addi")) last = op->result(0);
  });
  ASSERT_TRUE(require && last);
  EXPECT_EQ(evaluate(last, {}), std::optional<int64_t>(int64_t(1) << 62));
  std::set<std::string> knobs;
  collectKnobs(require->operand(0), knobs);
  EXPECT_TRUE(knobs.empty());
  EXPECT_TRUE(verify(*module, diags)) << format(diags.diagnostics());
}
