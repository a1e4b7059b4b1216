// infer-dst and lower-compute. The lowered compute funcs are executed by a small symbolic
// machine (below) that follows the contract of docs/emulator.md: DST phases (acquire / commit /
// wait / release), inits, DST capacity, CB fronts that advance on ttl.cb_pop and back blocks that
// are handed over on ttl.cb_push. Every tile it packs is an expression over the CB tiles it read
// ("add(cba#0[1],cbb#0[1])"), compared with what the TTL program means, computed here
// independently of the pass.
#include "tests/support/LoadModule.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Printer.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/PassManager.h"
#include "ttlplan/lower/passes/ComputeChain.h"

#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace ttlplan::lower {
namespace {

const std::string kSource = TTLPLAN_SOURCE_DIR;
constexpr std::string_view kUpToExpand =
    "verify,infer-pipe-semaphores,insert-sync,add-reduce-scaler,plan,apply-plan,infer-dst,"
    "expand-threads";

struct Lowered {
  std::unique_ptr<ir::Module> module;
  ir::DiagnosticEngine diagnostics;
  ir::Device device = *ir::builtinDevice("wormhole_b0");
  std::optional<PassContext> context;
  bool ok = false;
  std::string errors() const { return ir::format(diagnostics.diagnostics()); }
};

/// Parses `source` (or the file `path`) and runs `pipeline`.
std::unique_ptr<Lowered> lower(const std::string& source, const std::string& path,
                               std::string_view pipeline) {
  auto out = std::make_unique<Lowered>();
  out->module = source.empty() ? ir::parseFile(path, out->diagnostics)
                               : ir::parseSource(source, "test.ttl", out->diagnostics);
  EXPECT_TRUE(out->module) << out->errors();
  if (!out->module) return out;
  out->context.emplace(
      PassContext{*out->module, out->device, out->diagnostics, {}, std::nullopt, {}, true});
  Expected<PassManager> pm = PassManager::parse(pipeline);
  EXPECT_TRUE(pm) << (pm ? "" : pm.error().message);
  if (pm) out->ok = pm->run(*out->context);
  return out;
}

/// Runs one more pipeline on an already lowered module (same context, so the plan is kept).
bool runMore(Lowered& l, std::string_view pipeline) {
  Expected<PassManager> pm = PassManager::parse(pipeline);
  EXPECT_TRUE(pm);
  return pm && pm->run(*l.context);
}

ir::Operation* computeFunc(ir::Module& module) {
  for (auto& op : module.body().operations())
    if (op->isa("func.func") && op->attribute("ttl.kernel_thread").is(ir::AttrKind::String) &&
        op->attribute("ttl.kernel_thread").stringValue() == "compute")
      return op.get();
  return nullptr;
}

// --- The symbolic machine ------------------------------------------------------------------------

class Machine {
public:
  explicit Machine(int64_t dstCapacity, std::map<std::string, int64_t> runtimeArgs = {})
      : capacity_(dstCapacity), runtimeArgs_(std::move(runtimeArgs)) {}

  /// Blocks pushed into each CB, in order: tile index -> expression.
  std::map<std::string, std::vector<std::map<int64_t, std::string>>> pushed;
  std::vector<std::string> failures;
  std::map<std::string, int64_t> calls; ///< ttkernel calls executed, by name

  void runFunc(ir::Operation* func) {
    func_ = func;
    run(func->body());
    if (phase_ != Phase::Idle) fail("the func ends with DST acquired");
  }

private:
  enum class Phase { Idle, Math, Committed, Pack };
  int64_t capacity_;
  std::map<std::string, int64_t> runtimeArgs_;
  ir::Operation* func_ = nullptr;
  std::map<const ir::Value*, int64_t> ints_;
  std::map<int64_t, std::string> dst_;
  Phase phase_ = Phase::Idle;
  std::string init_; ///< the last init called, with its CB where it takes one
  bool l1Acc_ = false;
  bool configured_ = false;              ///< compute_kernel_hw_startup or mm_init ran
  int computeCalls_ = 0;                 ///< compute calls other than the start-up and CB hand-over
  std::map<std::string, int64_t> front_; ///< generation of each CB's front block
  std::map<std::string, std::map<int64_t, std::string>> back_;
  std::map<std::string, bool> reserved_;

  void fail(const std::string& what) {
    if (failures.size() < 20) failures.push_back(what);
  }
  static std::string cbName(const ir::Value* cb) { return cb->nameHint(); }
  int64_t value(const ir::Value* v) {
    auto it = ints_.find(v);
    if (it == ints_.end()) {
      fail("use of an index value with no value: " + v->nameHint());
      return 0;
    }
    return it->second;
  }
  /// Tile t of the front block of `cb`: the expression this func packed there when it pushed that
  /// block itself (an intermediate CB of a split chain), else the reader's tile by name.
  std::string tile(const ir::Value* cb, int64_t t) {
    const std::string name = cbName(cb);
    const int64_t gen = front_[name];
    if (auto it = pushed.find(name);
        it != pushed.end() && gen < static_cast<int64_t>(it->second.size())) {
      auto page = it->second[static_cast<size_t>(gen)].find(t);
      if (page == it->second[static_cast<size_t>(gen)].end()) {
        fail(fmt::format("read of tile {} of {}, which was pushed without it", t, name));
        return "?";
      }
      return page->second;
    }
    return fmt::format("{}#{}[{}]", name, gen, t);
  }
  std::string& reg(int64_t d, const std::string& call) {
    if (d < 0 || d >= capacity_)
      fail(fmt::format("{}: DST index {} beyond {}", call, d, capacity_));
    if (!dst_.count(d)) dst_[d] = "0";
    return dst_[d];
  }
  void math(const std::string& call, const std::string& needsInit) {
    if (phase_ != Phase::Math) fail(call + " without tile_regs_acquire");
    if (init_ != needsInit) fail(call + " after init '" + init_ + "', needs '" + needsInit + "'");
  }

