// infer-dst and lower-compute. The lowered compute funcs are executed by a small symbolic
// machine (below) that follows the contract of docs/emulator.md: DST phases (acquire / commit /
// wait / release), inits, DST capacity, CB fronts that advance on ttl.cb_pop and back blocks that
// are handed over on ttl.cb_push. Every tile it packs is an expression over the CB tiles it read
// ("add(cba#0[1],cbb#0[1])"), compared with what the TTL program means, computed here
// independently of the pass.
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
    "verify,infer-pipe-semaphores,insert-sync,plan,apply-plan,infer-dst,expand-threads";

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
    } else if (fn == "reduce_init") {
      init_ = fmt::format("reduce_init:{}:{}:{}", op->attribute("pool").stringValue(),
                          op->attribute("reduce_dim").stringValue(), cbName(op->operand(0)));
    } else if (fn == "reduce_uninit") {
      if (!init_.starts_with("reduce_init:")) fail("reduce_uninit without reduce_init");
      init_.clear();
    } else if (fn == "reduce_tile") {
      const std::string pool = op->attribute("pool").stringValue();
      const std::string dim = op->attribute("reduce_dim").stringValue();
      math(fn, fmt::format("reduce_init:{}:{}:{}", pool, dim, cbName(op->operand(0))));
      // "sumROW(t0,t1,...)": the tiles reduced into the register, in order.
      std::string& d = reg(arg(2), fn);
      const std::string head = fmt::format("{}{}(", pool == "MAX" ? "max" : "sum",
                                           dim.substr(std::string("REDUCE_").size()));
      const std::string t = tile(op->operand(0), arg(1));
      if (pool == "MAX" && d == "0")
        fail("reduce_tile MAX into a register that holds 0, not -inf: rows of negative values "
             "would reduce to 0");
      if (d == "0" || d == "-inf")
        d = head + t + ")";
      else if (d.starts_with(head))
        d = d.substr(0, d.size() - 1) + "," + t + ")";
      else
        fail("reduce_tile into a register that holds " + d);
    } else if (fn == "mm_init") {
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
      if (phase_ != Phase::Math) fail("copy_dest_values without tile_regs_acquire");
      std::string in = reg(arg(1), fn);
      reg(arg(0), fn) = in;
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

/// A one-core kernel: the reader fills each input CB once from its own DRAM tensor, the compute
/// thread runs `compute`, the writer drains `%cbo` once. `inputs` are (name, rows, cols) in tiles.
std::string kernel(const std::vector<std::tuple<std::string, int, int>>& inputs, int outRows,
                   int outCols, const std::string& compute, const std::string& dtype = "bf16",
                   int inputSteps = 1) {
  std::string args, cbs, reader;
  auto tensor = [&](int r, int c) {
    return fmt::format("tensor<{}x{}x{}, #dram>", 32 * r, 32 * c, dtype);
  };
  auto block = [&](int r, int c) { return fmt::format("tensor<{}x{}x!tile>", r, c); };
  auto cbType = [&](int r, int c) { return fmt::format("!ttl.cb<[{}, {}], !tile, 2>", r, c); };
  for (const auto& [name, r, c] : inputs) {
    args += fmt::format("%t{}: {}, ", name, tensor(r, c));
    cbs += fmt::format("    %{} = ttl.create_cb : {}\n", name, cbType(r, c));
    reader += fmt::format(
        "      scf.for %k{0} = %c0 to %steps step %c1 {{\n"
        "        %v{0} = ttl.cb_reserve %{0} : {1} -> {2}\n"
        "        %s{0} = ttl.tensor_slice %t{0}[%c0, %c0] : {3} -> {2}\n"
        "        %x{0} = ttl.copy %s{0}, %v{0} : ({2}, {2}) -> !ttl.transfer_handle<read>\n"
        "        ttl.wait %x{0} : !ttl.transfer_handle<read>\n"
        "        ttl.cb_push %{0} : {1}\n"
        "      }}\n",
        name, cbType(r, c), block(r, c), tensor(r, c));
  }
  return fmt::format("!tile = !ttcore.tile<32x32, {0}>\n"
                     "#dram = #ttl.layout<dram, interleaved>\n"
                     "module {{\n"
                     "  ttl.kernel @k({1}%out: {2}) attributes {{grid = [1, 1]}} {{\n"
                     "{3}"
                     "    %cbo = ttl.create_cb : {4}\n"
                     "    ttl.datamovement_thread {{\n"
                     "      %c0 = arith.constant 0 : index\n"
                     "      %c1 = arith.constant 1 : index\n"
                     "      %steps = arith.constant {8} : index\n"
                     "{5}"
                     "    }}\n"
                     "    ttl.compute_thread {{\n"
                     "{6}"
                     "    }}\n"
                     "    ttl.datamovement_thread {{\n"
                     "      %c0 = arith.constant 0 : index\n"
                     "      %o = ttl.cb_wait %cbo : {4} -> {7}\n"
                     "      %so = ttl.tensor_slice %out[%c0, %c0] : {2} -> {7}\n"
                     "      %xo = ttl.copy %o, %so : ({7}, {7}) -> !ttl.transfer_handle<write>\n"
                     "      ttl.wait %xo : !ttl.transfer_handle<write>\n"
                     "      ttl.cb_pop %cbo : {4}\n"
                     "    }}\n"
                     "  }}\n"
                     "}}\n",
                     dtype, args, tensor(outRows, outCols), cbs, cbType(outRows, outCols), reader,
                     compute, block(outRows, outCols), inputSteps);
}

/// Lowers `source` through lower-compute and executes the compute func; returns the machine.
Machine execute(const std::string& source, int64_t capacity, std::string* printed = nullptr) {
  auto l = lower(source, "", std::string(kUpToExpand) + ",lower-compute");
  Machine m(capacity, {{"work_start", 0}, {"work_count", 2}});
  EXPECT_TRUE(l->ok) << l->errors() << source;
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
  std::string src =
      kernel({{"cba", 2, 2}, {"cbb", 2, 2}}, 2, 2,
             "      %x = ttl.cb_wait %cba : !ttl.cb<[2, 2], !tile, 2> -> tensor<2x2x!tile>\n"
             "      %y = ttl.cb_wait %cbb : !ttl.cb<[2, 2], !tile, 2> -> tensor<2x2x!tile>\n"
             "      %o = ttl.cb_reserve %cbo : !ttl.cb<[2, 2], !tile, 2> -> tensor<2x2x!tile>\n"
             "      %s = ttl.add %x, %y : tensor<2x2x!tile>\n"
             "      ttl.store %s, %o : tensor<2x2x!tile>\n"
             "      ttl.cb_push %cbo : !ttl.cb<[2, 2], !tile, 2>\n"
             "      ttl.cb_pop %cba : !ttl.cb<[2, 2], !tile, 2>\n"
             "      ttl.cb_pop %cbb : !ttl.cb<[2, 2], !tile, 2>\n");
  std::string printed;
  Machine m = execute(src, 8, &printed);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(2, 2, [](int i, int j) {
              return fmt::format("add(cba#0[{0}],cbb#0[{0}])", i * 2 + j);
            }));
  EXPECT_EQ(m.calls["tile_regs_acquire"], 1); // one round: no loop
  EXPECT_EQ(printed.find("scf.for"), std::string::npos);
}

