// ir::CompiledValues gives what ir::evaluate gives, for every value of the 2-D matmul template
// (knobs, core coordinates, division, comparisons), on every core, under bindings that fold and
// ones that do not (an unbound knob, a division by zero).
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/Parser.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <memory>

namespace ttlplan::ir {
namespace {

std::optional<int> leafSlot(const Operation& op) {
  if (op.isa("ttl.core_x")) return 0;
  if (op.isa("ttl.core_y")) return 1;
  return std::nullopt;
}

std::unique_ptr<Module> loadTemplate() {
  DiagnosticEngine diags;
  return parseFile(std::string(TTLPLAN_SOURCE_DIR) + "/examples/matmul_2d_template.ttl", diags);
}

// Every index or integer result in `module`, in walk order.
std::vector<const Value*> integerValues(Module& module) {
  std::vector<const Value*> values;
  module.op->walk([&](Operation* op) {
    for (const Value* r : op->results())
      if (r->type().is(TypeKind::Index) || r->type().is(TypeKind::Integer)) values.push_back(r);
  });
  return values;
}

// Every knob of the template but DTYPE, FIDELITY and FP32_DEST_ACC, bound.
Binding templateBinding() {
  return {{"M", 1024},           {"K", 512},           {"N", 640},         {"per_core_M", 4},
          {"per_core_N", 5},     {"in0_block_w", 4},   {"out_block_h", 4}, {"out_block_w", 5},
          {"out_subblock_h", 2}, {"out_subblock_w", 1}};
}

TEST(CompiledValues, AgreesWithEvaluateOnEveryValueAndCore) {
  auto module = loadTemplate();
  ASSERT_TRUE(module);
  std::vector<const Value*> values = integerValues(*module);
  ASSERT_GT(values.size(), 50u);
  CompiledValues program(values, leafSlot);
  Binding full = templateBinding();
  Binding partial = full;
  partial.erase("K");
  Binding zero = full;
  zero["per_core_N"] = 0; // divisions by it do not fold
  int folded = 0, unfolded = 0;
  for (const Binding* b : {&full, &partial, &zero}) {
    std::vector<std::optional<int64_t>> knobs = program.knobValues(*b), out;
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 2; ++y) {
        program.run(knobs, {x, y}, out);
        ASSERT_EQ(out.size(), values.size());
        LeafEvaluator leaves = [&](const Operation& op) -> std::optional<int64_t> {
          if (op.isa("ttl.core_x")) return x;
          if (op.isa("ttl.core_y")) return y;
          return std::nullopt;
        };
        for (size_t i = 0; i < values.size(); ++i) {
          std::optional<int64_t> expected = evaluate(values[i], *b, leaves);
          EXPECT_EQ(out[i], expected) << "value " << i << " core " << x << "," << y;
          (expected ? folded : unfolded) += 1;
        }
      }
  }
  EXPECT_GT(folded, 100);  // the comparison covers values that fold ...
  EXPECT_GT(unfolded, 10); // ... and values that do not
}

TEST(CompiledValues, LoopIndicesInArgumentSlotsAgreeWithEvaluateGivenThem) {
  auto module = loadTemplate();
  ASSERT_TRUE(module);
  std::vector<const Value*> values = integerValues(*module), indices;
  module->op->walk([&](Operation* op) {
    if (op->isa("scf.for") && op->body().numArguments() > 0)
      indices.push_back(op->body().argument(0));
  });
  ASSERT_GE(indices.size(), 2u);
  // Leaf slots 0 and 1 are the core coordinates; the loop indices follow.
  auto argumentSlot = [&](const Value& v) -> std::optional<int> {
    auto it = std::find(indices.begin(), indices.end(), &v);
    if (it == indices.end()) return std::nullopt;
    return 2 + int(it - indices.begin());
  };
  CompiledValues program(values, leafSlot, argumentSlot);
  Binding b = templateBinding();
  std::vector<std::optional<int64_t>> knobs = program.knobValues(b), out, all;
  int differsFromUnset = 0;
  for (int64_t i : {0, 1, 3}) {
    std::vector<std::optional<int64_t>> leaves = {1, 0};
    std::map<const Value*, int64_t> known;
    for (size_t k = 0; k < indices.size(); ++k) {
      leaves.push_back(i + int64_t(k));
      known[indices[k]] = i + int64_t(k);
    }
    program.run(knobs, leaves, out);
    program.runAll(knobs, leaves, all);
    LeafEvaluator coreLeaves = [](const Operation& op) -> std::optional<int64_t> {
      if (op.isa("ttl.core_x")) return 1;
      if (op.isa("ttl.core_y")) return 0;
      return std::nullopt;
    };
    for (size_t v = 0; v < values.size(); ++v) {
      std::optional<int64_t> expected = evaluate(values[v], b, coreLeaves, &known);
      EXPECT_EQ(out[v], expected) << "value " << v << " index " << i;
      EXPECT_EQ(all[size_t(program.rootInstruction(v))], expected) << "value " << v;
      if (expected != evaluate(values[v], b, coreLeaves)) ++differsFromUnset;
    }
  }
  EXPECT_GT(differsFromUnset, 3); // values that fold only with a loop index are covered
}

// runSome() re-running only what depends on a changed leaf (leafMasks()) ends where a full run
// does: move along a row of cores re-running the x-dependent instructions, then down a column
// re-running the y-dependent ones.
TEST(CompiledValues, RunSomeOfTheLeafDependentInstructionsMatchesAFullRun) {
  auto module = loadTemplate();
  ASSERT_TRUE(module);
  CompiledValues program(integerValues(*module), leafSlot);
  std::vector<uint64_t> masks = program.leafMasks();
  ASSERT_EQ(masks.size(), program.size());
  std::vector<int> onX, onY;
  for (size_t i = 0; i < masks.size(); ++i) {
    EXPECT_EQ(masks[i] & ~uint64_t(3), 0u) << "only slots 0 and 1 are leaves";
    if (masks[i] & 1) onX.push_back(int(i));
    if (masks[i] & 2) onY.push_back(int(i));
  }
  EXPECT_GT(onX.size(), 3u);
  EXPECT_GT(onY.size(), 3u);
  EXPECT_LT(onX.size() + onY.size(), masks.size()); // some depend on no leaf
  std::vector<std::optional<int64_t>> knobs = program.knobValues(templateBinding()), some, full;
  program.runAll(knobs, {0, 0}, some);
  int changed = 0;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) {
      std::vector<std::optional<int64_t>> before = some;
      program.runSome(x == 0 ? onY : onX, knobs, {x, y}, some);
      if (x == 0 && y > 0) program.runSome(onX, knobs, {x, y}, some); // back to column 0
      program.runAll(knobs, {x, y}, full);
      EXPECT_EQ(some, full) << "core " << x << "," << y;
      changed += some != before;
    }
  EXPECT_GT(changed, 8); // the runs really changed values
}

} // namespace
} // namespace ttlplan::ir