  void run(ir::Block& block) {
    for (auto& owned : block.operations())
      step(owned.get());
  }

  void step(ir::Operation* op) {
    const std::string& name = op->name();
    auto arg = [&](size_t i) { return value(op->operand(i)); };
    if (name == "arith.constant") {
      ints_[op->result(0)] = op->attribute("value").intValue();
    } else if (name == "arith.addi" || name == "arith.subi" || name == "arith.muli" ||
               name == "arith.divui" || name == "arith.remui") {
      int64_t a = arg(0), b = arg(1);
      ints_[op->result(0)] = name == "arith.addi"    ? a + b
                             : name == "arith.subi"  ? a - b
                             : name == "arith.muli"  ? a * b
                             : b == 0                ? 0
                             : name == "arith.divui" ? a / b
                                                     : a % b;
    } else if (name == "scf.for") {
      for (int64_t i = arg(0); i < arg(1); i += arg(2)) {
        ints_[op->body().argument(0)] = i;
        run(op->body());
      }
    } else if (name == "scf.yield") {
    } else if (name == "ttl.cb_wait") {
      // A CB this func fills itself must have a pushed block at its front, or the wait blocks
      // forever.
      const std::string cb = cbName(op->operand(0));
      if (pushed.count(cb) && static_cast<int64_t>(pushed[cb].size()) <= front_[cb])
        fail("ttl.cb_wait of " + cb + " before its block was pushed: deadlock");
    } else if (name == "ttl.cb_pop") {
      front_[cbName(op->operand(0))] += 1;
    } else if (name == "ttl.cb_reserve") {
      back_[cbName(op->operand(0))].clear();
      reserved_[cbName(op->operand(0))] = true;
    } else if (name == "ttl.cb_push") {
      pushed[cbName(op->operand(0))].push_back(back_[cbName(op->operand(0))]);
      back_[cbName(op->operand(0))].clear();
    } else if (op->dialect() == "ttkernel") {
      call(op, name.substr(std::string("ttkernel.").size()));
    } else if (name == "func.return") {
      // the function's terminator
    } else {
      fail("unexpected op in a lowered compute func: " + name);
    }
  }