TEST(LowerCompute, RoundsLoopOverSubblocksOfALargeBlock) {
  // 4x4 bf16 add: 2 slots leave 4 tiles per slot; the widest sub-block is 1x4, 4 rounds in a loop.
  std::string blk = "tensor<4x4x!tile>", cb = "!ttl.cb<[4, 4], !tile, 2>";
  std::string src = kernel({{"cba", 4, 4}, {"cbb", 4, 4}}, 4, 4,
                           fmt::format("      %x = ttl.cb_wait %cba : {1} -> {0}\n"
                                       "      %y = ttl.cb_wait %cbb : {1} -> {0}\n"
                                       "      %o = ttl.cb_reserve %cbo : {1} -> {0}\n"
                                       "      %s = ttl.sub %x, %y : {0}\n"
                                       "      ttl.store %s, %o : {0}\n"
                                       "      ttl.cb_push %cbo : {1}\n"
                                       "      ttl.cb_pop %cba : {1}\n"
                                       "      ttl.cb_pop %cbb : {1}\n",
                                       blk, cb));
  std::string printed;
  Machine m = execute(src, 8, &printed);
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
  std::string blk = "tensor<2x4x!tile>", cb = "!ttl.cb<[2, 4], !tile, 2>";
  std::string src = kernel({{"cba", 2, 4}, {"cbb", 2, 4}}, 2, 4,
                           fmt::format("      %x = ttl.cb_wait %cba : {1} -> {0}\n"
                                       "      %y = ttl.cb_wait %cbb : {1} -> {0}\n"
                                       "      %o = ttl.cb_reserve %cbo : {1} -> {0}\n"
                                       "      %s = ttl.max %x, %y : {0}\n"
                                       "      ttl.store %s, %o : {0}\n"
                                       "      ttl.cb_push %cbo : {1}\n"
                                       "      ttl.cb_pop %cba : {1}\n"
                                       "      ttl.cb_pop %cbb : {1}\n",
                                       blk, cb),
                           "f32");
  Machine m = execute(src, 4);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(2, 4, [](int i, int j) {
              return fmt::format("max(cba#0[{0}],cbb#0[{0}])", i * 4 + j);
            }));
  EXPECT_EQ(m.calls["tile_regs_acquire"], 4);
}