  void call(ir::Operation* op, const std::string& fn) {
    calls[fn] += 1;
    // TT-Metalium configures the hardware once, first: compute_kernel_hw_startup or a full init
    // (mm_init) before any other compute call but the CB and register hand-over ones.
    static const std::set<std::string> free = {"get_arg_val", "cb_wait_front", "cb_pop_front",
                                               "cb_reserve_back", "cb_push_back"};
    if (fn == "compute_kernel_hw_startup" || fn == "mm_init") {
      if (configured_ || computeCalls_ > 0)
        fail(fn + " after other compute calls: the hardware start-up comes once, first");
      configured_ = true;
    } else if (!free.count(fn)) {
      ++computeCalls_;
      if (!configured_) fail(fn + " before compute_kernel_hw_startup");
    }
    auto arg = [&](size_t i) { return value(op->operand(i)); };
    static const std::map<std::string, std::string> binary = {{"add_binary_tile", "add"},
                                                              {"sub_binary_tile", "sub"},
                                                              {"mul_binary_tile", "mul"},
                                                              {"binary_max_tile", "max"}};
    static const std::map<std::string, std::string> unary = {
        {"exp_tile", "exp"},      {"log_tile", "log"},         {"sqrt_tile", "sqrt"},
        {"rsqrt_tile", "rsqrt"},  {"recip_tile", "recip"},     {"relu_tile", "relu"},
        {"gelu_tile", "gelu"},    {"sigmoid_tile", "sigmoid"}, {"tanh_tile", "tanh"},
        {"negative_tile", "neg"}, {"abs_tile", "abs"}};
    if (fn == "get_arg_val") {
      std::vector<ir::Attribute> names = func_->attribute("ttl.runtime_args").elements();
      int64_t i = arg(0);
      std::string n = i < static_cast<int64_t>(names.size()) ? names[i].stringValue() : "?";
      if (!runtimeArgs_.count(n)) fail("runtime arg " + n + " has no value in the test");
      ints_[op->result(0)] = runtimeArgs_[n];
    } else if (fn == "tile_regs_acquire") {
      if (phase_ != Phase::Idle) fail("tile_regs_acquire twice");
      phase_ = Phase::Math;
      dst_.clear(); // acquire hands out zeroed registers
    } else if (fn == "tile_regs_commit") {
      if (phase_ != Phase::Math) fail("tile_regs_commit without acquire");
      phase_ = Phase::Committed;
    } else if (fn == "tile_regs_wait") {
      if (phase_ != Phase::Committed) fail("tile_regs_wait without commit");
      phase_ = Phase::Pack;
    } else if (fn == "tile_regs_release") {
      if (phase_ != Phase::Pack) fail("tile_regs_release without wait");
      phase_ = Phase::Idle;
    } else if (fn == "copy_tile_init" || fn == "unary_bcast_init") {
      init_ = fn + ":" + cbName(op->operand(0));
    } else if (fn == "compute_kernel_hw_startup") {
      // configured above
    } else if (fn == "reduce_init") {
      // (input CB, scaler CB, output CB): the scaler is the CB add-reduce-scaler made.
      if (cbName(op->operand(1)) != "reduce_scaler")
        fail("reduce_init's scaler CB is " + cbName(op->operand(1)) + ", not %reduce_scaler");
      init_ = fmt::format("reduce_init:{}:{}:{}", op->attribute("pool").stringValue(),
                          op->attribute("reduce_dim").stringValue(), cbName(op->operand(0)));
    } else if (fn == "reduce_uninit") {
      if (!init_.starts_with("reduce_init:")) fail("reduce_uninit without reduce_init");
      init_.clear();
    } else if (fn == "reduce_tile") {
      const std::string pool = op->attribute("pool").stringValue();
      const std::string dim = op->attribute("reduce_dim").stringValue();
      math(fn, fmt::format("reduce_init:{}:{}:{}", pool, dim, cbName(op->operand(0))));
      // (input CB, scaler CB, input tile, scaler tile, DST): the scaler's tile 0 (1.0).
      if (cbName(op->operand(1)) != "reduce_scaler" || arg(3) != 0)
        fail("reduce_tile does not read tile 0 of %reduce_scaler");
      // "sumROW(t0,t1,...)": the tiles reduced into the register, in order.
      std::string& d = reg(arg(4), fn);
      const std::string head = fmt::format("{}{}(", pool == "MAX" ? "max" : "sum",
                                           dim.substr(std::string("REDUCE_").size()));
      const std::string t = tile(op->operand(0), arg(2));
      if (pool == "MAX" && d == "0")
        fail("reduce_tile MAX into a register that holds 0, not -inf: rows of negative values "
             "would reduce to 0");
      if (d == "0" || d == "-inf")
        d = head + t + ")";
      else if (d.starts_with(head))
        d = d.substr(0, d.size() - 1) + "," + t + ")";
      else
        fail("reduce_tile into a register that holds " + d);
    } else if (fn == "mm_init" || fn == "mm_init_short") {
      init_ = fmt::format("mm_init:{}:{}", cbName(op->operand(0)), cbName(op->operand(1)));
    } else if (fn.ends_with("_init")) {
      init_ = fn;
    } else if (fn == "copy_tile") {
      math(fn, "copy_tile_init:" + cbName(op->operand(0)));
      reg(arg(2), fn) = tile(op->operand(0), arg(1));
    } else if (fn == "unary_bcast") {
      math(fn, "unary_bcast_init:" + cbName(op->operand(0)));
      reg(arg(2), fn) = fmt::format("bcast{}({})", op->attribute("bcast").stringValue(),
                                    tile(op->operand(0), arg(1)));
    } else if (fn == "matmul_tiles") {
      math(fn, fmt::format("mm_init:{}:{}", cbName(op->operand(0)), cbName(op->operand(1))));
      std::string product = tile(op->operand(0), arg(2)) + "*" + tile(op->operand(1), arg(3));
      std::string& d = reg(arg(4), fn);
      d = d == "0" ? product : d + "+" + product;
    } else if (binary.count(fn)) {
      math(fn, fn + "_init");
      std::string a = reg(arg(0), fn), b = reg(arg(1), fn);
      reg(arg(2), fn) = fmt::format("{}({},{})", binary.at(fn), a, b);
    } else if (unary.count(fn)) {
      math(fn, fn + "_init");
      std::string& d = reg(arg(0), fn);
      d = fmt::format("{}({})", unary.at(fn), d);
    } else if (fn == "copy_dest_values") {
      // TT-Metalium's order: (input, output), DST's format as a template argument.
      math(fn, "copy_dest_values_init");
      if (op->attribute("data_format").stringValue() != "Float16_b")
        fail("copy_dest_values with DST format " + op->attribute("data_format").str());
      std::string in = reg(arg(0), fn);
      reg(arg(1), fn) = in;
    } else if (fn == "fill_tile") {
      math(fn, "fill_tile_init");
      ir::Attribute v = op->attribute("value");
      reg(arg(0), fn) = !v.is(ir::AttrKind::Float)                         ? "fill?"
                        : v.floatValue() == 0.0                            ? "0"
                        : std::isinf(v.floatValue()) && v.floatValue() < 0 ? "-inf"
                                                                           : "fill?";
    } else if (fn == "pack_reconfig_l1_acc") {
      l1Acc_ = arg(0) != 0;
    } else if (fn == "pack_tile") {
      if (phase_ != Phase::Pack) fail("pack_tile without tile_regs_wait");
      // Without out_of_order the packer writes the next page in order and ignores the index.
      if (!op->attribute("out_of_order").is(ir::AttrKind::Bool) ||
          !op->attribute("out_of_order").boolValue())
        fail("pack_tile without out_of_order = true: its page would be ignored");
      std::string cb = cbName(op->operand(1));
      if (!reserved_[cb]) fail("pack_tile into " + cb + " which was never reserved");
      std::string v = reg(arg(0), fn);
      auto& page = back_[cb];
      int64_t t = arg(2);
      if (!l1Acc_) {
        page[t] = v;
      } else if (!page.count(t)) {
        fail(fmt::format("accumulating pack into tile {} of {}, which holds garbage", t, cb));
      } else {
        page[t] = page[t] == "0" ? v : page[t] + "+" + v;
      }
    } else {
      fail("unknown ttkernel call " + fn);
    }
  }
};

// --- Kernels -------------------------------------------------------------------------------------

/// The path of tests/lower/kernels/compute_`name`.ttl: a one-core kernel whose reader fills each
/// input CB once (or once per step) from its own DRAM tensor, whose compute thread runs the chain
/// under test and whose writer drains `%cbo` once.
std::string computeKernel(const std::string& name) {
  return testing::testKernelPath("lower/kernels/compute_" + name + ".ttl");
}

/// Lowers the file `path` through lower-compute and executes the compute func; returns the machine.
Machine execute(const std::string& path, int64_t capacity, std::string* printed = nullptr) {
  auto l = lower("", path, std::string(kUpToExpand) + ",lower-compute");
  Machine m(capacity, {{"work_start", 0}, {"work_count", 2}});
  EXPECT_TRUE(l->ok) << l->errors() << path;
  if (!l->ok) return m;
  ir::Operation* func = computeFunc(*l->module);
  EXPECT_TRUE(func);
  if (!func) return m;
  if (printed) *printed = ir::print(*func);
  m.runFunc(func);
  EXPECT_TRUE(m.failures.empty()) << ::testing::PrintToString(m.failures) << ir::print(*func);
  return m;
}

std::map<int64_t, std::string> expectedBlock(int rows, int cols,
                                             const std::function<std::string(int, int)>& tile) {
  std::map<int64_t, std::string> out;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      out[i * cols + j] = tile(i, j);
  return out;
}

// --- Semantics on hand-made chains ---------------------------------------------------------------

TEST(LowerCompute, AddOfTwoBlocksInOneRound) {
  // 2x2 bf16: x, y live together, the sum reuses x's slot: 2 slots of 4 tiles fit 8.
  std::string path = computeKernel("add_2x2");
  std::string printed;
  Machine m = execute(path, 8, &printed);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(2, 2, [](int i, int j) {
              return fmt::format("add(cba#0[{0}],cbb#0[{0}])", i * 2 + j);
            }));
  EXPECT_EQ(m.calls["tile_regs_acquire"], 1); // one round: no loop
  EXPECT_EQ(printed.find("scf.for"), std::string::npos);
}

TEST(LowerCompute, RoundsLoopOverSubblocksOfALargeBlock) {
  // 4x4 bf16 add: 2 slots leave 4 tiles per slot; the widest sub-block is 1x4, 4 rounds in a loop.
  std::string path = computeKernel("sub_4x4");
  std::string printed;
  Machine m = execute(path, 8, &printed);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(4, 4, [](int i, int j) {
              return fmt::format("sub(cba#0[{0}],cbb#0[{0}])", i * 4 + j);
            }));
  EXPECT_EQ(m.calls["tile_regs_acquire"], 4);
  EXPECT_EQ(m.calls["pack_tile"], 16);
  EXPECT_NE(printed.find("scf.for"), std::string::npos);
}

TEST(LowerCompute, Fp32HalvesTheSubblock) {
  // f32: 4 DST tiles; two slots leave 2 tiles: sub-block 1x2, 4 rounds over a 2x4 block, in two
  // nested loops (2 sub-block rows x 2 sub-block columns).
  std::string path = computeKernel("max_2x4_f32");
  Machine m = execute(path, 4);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(2, 4, [](int i, int j) {
              return fmt::format("max(cba#0[{0}],cbb#0[{0}])", i * 4 + j);
            }));
  EXPECT_EQ(m.calls["tile_regs_acquire"], 4);
}

TEST(LowerCompute, SlotReuseKeepsLiveValues) {
  // e = exp(x); m = e * y; r = m - x: x stays live to the end, y is unpacked only at the mul
  // (it may take a slot freed before). 3 values live at the mul: 2 tiles per slot, 1x2 sub-block.
  std::string path = computeKernel("slot_reuse");
  Machine m = execute(path, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(2, 2, [](int i, int j) {
              int t = i * 2 + j;
              return fmt::format("sub(neg(mul(exp(cba#0[{0}]),cbb#0[{0}])),cba#0[{0}])", t);
            }));
}

TEST(LowerCompute, InputsAreUnpackedAtTheirFirstUse) {
  // a = exp(x); b = exp(x); c = a + b; d = c + y. Intervals: x [1, 3], a [2, 5], b [4, 5],
  // c [6, 7], y [7, 7], d [8, 8]; colouring: x 0, a 1, b 0, c 0, y 1 (a's slot, free since 5).
  // Unpacking y at the start of the round would let exp overwrite it.
  std::string path = computeKernel("unpack_at_first_use");
  auto annotated = lower("", path, "verify,plan,apply-plan,infer-dst");
  ASSERT_TRUE(annotated->ok) << annotated->errors();
  int64_t slotOfA = -1;
  std::vector<int64_t> inputs;
  annotated->module->op->walk([&](ir::Operation* op) {
    if (op->isa("ttl.exp") && slotOfA < 0) slotOfA = op->attribute("dst_idx").intValue();
    if (op->isa("ttl.store")) (void)op->attribute("ttl.dst_inputs").getIntegers(inputs);
  });
  ASSERT_EQ(inputs.size(), 2u); // %x, %y
  EXPECT_EQ(inputs[1], slotOfA) << "the plan no longer reuses a's slot for y";
  Machine m = execute(path, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 2, [](int, int j) {
              return fmt::format("add(add(exp(cba#0[{0}]),exp(cba#0[{0}])),cbb#0[{0}])", j);
            }));
}

TEST(LowerCompute, BroadcastsReadTheRightInputTile) {
  // Column 0 of a 2x1 block (COL), row 0 of a 1x3 block (ROW) and element (0, 0) of a 1x1 block
  // (SCALAR) over a 2x3 block.
  std::string path = computeKernel("bcasts");
  Machine m = execute(path, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(2, 3, [](int i, int j) {
              return fmt::format("mul(add(bcastCOL(cbc#0[{}]),bcastROW(cbr#0[{}])),"
                                 "bcastSCALAR(cbs#0[0]))",
                                 i, j);
            }));
}