TEST(LowerCompute, SlotReuseKeepsLiveValues) {
  // e = exp(x); m = e * y; r = m - x: x stays live to the end, y is unpacked only at the mul
  // (it may take a slot freed before). 3 values live at the mul: 2 tiles per slot, 1x2 sub-block.
  std::string blk = "tensor<2x2x!tile>", cb = "!ttl.cb<[2, 2], !tile, 2>";
  std::string src = kernel({{"cba", 2, 2}, {"cbb", 2, 2}}, 2, 2,
                           fmt::format("      %x = ttl.cb_wait %cba : {1} -> {0}\n"
                                       "      %y = ttl.cb_wait %cbb : {1} -> {0}\n"
                                       "      %o = ttl.cb_reserve %cbo : {1} -> {0}\n"
                                       "      %e = ttl.exp %x : {0}\n"
                                       "      %m = ttl.mul %e, %y : {0}\n"
                                       "      %n = ttl.neg %m : {0}\n"
                                       "      %r = ttl.sub %n, %x : {0}\n"
                                       "      ttl.store %r, %o : {0}\n"
                                       "      ttl.cb_push %cbo : {1}\n"
                                       "      ttl.cb_pop %cba : {1}\n"
                                       "      ttl.cb_pop %cbb : {1}\n",
                                       blk, cb));
  Machine m = execute(src, 8);
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
  std::string blk = "tensor<1x2x!tile>", cb = "!ttl.cb<[1, 2], !tile, 2>";
  std::string src = kernel({{"cba", 1, 2}, {"cbb", 1, 2}}, 1, 2,
                           fmt::format("      %x = ttl.cb_wait %cba : {1} -> {0}\n"
                                       "      %y = ttl.cb_wait %cbb : {1} -> {0}\n"
                                       "      %o = ttl.cb_reserve %cbo : {1} -> {0}\n"
                                       "      %a = ttl.exp %x : {0}\n"
                                       "      %b = ttl.exp %x : {0}\n"
                                       "      %c = ttl.add %a, %b : {0}\n"
                                       "      %d = ttl.add %c, %y : {0}\n"
                                       "      ttl.store %d, %o : {0}\n"
                                       "      ttl.cb_push %cbo : {1}\n"
                                       "      ttl.cb_pop %cba : {1}\n"
                                       "      ttl.cb_pop %cbb : {1}\n",
                                       blk, cb));
  auto annotated = lower(src, "", "verify,plan,apply-plan,infer-dst");
  ASSERT_TRUE(annotated->ok) << annotated->errors();
  int64_t slotOfA = -1;
  std::vector<int64_t> inputs;
  annotated->module->op->walk([&](ir::Operation* op) {
    if (op->isa("ttl.exp") && slotOfA < 0) slotOfA = op->attribute("dst_idx").intValue();
    if (op->isa("ttl.store")) (void)op->attribute("ttl.dst_inputs").getIntegers(inputs);
  });
  ASSERT_EQ(inputs.size(), 2u); // %x, %y
  EXPECT_EQ(inputs[1], slotOfA) << "the plan no longer reuses a's slot for y";
  Machine m = execute(src, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 2, [](int, int j) {
              return fmt::format("add(add(exp(cba#0[{0}]),exp(cba#0[{0}])),cbb#0[{0}])", j);
            }));
}