TEST(LowerCompute, MatmulAccumulatesOverKInDstAndOverStepsInL1) {
  // C (2x2) = sum over 3 steps of A_s (2x3) x B_s (3x2): K = 3 tiles accumulate in DST, the steps
  // accumulate in L1 through pack_reconfig_l1_acc over a view zeroed after its reservation.
  std::string path = computeKernel("matmul_steps");
  std::string printed;
  Machine m = execute(path, 8, &printed);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(2, 2, [](int i, int j) {
              std::string sum;
              for (int s = 0; s < 3; ++s)
                for (int k = 0; k < 3; ++k)
                  sum += fmt::format("{}cba#{}[{}]*cbb#{}[{}]", sum.empty() ? "" : "+", s,
                                     i * 3 + k, s, k * 2 + j);
              return sum;
            }));
  EXPECT_EQ(m.calls["matmul_tiles"], 3 * 2 * 2 * 3);
  EXPECT_EQ(m.calls["fill_tile"], 4);
  // The full init once, first (the matmul is the kernel's first op); the short init once per
  // lowered chain instance, before its rounds.
  EXPECT_EQ(m.calls["mm_init"], 1);
  EXPECT_EQ(m.calls["mm_init_short"], 3);
}

TEST(LowerCompute, MatmulPlusBiasReinitsPerRound) {
  // m = A x B (1x2 x 2x4), r = m + bias: the bias is unpacked after the matmul, into another slot;
  // 2 slots of 4 tiles: sub-block 1x4, one round.
  std::string path = computeKernel("matmul_bias");
  Machine m = execute(path, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 4, [](int, int j) {
              return fmt::format("add(cba#0[0]*cbb#0[{}]+cba#0[1]*cbb#0[{}],cbc#0[{}])", j, 4 + j,
                                 j);
            }));
}

// --- The examples --------------------------------------------------------------------------------

struct ExampleCase {
  std::string file;
  int64_t items;     ///< work items run (work_count), or 0 for kernels without a work loop
  std::string outCb; ///< the CB the compute thread stores into
};

/// The examples whose chains are not split (softmax_row has its own test below).
std::vector<ExampleCase> examples() {
  return {{"eltwise_add.ttl", 2, "cbc"},        {"eltwise_bcast_scalar.ttl", 2, "cbc"},
          {"matmul_single_core.ttl", 0, "cbc"}, {"matmul_multicore.ttl", 2, "cbc"},
          {"matmul_mcast_2d.ttl", 0, "cbc"},    {"matmul_template.ttl", 2, "cbc"}};
}

TEST(LowerCompute, ExamplesLowerAndMeanWhatTheySay) {
  for (const ExampleCase& e : examples()) {
    SCOPED_TRACE(e.file);
    auto l = lower("", kSource + "/examples/" + e.file, kUpToExpand);
    ASSERT_TRUE(l->ok) << l->errors();
    ir::Operation* func = computeFunc(*l->module);
    ASSERT_TRUE(func);
    // Before lowering: each store's plan and block, for the counts below.
    struct StoreFacts {
      int64_t B, C, h, w, K = 0;
    };
    std::vector<StoreFacts> stores;
    func->walk([&](ir::Operation* op) {
      if (!ir::StoreOp::dyn(op)) return;
      std::vector<int64_t> sub;
      ASSERT_TRUE(op->attribute("ttl.dst_subblock").getIntegers(sub));
      ir::Type t = ir::StoreOp(op).view()->type();
      StoreFacts f{t.shape()[0].value, t.shape()[1].value, sub[0], sub[1]};
      if (auto mm = ir::MatmulOp::dyn(ir::StoreOp(op).value()->definingOp()))
        f.K = mm->lhs()->type().shape()[1].value;
      stores.push_back(f);
    });
    ASSERT_EQ(stores.size(), 1u);
    const StoreFacts& f = stores[0];
    ASSERT_TRUE(runMore(*l, "lower-compute")) << l->errors();

    // Structure: nothing of the chain is left; the CB ops stay, their views unused.
    std::string printed = ir::print(*func);
    func->walk([&](ir::Operation* op) {
      EXPECT_FALSE(isComputeChainOp(op)) << op->name();
      EXPECT_FALSE(op->isa("ttl.store"));
      if (op->isa("ttl.cb_wait") || op->isa("ttl.cb_reserve")) {
        EXPECT_FALSE(ir::hasUses(func, op->result(0))) << printed;
      }
    });
    // The matmul_tiles of one round sit in one block: h*w*K of them.
    if (f.K > 0) {
      std::map<ir::Block*, int64_t> perBlock;
      func->walk([&](ir::Operation* op) {
        if (op->isa("ttkernel.matmul_tiles")) perBlock[op->parentBlock()] += 1;
      });
      ASSERT_EQ(perBlock.size(), 1u);
      EXPECT_EQ(perBlock.begin()->second, f.h * f.w * f.K);
    }
    // The printed func parses back.
    ir::DiagnosticEngine diags;
    EXPECT_TRUE(ir::parseSource(ir::print(*l->module), "printed.ttl", diags))
        << ir::format(diags.diagnostics());

    // Execution: phases, inits, DST bounds; every pushed block is fully written. A matmul chain
    // instance (one mm_init_short each, the chain being a single matmul) makes B*C*K matmul_tiles
    // and packs B*C tiles; each pushed accumulated block was zeroed once (B*C fills, each packed).
    Machine m(8, {{"work_start", 0}, {"work_count", e.items}});
    m.runFunc(func);
    EXPECT_TRUE(m.failures.empty()) << ::testing::PrintToString(m.failures) << printed;
    const auto& blocks = m.pushed[e.outCb];
    ASSERT_FALSE(blocks.empty());
    for (const auto& block : blocks)
      EXPECT_EQ(static_cast<int64_t>(block.size()), f.B * f.C);
    const int64_t pushedTiles = static_cast<int64_t>(blocks.size()) * f.B * f.C;
    if (f.K > 0) {
      EXPECT_EQ(m.calls["mm_init"], 1);
      EXPECT_GT(m.calls["mm_init_short"], 0);
      EXPECT_EQ(m.calls["matmul_tiles"], m.calls["mm_init_short"] * f.B * f.C * f.K);
      EXPECT_EQ(m.calls["fill_tile"], pushedTiles);
      EXPECT_EQ(m.calls["pack_tile"], m.calls["mm_init_short"] * f.B * f.C + m.calls["fill_tile"]);
    } else {
      EXPECT_EQ(m.calls["pack_tile"], pushedTiles);
    }
  }
}

TEST(LowerCompute, EltwiseExamplesComputeTheirExpression) {
  {
    auto l = lower("", kSource + "/examples/eltwise_add.ttl",
                   std::string(kUpToExpand) + ",lower-compute");
    ASSERT_TRUE(l->ok) << l->errors();
    Machine m(8, {{"work_start", 0}, {"work_count", 3}});
    m.runFunc(computeFunc(*l->module));
    EXPECT_TRUE(m.failures.empty()) << ::testing::PrintToString(m.failures);
    ASSERT_EQ(m.pushed["cbc"].size(), 3u);
    for (int w = 0; w < 3; ++w)
      EXPECT_EQ(m.pushed["cbc"][w], expectedBlock(2, 1, [&](int i, int) {
                  return fmt::format("add(cba#{0}[{1}],cbb#{0}[{1}])", w, i);
                }));
  }
  {
    auto l = lower("", kSource + "/examples/eltwise_bcast_scalar.ttl",
                   std::string(kUpToExpand) + ",lower-compute");
    ASSERT_TRUE(l->ok) << l->errors();
    Machine m(8, {{"work_start", 0}, {"work_count", 2}});
    m.runFunc(computeFunc(*l->module));
    EXPECT_TRUE(m.failures.empty()) << ::testing::PrintToString(m.failures);
    ASSERT_EQ(m.pushed["cbc"].size(), 2u);
    for (int w = 0; w < 2; ++w)
      EXPECT_EQ(m.pushed["cbc"][w], expectedBlock(2, 1, [&](int i, int) {
                  return fmt::format("mul(cba#{}[{}],bcastSCALAR(cbs#0[0]))", w, i);
                }));
  }
}

TEST(LowerCompute, MatmulSingleCoreExampleAccumulatesEveryK) {
  auto l = lower("", kSource + "/examples/matmul_single_core.ttl",
                 std::string(kUpToExpand) + ",lower-compute");
  ASSERT_TRUE(l->ok) << l->errors();
  Machine m(8);
  m.runFunc(computeFunc(*l->module));
  EXPECT_TRUE(m.failures.empty()) << ::testing::PrintToString(m.failures);
  // 4 x 4 output blocks of 2x2 tiles, each the sum over 8 steps of a 2x1 A block times a 1x2 B
  // block; the A and B CBs advance one block per step.
  ASSERT_EQ(m.pushed["cbc"].size(), 16u);
  for (int block = 0; block < 16; ++block)
    EXPECT_EQ(m.pushed["cbc"][block], expectedBlock(2, 2, [&](int i, int j) {
                std::string sum;
                for (int k = 0; k < 8; ++k) {
                  int g = block * 8 + k;
                  sum += fmt::format("{}cba#{}[{}]*cbb#{}[{}]", k ? "+" : "", g, i, g, j);
                }
                return sum;
              }));
  EXPECT_EQ(m.calls["matmul_tiles"], 16 * 8 * 4);
}

// --- infer-dst -----------------------------------------------------------------------------------

TEST(InferDst, WritesThePlannersSlotsAndSubblock) {
  auto l =
      lower("", kSource + "/examples/eltwise_bcast_scalar.ttl", "verify,plan,apply-plan,infer-dst");
  ASSERT_TRUE(l->ok) << l->errors();
  const KernelPlan& plan = l->context->plan->kernels.at(0);
  ASSERT_EQ(plan.chains.size(), 1u);
  const planner::dst::Segment& s = plan.chains[0].solution.segments.at(0);
  ir::Operation* store = nullptr;
  std::vector<ir::Operation*> chainOps;
  l->module->op->walk([&](ir::Operation* op) {
    if (op->isa("ttl.store")) store = op;
    if (op->isa("ttl.bcast") || op->isa("ttl.mul")) chainOps.push_back(op);
  });
  ASSERT_TRUE(store);
  std::vector<int64_t> sub, inputs;
  ASSERT_TRUE(store->attribute("ttl.dst_subblock").getIntegers(sub));
  EXPECT_EQ(sub, (std::vector<int64_t>{s.subblockRows, s.subblockCols}));
  // Value ids (ExtractDst): %sv 0, %sb 1, %x 2, %m 3. Inputs in id order: %sv, %x.
  ASSERT_TRUE(store->attribute("ttl.dst_inputs").getIntegers(inputs));
  EXPECT_EQ(inputs, (std::vector<int64_t>{s.slots[0], s.slots[2]}));
  ASSERT_EQ(chainOps.size(), 2u);
  EXPECT_EQ(chainOps[0]->attribute("dst_idx").intValue(), s.slots[1]);
  EXPECT_EQ(chainOps[1]->attribute("dst_idx").intValue(), s.slots[3]);
  // Live together: %x and %sb at the mul; the product may reuse one of them.
  EXPECT_NE(s.slots[1], s.slots[2]);
}