TEST(LowerCompute, BroadcastsReadTheRightInputTile) {
  // Column 0 of a 2x1 block (COL), row 0 of a 1x3 block (ROW) and element (0, 0) of a 1x1 block
  // (SCALAR) over a 2x3 block.
  std::string blk = "tensor<2x3x!tile>";
  auto cb = [](int r, int c) { return fmt::format("!ttl.cb<[{}, {}], !tile, 2>", r, c); };
  std::string src =
      kernel({{"cbc", 2, 1}, {"cbr", 1, 3}, {"cbs", 1, 1}}, 2, 3,
             fmt::format("      %c = ttl.cb_wait %cbc : {1} -> tensor<2x1x!tile>\n"
                         "      %r = ttl.cb_wait %cbr : {2} -> tensor<1x3x!tile>\n"
                         "      %s = ttl.cb_wait %cbs : {3} -> tensor<1x1x!tile>\n"
                         "      %o = ttl.cb_reserve %cbo : {4} -> {0}\n"
                         "      %bc = ttl.bcast %c {{dims = [1]}} : tensor<2x1x!tile> -> {0}\n"
                         "      %br = ttl.bcast %r {{dims = [0]}} : tensor<1x3x!tile> -> {0}\n"
                         "      %bs = ttl.bcast %s {{dims = [0, 1]}} : tensor<1x1x!tile> -> {0}\n"
                         "      %a = ttl.add %bc, %br : {0}\n"
                         "      %m = ttl.mul %a, %bs : {0}\n"
                         "      ttl.store %m, %o : {0}\n"
                         "      ttl.cb_push %cbo : {4}\n"
                         "      ttl.cb_pop %cbc : {1}\n"
                         "      ttl.cb_pop %cbr : {2}\n"
                         "      ttl.cb_pop %cbs : {3}\n",
                         blk, cb(2, 1), cb(1, 3), cb(1, 1), cb(2, 3)));
  Machine m = execute(src, 8);
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
  auto cb = [](int r, int c) { return fmt::format("!ttl.cb<[{}, {}], !tile, 2>", r, c); };
  std::string src = kernel({{"cba", 2, 3}, {"cbb", 3, 2}}, 2, 2,
                           fmt::format("      %c0 = arith.constant 0 : index\n"
                                       "      %c1 = arith.constant 1 : index\n"
                                       "      %c3 = arith.constant 3 : index\n"
                                       "      %o = ttl.cb_reserve %cbo : {2} -> tensor<2x2x!tile>\n"
                                       "      scf.for %k = %c0 to %c3 step %c1 {{\n"
                                       "        %a = ttl.cb_wait %cba : {0} -> tensor<2x3x!tile>\n"
                                       "        %b = ttl.cb_wait %cbb : {1} -> tensor<3x2x!tile>\n"
                                       "        %m = ttl.matmul %a, %b : tensor<2x3x!tile>, "
                                       "tensor<3x2x!tile> -> tensor<2x2x!tile>\n"
                                       "        ttl.store %m, %o {{accumulate = true}} : "
                                       "tensor<2x2x!tile>\n"
                                       "        ttl.cb_pop %cba : {0}\n"
                                       "        ttl.cb_pop %cbb : {1}\n"
                                       "      }}\n"
                                       "      ttl.cb_push %cbo : {2}\n",
                                       cb(2, 3), cb(3, 2), cb(2, 2)),
                           "bf16", 3);
  std::string printed;
  Machine m = execute(src, 8, &printed);
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
  EXPECT_EQ(m.calls["mm_init"], 3); // once per lowered chain instance, before its rounds
}