TEST(InferDst, ChainOrderMatchesThePlannerNumbering) {
  for (const ExampleCase& e : examples()) {
    SCOPED_TRACE(e.file);
    auto l = lower("", kSource + "/examples/" + e.file, "verify");
    ASSERT_TRUE(l->ok);
    ir::Operation* kernel = l->module->topLevel("ttl.kernel").at(0);
    Expected<std::vector<ChainInfo>> infos = extractChains(kernel, {}, l->device);
    if (!infos) {
      // Knobs: bind the first legal binding as the planner does.
      Expected<ChosenBinding> b = chooseBinding(*l->module, std::nullopt);
      ASSERT_TRUE(b);
      infos = extractChains(kernel, b->binding, l->device);
    }
    ASSERT_TRUE(infos) << infos.error().message;
    std::vector<ComputeChain> chains = findComputeChains(kernel);
    ASSERT_EQ(chains.size(), infos->size());
    for (size_t c = 0; c < chains.size(); ++c) {
      EXPECT_EQ(chains[c].ops, (*infos)[c].ops);
      // The planner's input ids, in increasing order, name our inputs in our order.
      const planner::dst::Chain& pc = (*infos)[c].problem.chain;
      std::set<planner::dst::ValueId> computed;
      for (const auto& op : pc.ops)
        computed.insert(op.output);
      std::map<planner::dst::ValueId, const ir::Value*> byId;
      for (size_t i = 0; i < pc.ops.size(); ++i)
        for (size_t k = 0; k < pc.ops[i].inputs.size(); ++k)
          if (!computed.count(pc.ops[i].inputs[k]))
            byId[pc.ops[i].inputs[k]] = (*infos)[c].ops[i]->operand(k);
      std::vector<const ir::Value*> ordered;
      for (const auto& [id, v] : byId)
        ordered.push_back(v);
      EXPECT_EQ(std::vector<const ir::Value*>(chains[c].inputs.begin(), chains[c].inputs.end()),
                ordered);
    }
  }
}

// --- What is not supported says so --------------------------------------------------------------

// --- Reductions and split chains
// ------------------------------------------------------------------

TEST(LowerCompute, SoftmaxExampleComputesItsExpression) {
  // The chain is cut before the bcast of the row maximum, the reduce_sum of e and the bcast of
  // 1/sum: m, e and 1/sum go through intermediate CBs (popped after the store), e is read twice.
  auto l =
      lower("", kSource + "/examples/softmax_row.ttl", std::string(kUpToExpand) + ",lower-compute");
  ASSERT_TRUE(l->ok) << l->errors();
  ir::Operation* func = computeFunc(*l->module);
  ASSERT_TRUE(func);
  Machine m(8, {{"work_start", 0}, {"work_count", 2}});
  m.runFunc(func);
  EXPECT_TRUE(m.failures.empty()) << ::testing::PrintToString(m.failures) << ir::print(*func);
  ASSERT_EQ(m.pushed["cby"].size(), 2u);
  for (int w = 0; w < 2; ++w) {
    auto x = [&](int j) { return fmt::format("cbx#{}[{}]", w, j); };
    std::string mx = "maxROW(";
    for (int j = 0; j < 8; ++j)
      mx += (j ? "," : "") + x(j);
    mx += ")";
    auto e = [&](int j) { return fmt::format("exp(sub({},bcastCOL({})))", x(j), mx); };
    std::string sum = "sumROW(";
    for (int j = 0; j < 8; ++j)
      sum += (j ? "," : "") + e(j);
    sum += ")";
    EXPECT_EQ(m.pushed["cby"][static_cast<size_t>(w)], expectedBlock(1, 8, [&](int, int j) {
                return fmt::format("mul({},bcastCOL(recip({})))", e(j), sum);
              }));
  }
  // One block per work item through each intermediate CB; 8 reduce_tile per reduction.
  EXPECT_EQ(m.pushed["split0_1"].size(), 2u);
  EXPECT_EQ(m.pushed["split0_4"].size(), 2u);
  EXPECT_EQ(m.pushed["split0_6"].size(), 2u);
  EXPECT_EQ(m.calls["reduce_tile"], 2 * 16);
  EXPECT_EQ(m.calls["fill_tile"], 2); // -inf before each row maximum
}

TEST(LowerCompute, ReductionsOverRowsColumnsAndTheWholeBlock) {
  auto list = [](const std::string& head, const std::vector<int>& tiles) {
    std::string out = head + "(";
    for (size_t k = 0; k < tiles.size(); ++k)
      out += fmt::format("{}cba#0[{}]", k ? "," : "", tiles[k]);
    return out + ")";
  };
  {
    // dims [1] of 4x3: each output tile row i reduces tiles 3i..3i+2 (REDUCE_ROW).
    Machine m = execute(computeKernel("reduce_sum_rows"), 8);
    ASSERT_EQ(m.pushed["cbo"].size(), 1u);
    EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(4, 1, [&](int i, int) {
                return list("sumROW", {3 * i, 3 * i + 1, 3 * i + 2});
              }));
    EXPECT_EQ(m.calls["fill_tile"], 0); // a sum starts from the zeroed register
  }
  {
    // dims [0] of 2x3: output column j reduces tiles j, 3+j (REDUCE_COL), starting from -inf.
    Machine m = execute(computeKernel("reduce_max_cols"), 8);
    ASSERT_EQ(m.pushed["cbo"].size(), 1u);
    EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 3, [&](int, int j) {
                return list("maxCOL", {j, 3 + j});
              }));
    EXPECT_EQ(m.calls["fill_tile"], 3);
  }
  {
    // dims [0, 1] of 2x2: everything into one tile (REDUCE_SCALAR).
    Machine m = execute(computeKernel("reduce_sum_all"), 8);
    ASSERT_EQ(m.pushed["cbo"].size(), 1u);
    EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 1, [&](int, int) {
                return list("sumSCALAR", {0, 1, 2, 3});
              }));
  }
}

TEST(LowerCompute, ChainsTooLongForDstGoThroughIntermediateCbs) {
  // Nine unary results of x all live at the final sums: more than 8 DST tiles even at 1x1, so
  // the planner splits the chain; the values that cross the cut are packed into their CBs (one
  // segment packing several values: its stores share a ttl.dst_group) and read back.
  std::string path = computeKernel("long_chain");
  auto up = lower("", path, "verify,plan,apply-plan,infer-dst");
  ASSERT_TRUE(up->ok) << up->errors();
  const auto& solution = up->context->plan->kernels[0].chains[0].solution;
  ASSERT_GT(solution.segments.size(), 1u);
  ASSERT_GT(solution.intermediates.size(), 1u);
  int grouped = 0;
  up->module->op->walk([&](ir::Operation* op) { grouped += op->hasAttribute("ttl.dst_group"); });
  EXPECT_GT(grouped, 1) << ir::print(*up->module->op);
  Machine m = execute(path, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  std::string sum = "add(exp(cba#0[0]),log(cba#0[0]))";
  const char* names[] = {"exp", "log", "sqrt", "rsqrt", "recip", "relu", "gelu", "sigmoid", "tanh"};
  for (int i = 2; i < 9; ++i)
    sum = fmt::format("add({},{}(cba#0[0]))", sum, names[i]);
  EXPECT_EQ(m.pushed["cbo"][0], (std::map<int64_t, std::string>{{0, sum}}));
}

TEST(LowerCompute, BroadcastOfAComputedValueGoesThroughACb) {
  std::string path = computeKernel("bcast_of_exp");
  Machine m = execute(path, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0],
            expectedBlock(1, 2, [](int, int) { return std::string("bcastCOL(exp(cba#0[0]))"); }));
}

TEST(LowerCompute, MatmulOfAComputedOperandReadsItsCb) {
  // e = exp(a) (1x2), c = e x b (2x3): e is packed into a 1x2 CB, the matmul streams it.
  std::string path = computeKernel("matmul_of_exp");
  Machine m = execute(path, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 3, [](int, int j) {
              return fmt::format("exp(cba#0[0])*cbb#0[{}]+exp(cba#0[1])*cbb#0[{}]", j, 3 + j);
            }));
}

TEST(LowerCompute, OneSegmentPacksTwoValuesInOneRound) {
  // a = exp(x), b = relu(x) (1x1) both cross the cut before their bcasts: one segment, two
  // stores sharing ttl.dst_group, lowered as one chain with two packs.
  std::string path = computeKernel("two_packs");
  std::string printed;
  Machine m = execute(path, 8, &printed);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 2, [](int, int) {
              return std::string("add(bcastCOL(exp(cba#0[0])),bcastCOL(relu(cba#0[0])))");
            }));
  // Both packs of the first segment in one acquire/commit round: 2 rounds in all.
  EXPECT_EQ(m.calls["tile_regs_acquire"], 2) << printed;
}

TEST(LowerCompute, PopBeforeTheStoreIsRefused) {
  std::string path = computeKernel("pop_before_store");
  auto l = lower("", path, std::string(kUpToExpand) + ",lower-compute");
  EXPECT_FALSE(l->ok);
  EXPECT_NE(l->errors().find("ttl.cb_pop of %cba comes before the ttl.store"), std::string::npos)
      << l->errors();
}

TEST(LowerCompute, ACbOperandComputedInTheChainIsRefused) {
  // IR that no plan produced: the cut infer-dst made before softmax's first bcast is undone by
  // hand (the bcast reads the row maximum itself again), so lower-compute sees a bcast of a value
  // its chain computes.
  auto l = lower("", kSource + "/examples/softmax_row.ttl", kUpToExpand);
  ASSERT_TRUE(l->ok) << l->errors();
  ir::Operation* func = computeFunc(*l->module);
  ir::Value* mx = nullptr;
  ir::Operation* bcast = nullptr;
  func->walk([&](ir::Operation* op) {
    if (op->isa("ttl.reduce_max")) mx = op->result(0);
    if (op->isa("ttl.bcast") && !bcast) bcast = op;
  });
  ASSERT_TRUE(mx && bcast);
  bcast->setOperand(0, mx);
  EXPECT_FALSE(runMore(*l, "lower-compute"));
  EXPECT_NE(l->errors().find("softmax_row.ttl:42:16: error: ttl.bcast reads a value computed in "
                             "its chain"),
            std::string::npos)
      << l->errors();
}

TEST(LowerCompute, WithoutInferDstSaysWhatToRun) {
  auto l = lower("", kSource + "/examples/eltwise_add.ttl",
                 "verify,plan,apply-plan,expand-threads,lower-compute");
  EXPECT_FALSE(l->ok);
  EXPECT_NE(l->errors().find("run `infer-dst` before `lower-compute`"), std::string::npos)
      << l->errors();
}

} // namespace
} // namespace ttlplan::lower