TEST(LowerCompute, MatmulPlusBiasReinitsPerRound) {
  // m = A x B (1x2 x 2x4), r = m + bias: the bias is unpacked after the matmul, into another slot;
  // 2 slots of 4 tiles: sub-block 1x4, one round.
  auto cb = [](int r, int c) { return fmt::format("!ttl.cb<[{}, {}], !tile, 2>", r, c); };
  std::string src = kernel({{"cba", 1, 2}, {"cbb", 2, 4}, {"cbc", 1, 4}}, 1, 4,
                           fmt::format("      %a = ttl.cb_wait %cba : {0} -> tensor<1x2x!tile>\n"
                                       "      %b = ttl.cb_wait %cbb : {1} -> tensor<2x4x!tile>\n"
                                       "      %c = ttl.cb_wait %cbc : {2} -> tensor<1x4x!tile>\n"
                                       "      %o = ttl.cb_reserve %cbo : {2} -> tensor<1x4x!tile>\n"
                                       "      %m = ttl.matmul %a, %b : tensor<1x2x!tile>, "
                                       "tensor<2x4x!tile> -> tensor<1x4x!tile>\n"
                                       "      %r = ttl.add %m, %c : tensor<1x4x!tile>\n"
                                       "      ttl.store %r, %o : tensor<1x4x!tile>\n"
                                       "      ttl.cb_push %cbo : {2}\n"
                                       "      ttl.cb_pop %cba : {0}\n"
                                       "      ttl.cb_pop %cbb : {1}\n"
                                       "      ttl.cb_pop %cbc : {2}\n",
                                       cb(1, 2), cb(2, 4), cb(1, 4)));
  Machine m = execute(src, 8);
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
    // instance (one mm_init each, the chain being a single matmul) makes B*C*K matmul_tiles and
    // packs B*C tiles; each pushed accumulated block was zeroed once (B*C fills, each packed).
    Machine m(8, {{"work_start", 0}, {"work_count", e.items}});
    m.runFunc(func);
    EXPECT_TRUE(m.failures.empty()) << ::testing::PrintToString(m.failures) << printed;
    const auto& blocks = m.pushed[e.outCb];
    ASSERT_FALSE(blocks.empty());
    for (const auto& block : blocks)
      EXPECT_EQ(static_cast<int64_t>(block.size()), f.B * f.C);
    const int64_t pushedTiles = static_cast<int64_t>(blocks.size()) * f.B * f.C;
    if (f.K > 0) {
      EXPECT_GT(m.calls["mm_init"], 0);
      EXPECT_EQ(m.calls["matmul_tiles"], m.calls["mm_init"] * f.B * f.C * f.K);
      EXPECT_EQ(m.calls["fill_tile"], pushedTiles);
      EXPECT_EQ(m.calls["pack_tile"], m.calls["mm_init"] * f.B * f.C + m.calls["fill_tile"]);
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

/// A one-input chain `op` over a rows x cols view into an outRows x outCols block.
std::string reduceKernel(const std::string& op, int rows, int cols, int outRows, int outCols) {
  std::string in = fmt::format("tensor<{}x{}x!tile>", rows, cols);
  std::string out = fmt::format("tensor<{}x{}x!tile>", outRows, outCols);
  std::string cbIn = fmt::format("!ttl.cb<[{}, {}], !tile, 2>", rows, cols);
  std::string cbOut = fmt::format("!ttl.cb<[{}, {}], !tile, 2>", outRows, outCols);
  return kernel({{"cba", rows, cols}}, outRows, outCols,
                fmt::format("      %x = ttl.cb_wait %cba : {0} -> {1}\n"
                            "      %o = ttl.cb_reserve %cbo : {2} -> {3}\n"
                            "      %r = {4} : {1} -> {3}\n"
                            "      ttl.store %r, %o : {3}\n"
                            "      ttl.cb_push %cbo : {2}\n"
                            "      ttl.cb_pop %cba : {0}\n",
                            cbIn, in, cbOut, out, op));
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
    Machine m = execute(reduceKernel("ttl.reduce_sum %x {dims = [1]}", 4, 3, 4, 1), 8);
    ASSERT_EQ(m.pushed["cbo"].size(), 1u);
    EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(4, 1, [&](int i, int) {
                return list("sumROW", {3 * i, 3 * i + 1, 3 * i + 2});
              }));
    EXPECT_EQ(m.calls["fill_tile"], 0); // a sum starts from the zeroed register
  }
  {
    // dims [0] of 2x3: output column j reduces tiles j, 3+j (REDUCE_COL), starting from -inf.
    Machine m = execute(reduceKernel("ttl.reduce_max %x {dims = [0]}", 2, 3, 1, 3), 8);
    ASSERT_EQ(m.pushed["cbo"].size(), 1u);
    EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 3, [&](int, int j) {
                return list("maxCOL", {j, 3 + j});
              }));
    EXPECT_EQ(m.calls["fill_tile"], 3);
  }
  {
    // dims [0, 1] of 2x2: everything into one tile (REDUCE_SCALAR).
    Machine m = execute(reduceKernel("ttl.reduce_sum %x {dims = [0, 1]}", 2, 2, 1, 1), 8);
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
  std::string blk = "tensor<1x1x!tile>", cb = "!ttl.cb<[1, 1], !tile, 2>";
  std::string body = fmt::format("      %x = ttl.cb_wait %cba : {1} -> {0}\n"
                                 "      %o = ttl.cb_reserve %cbo : {1} -> {0}\n",
                                 blk, cb);
  const char* fns[] = {"exp", "log", "sqrt", "rsqrt", "recip", "relu", "gelu", "sigmoid", "tanh"};
  for (int i = 0; i < 9; ++i)
    body += fmt::format("      %u{} = ttl.{} %x : {}\n", i, fns[i], blk);
  body += fmt::format("      %s1 = ttl.add %u0, %u1 : {}\n", blk);
  for (int i = 2; i < 9; ++i)
    body += fmt::format("      %s{} = ttl.add %s{}, %u{} : {}\n", i, i - 1, i, blk);
  body += fmt::format("      ttl.store %s8, %o : {0}\n"
                      "      ttl.cb_push %cbo : {1}\n"
                      "      ttl.cb_pop %cba : {1}\n",
                      blk, cb);
  std::string src = kernel({{"cba", 1, 1}}, 1, 1, body);
  auto up = lower(src, "", "verify,plan,apply-plan,infer-dst");
  ASSERT_TRUE(up->ok) << up->errors();
  const auto& solution = up->context->plan->kernels[0].chains[0].solution;
  ASSERT_GT(solution.segments.size(), 1u);
  ASSERT_GT(solution.intermediates.size(), 1u);
  int grouped = 0;
  up->module->op->walk([&](ir::Operation* op) { grouped += op->hasAttribute("ttl.dst_group"); });
  EXPECT_GT(grouped, 1) << ir::print(*up->module->op);
  Machine m = execute(src, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  std::string sum = "add(exp(cba#0[0]),log(cba#0[0]))";
  const char* names[] = {"exp", "log", "sqrt", "rsqrt", "recip", "relu", "gelu", "sigmoid", "tanh"};
  for (int i = 2; i < 9; ++i)
    sum = fmt::format("add({},{}(cba#0[0]))", sum, names[i]);
  EXPECT_EQ(m.pushed["cbo"][0], (std::map<int64_t, std::string>{{0, sum}}));
}

TEST(LowerCompute, BroadcastOfAComputedValueGoesThroughACb) {
  std::string cb = "!ttl.cb<[1, 1], !tile, 2>", cbo = "!ttl.cb<[1, 2], !tile, 2>";
  std::string src = kernel({{"cba", 1, 1}}, 1, 2,
                           fmt::format("      %x = ttl.cb_wait %cba : {0} -> tensor<1x1x!tile>\n"
                                       "      %o = ttl.cb_reserve %cbo : {1} -> tensor<1x2x!tile>\n"
                                       "      %e = ttl.exp %x : tensor<1x1x!tile>\n"
                                       "      %b = ttl.bcast %e {{dims = [1]}} : tensor<1x1x!tile> "
                                       "-> tensor<1x2x!tile>\n"
                                       "      ttl.store %b, %o : tensor<1x2x!tile>\n"
                                       "      ttl.cb_push %cbo : {1}\n"
                                       "      ttl.cb_pop %cba : {0}\n",
                                       cb, cbo));
  Machine m = execute(src, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0],
            expectedBlock(1, 2, [](int, int) { return std::string("bcastCOL(exp(cba#0[0]))"); }));
}

TEST(LowerCompute, MatmulOfAComputedOperandReadsItsCb) {
  // e = exp(a) (1x2), c = e x b (2x3): e is packed into a 1x2 CB, the matmul streams it.
  auto cb = [](int r, int c) { return fmt::format("!ttl.cb<[{}, {}], !tile, 2>", r, c); };
  std::string src = kernel({{"cba", 1, 2}, {"cbb", 2, 3}}, 1, 3,
                           fmt::format("      %a = ttl.cb_wait %cba : {0} -> tensor<1x2x!tile>\n"
                                       "      %b = ttl.cb_wait %cbb : {1} -> tensor<2x3x!tile>\n"
                                       "      %o = ttl.cb_reserve %cbo : {2} -> tensor<1x3x!tile>\n"
                                       "      %e = ttl.exp %a : tensor<1x2x!tile>\n"
                                       "      %m = ttl.matmul %e, %b : tensor<1x2x!tile>, "
                                       "tensor<2x3x!tile> -> tensor<1x3x!tile>\n"
                                       "      ttl.store %m, %o : tensor<1x3x!tile>\n"
                                       "      ttl.cb_push %cbo : {2}\n"
                                       "      ttl.cb_pop %cba : {0}\n"
                                       "      ttl.cb_pop %cbb : {1}\n",
                                       cb(1, 2), cb(2, 3), cb(1, 3)));
  Machine m = execute(src, 8);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 3, [](int, int j) {
              return fmt::format("exp(cba#0[0])*cbb#0[{}]+exp(cba#0[1])*cbb#0[{}]", j, 3 + j);
            }));
}

TEST(LowerCompute, OneSegmentPacksTwoValuesInOneRound) {
  // a = exp(x), b = relu(x) (1x1) both cross the cut before their bcasts: one segment, two
  // stores sharing ttl.dst_group, lowered as one chain with two packs.
  std::string c11 = "!ttl.cb<[1, 1], !tile, 2>", c12 = "!ttl.cb<[1, 2], !tile, 2>";
  std::string src = kernel(
      {{"cba", 1, 1}}, 1, 2,
      fmt::format(
          "      %x = ttl.cb_wait %cba : {0} -> tensor<1x1x!tile>\n"
          "      %o = ttl.cb_reserve %cbo : {1} -> tensor<1x2x!tile>\n"
          "      %a = ttl.exp %x : tensor<1x1x!tile>\n"
          "      %b = ttl.relu %x : tensor<1x1x!tile>\n"
          "      %ab = ttl.bcast %a {{dims = [1]}} : tensor<1x1x!tile> -> tensor<1x2x!tile>\n"
          "      %bb = ttl.bcast %b {{dims = [1]}} : tensor<1x1x!tile> -> tensor<1x2x!tile>\n"
          "      %y = ttl.add %ab, %bb : tensor<1x2x!tile>\n"
          "      ttl.store %y, %o : tensor<1x2x!tile>\n"
          "      ttl.cb_push %cbo : {1}\n"
          "      ttl.cb_pop %cba : {0}\n",
          c11, c12));
  std::string printed;
  Machine m = execute(src, 8, &printed);
  ASSERT_EQ(m.pushed["cbo"].size(), 1u);
  EXPECT_EQ(m.pushed["cbo"][0], expectedBlock(1, 2, [](int, int) {
              return std::string("add(bcastCOL(exp(cba#0[0])),bcastCOL(relu(cba#0[0])))");
            }));
  // Both packs of the first segment in one acquire/commit round: 2 rounds in all.
  EXPECT_EQ(m.calls["tile_regs_acquire"], 2) << printed;
}

TEST(LowerCompute, PopBeforeTheStoreIsRefused) {
  std::string blk = "tensor<1x1x!tile>", cb = "!ttl.cb<[1, 1], !tile, 2>";
  std::string src = kernel({{"cba", 1, 1}}, 1, 1,
                           fmt::format("      %x = ttl.cb_wait %cba : {1} -> {0}\n"
                                       "      %e = ttl.exp %x : {0}\n"
                                       "      ttl.cb_pop %cba : {1}\n"
                                       "      %o = ttl.cb_reserve %cbo : {1} -> {0}\n"
                                       "      ttl.store %e, %o : {0}\n"
                                       "      ttl.cb_push %cbo : {1}\n",
                                       blk, cb));
  auto l = lower(src, "", std::string(kUpToExpand) + ",lower-compute");
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
