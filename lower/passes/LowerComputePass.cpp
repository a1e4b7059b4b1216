// lower-compute: every compute chain of a compute func (the ops feeding one `ttl.store`, or the
// stores of one `ttl.dst_group`, see lower/passes/ComputeChain.h) becomes per-tile calls of the
// TT-Metalium compute API (docs/emulator.md) in the sub-block rounds infer-dst planned
// (docs/lowering.md, "Compute lowering"). Per round: acquire DST, unpack each chain input just
// before the first op that reads it (the DST plan reuses slots freed by earlier ops, so loading
// everything first could overwrite live values), run the ops tile by tile (matmul and reductions
// stream their operands from CBs over their inner loop), then commit, wait, pack each stored
// value's tiles into its reserved view and release. Split chains arrive as ordinary chains
// (infer-dst routed the crossing values through intermediate CBs). The CB protocol ops stay for
// lower-sync; the views they return have no uses left.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/passes/ComputeChain.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace ttlplan::lower {

namespace {

using ir::Attribute;
using ir::OpBuilder;
using ir::Operation;
using ir::Value;

/// The op registry's compute record of `op` when it is elementwise (one API call per DST tile),
/// else null.
const ir::ComputeDef* elementwiseRecord(const Operation* op) {
  const ir::OpDef* def = op->def();
  return def && ir::isElementwise(def->compute.kind) ? &def->compute : nullptr;
}

struct Shape {
  int64_t rows = 0;
  int64_t cols = 0;
  bool operator==(const Shape&) const = default;
};

/// The static 2-D tile-block shape of `type`, if it is one.
std::optional<Shape> blockShape(const ir::Type& type) {
  if (!type.is(ir::TypeKind::Tensor) || !type.isTileBlock() || type.shape().size() != 2 ||
      !type.shape()[0].isStatic() || !type.shape()[1].isStatic())
    return std::nullopt;
  return Shape{type.shape()[0].value, type.shape()[1].value};
}

std::optional<int64_t> intAttr(const Operation* op, std::string_view name) {
  Attribute a = op->attribute(name);
  if (!a.is(ir::AttrKind::Integer)) return std::nullopt;
  return a.intValue();
}

/// `[h, w]`-style integer list attribute.
std::optional<std::vector<int64_t>> intList(const Operation* op, std::string_view name) {
  std::vector<int64_t> v;
  Attribute a = op->attribute(name);
  if (!a || !a.getIntegers(v)) return std::nullopt;
  return v;
}

/// How one tile index into a block is formed from the tile (row, col) of the chain's block:
/// `(useRow ? row : 0) * rowStride + (useCol ? col : 0) * colStride + offset`.
struct TileIndex {
  bool useRow = false;
  int64_t rowStride = 0;
  bool useCol = false;
  int64_t colStride = 0;
  int64_t offset = 0;
};

/// The tile of an input block of `in` tiles read for tile (row, col) of the chain's block: a
/// dimension of size 1 repeats its only tile (broadcast), and so does a dimension in
/// `pinned` (a ttl.bcast dimension: its data is in tile 0 of that dimension).
TileIndex inputIndex(Shape in, bool pinRows = false, bool pinCols = false) {
  TileIndex t;
  t.useRow = !pinRows && in.rows != 1;
  t.rowStride = in.cols;
  t.useCol = !pinCols && in.cols != 1;
  t.colStride = 1;
  return t;
}

/// The template arguments of reduce_init / reduce_tile for a ttl.reduce_*: the pool type and the
/// reduced dimension (dims [1] reduces each row into column 0: REDUCE_ROW; [0] each column into
/// row 0: REDUCE_COL; [0, 1] everything into element (0, 0): REDUCE_SCALAR).
struct ReduceKind {
  std::string pool; ///< "SUM" | "MAX"
  std::string dim;  ///< "REDUCE_ROW" | "REDUCE_COL" | "REDUCE_SCALAR"
};

std::optional<ReduceKind> reduceKind(Operation& op) {
  auto red = ir::ReduceOrBcastOp::dyn(&op);
  if (!red || red->isBroadcast()) return std::nullopt;
  std::vector<int64_t> dims = red->dims();
  std::sort(dims.begin(), dims.end());
  ReduceKind k;
  k.pool = op.isa("ttl.reduce_max") ? "MAX" : "SUM";
  if (dims == std::vector<int64_t>{1})
    k.dim = "REDUCE_ROW";
  else if (dims == std::vector<int64_t>{0})
    k.dim = "REDUCE_COL";
  else if (dims == std::vector<int64_t>{0, 1})
    k.dim = "REDUCE_SCALAR";
  else
    return std::nullopt;
  return k;
}

/// Constants of one func, created once at the top of its entry block (codegen inlines them).
class Constants {
public:
  explicit Constants(Operation* func) : builder_(OpBuilder::atStart(func->body())) {}
  Value* get(int64_t value, const ir::Location& location) {
    auto it = cache_.find(value);
    if (it != cache_.end()) return it->second;
    builder_.setLocation(location);
    return cache_[value] = builder_.constant(value);
  }

private:
  OpBuilder builder_;
  std::map<int64_t, Value*> cache_;
};

/// One sub-block round: where to insert, and the sub-block's row/column loop indices (null when
/// that dimension has a single sub-block).
class Round {
public:
  Round(OpBuilder builder, Value* subRow, Value* subCol, int64_t h, int64_t w, Constants& constants)
      : builder_(std::move(builder)), subRow_(subRow), subCol_(subCol), h_(h), w_(w),
        constants_(constants) {}

  int64_t tiles() const { return h_ * w_; }
  int64_t h() const { return h_; }
  int64_t w() const { return w_; }

  /// A builder at the round's insertion point with `location` for the ops it creates.
  OpBuilder at(const ir::Location& location) const {
    OpBuilder b = builder_;
    b.setLocation(location);
    return b;
  }
  Value* constant(int64_t v, const ir::Location& location) { return constants_.get(v, location); }

  /// The index `t` gives for tile (ii, jj) of this round's sub-block (row subRow*h + ii, column
  /// subCol*w + jj of the block): `subRow * a + subCol * b + c`, built once per (a, b, c).
  Value* index(const TileIndex& t, int64_t ii, int64_t jj, const ir::Location& location) {
    int64_t a = t.useRow ? h_ * t.rowStride : 0;
    int64_t b = t.useCol ? w_ * t.colStride : 0;
    int64_t c = (t.useRow ? ii * t.rowStride : 0) + (t.useCol ? jj * t.colStride : 0) + t.offset;
    if (!subRow_) a = 0;
    if (!subCol_) b = 0;
    if (a == 0 && b == 0) return constant(c, location);
    auto key = std::make_tuple(a, b, c);
    if (auto it = indices_.find(key); it != indices_.end()) return it->second;
    Value* base = nullptr;
    auto baseKey = std::make_tuple(a, b, int64_t{0});
    if (auto it = indices_.find(baseKey); it != indices_.end()) {
      base = it->second;
    } else {
      OpBuilder ib = at(location);
      Value* rowPart = a == 0   ? nullptr
                       : a == 1 ? subRow_
                                : ib.arith("muli", subRow_, constant(a, location));
      Value* colPart = b == 0   ? nullptr
                       : b == 1 ? subCol_
                                : ib.arith("muli", subCol_, constant(b, location));
      base = rowPart && colPart ? ib.arith("addi", rowPart, colPart) : rowPart ? rowPart : colPart;
      indices_[baseKey] = base;
    }
    if (c == 0) return base;
    return indices_[key] = at(location).arith("addi", base, constant(c, location));
  }

private:
  OpBuilder builder_;
  Value* subRow_;
  Value* subCol_;
  int64_t h_, w_;
  Constants& constants_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, Value*> indices_;
};

/// Emits `body` once per sub-block round of a B x C block in h x w sub-blocks, at `builder`: an
/// scf.for over the sub-block rows and/or columns when there are several, straight code otherwise.
void forEachRound(OpBuilder builder, int64_t B, int64_t C, int64_t h, int64_t w,
                  Constants& constants, const std::function<void(Round&)>& body) {
  const ir::Location location = builder.location();
  Value* subRow = nullptr;
  Value* subCol = nullptr;
  if (B / h > 1) {
    Operation* loop = builder.forLoop(constants.get(0, location), constants.get(B / h, location),
                                      constants.get(1, location), "sbr");
    subRow = loop->body().argument(0);
    builder = OpBuilder::bodyBuilder(loop).withLocation(location);
  }
  if (C / w > 1) {
    Operation* loop = builder.forLoop(constants.get(0, location), constants.get(C / w, location),
                                      constants.get(1, location), "sbc");
    subCol = loop->body().argument(0);
    builder = OpBuilder::bodyBuilder(loop).withLocation(location);
  }
  Round round(builder, subRow, subCol, h, w, constants);
  body(round);
}

/// One packed value of a chain: the stored value, its view's CB and the view's ttl.cb_reserve.
struct Pack {
  Value* value = nullptr;
  Value* outCb = nullptr;
  Operation* reserve = nullptr;
};

/// What lower-compute needs of one chain, checked before anything is rewritten.
struct ChainLowering {
  ComputeChain chain;
  Shape block;                  ///< B x C: the stored views (all of one shape)
  int64_t h = 1, w = 1;         ///< sub-block
  std::vector<Pack> packs;      ///< one per store of the chain, in program order
  Value* outCb = nullptr;       ///< the first pack's CB (the output CB the inits name)
  Operation* reserve = nullptr; ///< the first pack's reservation
  bool accumulate = false;
  std::map<const Value*, int64_t> slots; ///< DST slot of every value of the chain (-1: none)
  std::map<const Value*, Value*> inputCb;
  bool hoistMatmulInit = false; ///< mm_init_short once before the rounds (one matmul chain)
};

class LowerComputePass : public Pass {
public:
  bool run(PassContext& context) override {
    std::vector<Operation*> funcs;
    for (auto& op : context.module.body().operations())
      if (op->isa("func.func") && op->attribute("ttl.kernel_thread").is(ir::AttrKind::String) &&
          op->attribute("ttl.kernel_thread").stringValue() == "compute")
        funcs.push_back(op.get());
    bool ok = true;
    for (Operation* func : funcs)
      ok = lowerFunc(context, func) && ok;
    return ok;
  }

private:
  PassContext* context_ = nullptr;
  bool fp32DestAcc_ = false;  ///< the kernel's fp32_dest_acc: DST holds Float32, else Float16_b
  Value* scalerCb_ = nullptr; ///< the reduce scaler CB of the func (add-reduce-scaler), if any
  bool failed_ = false;
  int errors_ = 0;

  void error(const Operation* op, std::string message) {
    reportError(*context_, op, std::move(message));
    failed_ = true;
    ++errors_;
  }

  /// DST tiles one chain may use: the device's count in its default sync mode, fp32 for f32 tiles.
  int64_t dstCapacity(ir::DataType dataType) const {
    const ir::Device& device = context_->device;
    return device.dstCapacityTiles(device.dst.defaultFullSync, dataType == ir::DataType::F32);
  }

  bool lowerFunc(PassContext& context, Operation* func) {
    context_ = &context;
    failed_ = false;
    fp32DestAcc_ = false;
    scalerCb_ = nullptr;
    func->walk([&](Operation* op) {
      if (op->isa(ir::CBWaitOp::kName) && op->attribute(kReduceScalerAttr))
        scalerCb_ = op->operand(0);
    });
    for (Operation* kernel : kernelsOf(context.module))
      if (kernel->attribute("sym_name").is(ir::AttrKind::String) &&
          func->attribute("ttl.kernel").is(ir::AttrKind::SymbolRef) &&
          kernel->attribute("sym_name").stringValue() ==
              func->attribute("ttl.kernel").stringValue())
        if (ir::Attribute a = kernel->attribute("fp32_dest_acc"); a.is(ir::AttrKind::Integer))
          fp32DestAcc_ = a.intValue() != 0;
    // Users of every value of the func (the IR keeps no use lists).
    std::map<const Value*, std::vector<Operation*>> users;
    func->walk([&](Operation* op) {
      for (Value* v : op->operands())
        users[v].push_back(op);
    });
    std::vector<ChainLowering> chains;
    std::map<const Operation*, const Operation*> storeOfOp;
    for (ComputeChain& chain : findComputeChains(func)) {
      for (Operation* op : chain.ops) {
        auto [it, inserted] = storeOfOp.emplace(op, chain.store);
        if (!inserted)
          error(op, fmt::format("{} feeds two ttl.store ops (at {} and {}); lower-compute lowers "
                                "each compute op into one store's chain: store it once and read "
                                "the stored view back",
                                op->name(), it->second->location().str(),
                                chain.store->location().str()));
      }
      if (auto lowering = analyse(std::move(chain), users)) chains.push_back(std::move(*lowering));
    }
    // Compute ops that reach no store would stay behind, still reading views.
    func->walk([&](Operation* op) {
      if (isComputeChainOp(op) && !storeOfOp.count(op))
        error(op, fmt::format("the result of {} is never stored: lower-compute lowers only "
                              "compute ops that feed a ttl.store",
                              op->name()));
    });
    if (failed_) return false;

    Constants constants(func);
    // Zero the views that receive accumulating stores right after their reservation ("a freshly
    // reserved view counts as zeros"), in the sub-blocks of the first such store.
    std::set<const Operation*> zeroed;
    for (const ChainLowering& c : chains)
      if (c.accumulate && zeroed.insert(c.reserve).second) emitZeroFill(c, constants);
    for (ChainLowering& c : chains)
      emitChain(c, constants);
    if (!chains.empty()) emitHwStartup(func, chains.front());
    for (ChainLowering& c : chains)
      erase(c);
    if (failed_) return false;

    // The contract with lower-sync: no view of a CB op is used any more.
    std::set<const Value*> views;
    func->walk([&](Operation* op) {
      if (op->isa(ir::CBWaitOp::kName) || op->isa(ir::CBReserveOp::kName))
        views.insert(op->result(0));
    });
    func->walk([&](Operation* user) {
      for (Value* v : user->operands())
        if (views.count(v))
          error(user, fmt::format("{} uses the view {} of a CB, which lower-compute cannot "
                                  "lower: only compute chains ending in ttl.store read views in "
                                  "a compute thread",
                                  user->name(), valueName(v)));
    });
    return !failed_;
  }

  std::optional<ChainLowering>
  analyse(ComputeChain chain, const std::map<const Value*, std::vector<Operation*>>& users) {
    Operation* store = chain.store;
    ChainLowering c;
    c.accumulate = ir::StoreOp(store).accumulate();
    const int errorsBefore = errors_;
    std::optional<std::vector<int64_t>> subblock = intList(store, "ttl.dst_subblock");
    std::optional<std::vector<int64_t>> inputSlots = intList(store, "ttl.dst_inputs");
    if (!subblock || subblock->size() != 2 || !inputSlots) {
      error(store, "ttl.store has no DST plan (ttl.dst_subblock, ttl.dst_inputs): run `infer-dst` "
                   "before `lower-compute`");
      return std::nullopt;
    }
    if (chain.ops.empty()) {
      error(store, "ttl.store of a value that no compute op computes: lower-compute needs a "
                   "compute op to fill DST (copy a view with a data-movement ttl.copy instead)");
      return std::nullopt;
    }
    {
      std::set<const Operation*> chainOps(chain.ops.begin(), chain.ops.end());
      auto isInput = [&](const Value* v) { return !chainOps.count(v->definingOp()); };
      // What no sub-block walk can do, first: these are the root causes of the plan and shape
      // mismatches the checks below would report. The DST plan cuts a chain before such ops
      // (infer-dst routes the value through an intermediate CB), so they mean the IR changed after
      // planning.
      for (Operation* op : chain.ops) {
        bool computedOperand = false;
        if (ir::readsOperandsFromCb(op->def()->compute.kind))
          for (Value* operand : op->operands())
            computedOperand = computedOperand || !isInput(operand);
        if (computedOperand) {
          error(op,
                fmt::format("{} reads a value computed in its chain, but the compute API reads "
                            "its operands from a CB (unpacker): the DST plan routes such a value "
                            "through an intermediate CB; run `plan`, `apply-plan` and "
                            "`infer-dst` on this IR",
                            op->name()));
          return std::nullopt;
        }
      }
    }
    // Every store of the chain (several when one segment of a split chain packs several values)
    // writes a view of one shape, reserved in this thread, with the same plan.
    for (Operation* st : chain.stores) {
      Value* view = ir::StoreOp(st).view();
      Pack pack;
      pack.value = ir::StoreOp(st).value();
      pack.reserve = view->definingOp();
      std::optional<Shape> block = blockShape(view->type());
      if (!pack.reserve || !pack.reserve->isa(ir::CBReserveOp::kName) || !block) {
        error(st, "ttl.store must write a 2-D block view from ttl.cb_reserve in this compute "
                  "thread");
        return std::nullopt;
      }
      pack.outCb = ir::CBReserveOp(pack.reserve).cb();
      if (c.packs.empty()) {
        c.block = *block;
      } else if (!(*block == c.block) || intList(st, "ttl.dst_subblock") != subblock ||
                 intList(st, "ttl.dst_inputs") != inputSlots) {
        error(st, fmt::format("the stores of DST group {} differ in block or DST plan: the IR "
                              "changed after `infer-dst`",
                              st->attribute("ttl.dst_group").str()));
        return std::nullopt;
      }
      if (chain.stores.size() > 1 && ir::StoreOp(st).accumulate()) {
        error(st, "an accumulating ttl.store cannot share its chain with other stores");
        return std::nullopt;
      }
      c.packs.push_back(pack);
    }
    c.outCb = c.packs.front().outCb;
    c.reserve = c.packs.front().reserve;
    Value* view = ir::StoreOp(store).view();
    c.h = (*subblock)[0];
    c.w = (*subblock)[1];
    if (c.h < 1 || c.w < 1 || c.block.rows % c.h != 0 || c.block.cols % c.w != 0) {
      error(store, fmt::format("ttl.dst_subblock = [{}, {}] does not divide the stored {}x{} block",
                               c.h, c.w, c.block.rows, c.block.cols));
      return std::nullopt;
    }
    if (inputSlots->size() != chain.inputs.size()) {
      error(store, fmt::format("ttl.dst_inputs has {} slots but the chain reads {} inputs: the IR "
                               "changed after `infer-dst`",
                               inputSlots->size(), chain.inputs.size()));
      return std::nullopt;
    }
    const int64_t capacity = dstCapacity(view->type().elementType().tileDataType()) / (c.h * c.w);
    auto checkSlot = [&](const Operation* at, int64_t slot, const std::string& what) {
      if (slot >= capacity)
        error(at, fmt::format("{} is in DST slot {}, but only {} slots of {}x{} tiles fit DST",
                              what, slot, capacity, c.h, c.w));
    };
    for (size_t i = 0; i < chain.inputs.size(); ++i) {
      c.slots[chain.inputs[i]] = (*inputSlots)[i];
      checkSlot(store, (*inputSlots)[i], "chain input " + valueName(chain.inputs[i]));
    }
    std::set<const Operation*> members(chain.ops.begin(), chain.ops.end());
    auto isInput = [&](const Value* v) { return !members.count(v->definingOp()); };
    int matmuls = 0;
    bool others = false;

    for (Operation* op : chain.ops) {
      std::optional<int64_t> slot = intAttr(op, "dst_idx");
      if (!slot || *slot < 0) {
        error(op,
              fmt::format("{} has no dst_idx: run `infer-dst` before `lower-compute`", op->name()));
        return std::nullopt;
      }
      c.slots[op->result(0)] = *slot;
      checkSlot(op, *slot, "the result of " + op->name());
      for (Operation* user :
           users.count(op->result(0)) ? users.at(op->result(0)) : std::vector<Operation*>{})
        if (!members.count(user) &&
            std::find(chain.stores.begin(), chain.stores.end(), user) == chain.stores.end())
          error(user, fmt::format("{} uses {}, a value of the compute chain stored at {}: only "
                                  "ops of that chain may read it (its tiles exist only in DST)",
                                  user->name(), valueName(op->result(0)), store->location().str()));
      std::optional<Shape> result = blockShape(op->result(0)->type());
      if (!result || !(*result == c.block)) {
        error(op, fmt::format("the result of {} ({}) is not the stored {}x{} block: every op of a "
                              "chain must compute the block the store writes",
                              op->name(), op->result(0)->type().str(), c.block.rows, c.block.cols));
        return std::nullopt;
      }
      if (auto mm = ir::MatmulOp::dyn(op)) {
        ++matmuls;
        std::optional<Shape> a = blockShape(mm->lhs()->type());
        std::optional<Shape> b = blockShape(mm->rhs()->type());
        if (!a || !b || a->rows != c.block.rows || b->cols != c.block.cols || a->cols != b->rows) {
          error(op, fmt::format("ttl.matmul of {} and {} does not give the stored {}x{} block",
                                mm->lhs()->type().str(), mm->rhs()->type().str(), c.block.rows,
                                c.block.cols));
          return std::nullopt;
        }
        checkView(mm->lhs(), op, c);
        checkView(mm->rhs(), op, c);
        continue;
      }
      others = true;
      if (auto red = ir::ReduceOrBcastOp::dyn(op); red && !red->isBroadcast()) {
        std::optional<Shape> in = blockShape(red->input()->type());
        std::optional<ReduceKind> kind = reduceKind(*op);
        if (!in || !kind ||
            (kind->dim == "REDUCE_ROW" && (in->rows != c.block.rows || c.block.cols != 1)) ||
            (kind->dim == "REDUCE_COL" && (in->cols != c.block.cols || c.block.rows != 1)) ||
            (kind->dim == "REDUCE_SCALAR" && (c.block.rows != 1 || c.block.cols != 1))) {
          error(op,
                fmt::format("{} of a {} block does not give the stored {}x{} block (dims "
                            "[1] gives B x 1, [0] 1 x C, [0, 1] 1 x 1)",
                            op->name(), red->input()->type().str(), c.block.rows, c.block.cols));
          return std::nullopt;
        }
        checkView(red->input(), op, c);
        continue;
      }
      if (auto bc = ir::ReduceOrBcastOp::dyn(op); bc && bc->isBroadcast()) {
        std::vector<int64_t> dims = bc->dims();
        std::sort(dims.begin(), dims.end());
        if (dims != std::vector<int64_t>{0} && dims != std::vector<int64_t>{1} &&
            dims != std::vector<int64_t>{0, 1}) {
          error(op, "ttl.bcast needs dims = [0], [1] or [0, 1]");
          return std::nullopt;
        }
        std::optional<Shape> in = blockShape(bc->input()->type());
        bool pinRows = std::count(dims.begin(), dims.end(), 0) > 0;
        bool pinCols = std::count(dims.begin(), dims.end(), 1) > 0;
        if (!in || (!pinRows && in->rows != 1 && in->rows != c.block.rows) ||
            (!pinCols && in->cols != 1 && in->cols != c.block.cols)) {
          error(op, fmt::format("ttl.bcast of a {} block cannot give the {}x{} block",
                                bc->input()->type().str(), c.block.rows, c.block.cols));
          return std::nullopt;
        }
        checkView(bc->input(), op, c);
        continue;
      }
      if (op->def()->compute.kind == ir::ComputeKind::Transpose) {
        std::optional<Shape> in = blockShape(op->operand(0)->type());
        if (!in || in->rows != c.block.cols || in->cols != c.block.rows) {
          error(op, fmt::format("ttl.transpose of a {} block does not give the stored {}x{} block",
                                op->operand(0)->type().str(), c.block.rows, c.block.cols));
          return std::nullopt;
        }
        checkView(op->operand(0), op, c);
        continue;
      }
      if (op->def()->compute.kind == ir::ComputeKind::Fill) continue; // no operands to read
      if (!elementwiseRecord(op)) {
        error(op, fmt::format("{} is not supported by lower-compute", op->name()));
        return std::nullopt;
      }
      for (Value* operand : op->operands()) {
        if (!isInput(operand)) continue;
        std::optional<Shape> in = blockShape(operand->type());
        if (!in || (in->rows != 1 && in->rows != c.block.rows) ||
            (in->cols != 1 && in->cols != c.block.cols)) {
          error(op, fmt::format("{} reads {} ({}), which neither matches nor broadcasts to the "
                                "{}x{} block",
                                op->name(), valueName(operand), operand->type().str(), c.block.rows,
                                c.block.cols));
          return std::nullopt;
        }
        if (c.slots[operand] < 0) {
          error(op, fmt::format("{} reads {} from DST, but ttl.dst_inputs gives it no slot",
                                op->name(), valueName(operand)));
          return std::nullopt;
        }
        checkView(operand, op, c);
      }
    }
    c.hoistMatmulInit = matmuls == 1 && !others;
    c.chain = std::move(chain);
    checkNoPopBeforeStore(c);
    if (errors_ != errorsBefore) return std::nullopt;
    return c;
  }

  /// A chain input must be a view from ttl.cb_wait: the compute API reads tiles from a CB's front.
  void checkView(Value* input, const Operation* reader, ChainLowering& c) {
    Operation* def = input->definingOp();
    if (!def || !def->isa(ir::CBWaitOp::kName)) {
      error(reader,
            fmt::format("{} reads {}, which is not a view from ttl.cb_wait: the compute API "
                        "unpacks tiles from the front of a CB",
                        reader->name(), valueName(input)));
      return;
    }
    c.inputCb[input] = ir::CBWaitOp(def).cb();
  }

  /// The chain runs where its store is; an input CB popped between the chain's ops and the store
  /// would be read after the pop.
  void checkNoPopBeforeStore(const ChainLowering& c) {
    std::set<const Value*> inputCbs;
    for (const auto& [view, cb] : c.inputCb)
      inputCbs.insert(cb);
    ir::Block* block = c.chain.store->parentBlock();
    std::set<const Operation*> members(c.chain.ops.begin(), c.chain.ops.end());
    // From the chain's first op in the store's block (its start when the ops are outside it).
    auto it = block->operations().begin();
    auto storeIt = ir::iteratorOf(c.chain.store);
    for (auto j = it; j != storeIt; ++j)
      if (members.count(j->get())) {
        it = j;
        break;
      }
    for (; it != storeIt; ++it)
      if (auto pop = ir::CBPopOp::dyn(it->get()); pop && inputCbs.count(pop->cb()))
        error(it->get(),
              fmt::format("ttl.cb_pop of {} comes before the ttl.store at {} whose compute "
                          "chain reads that CB: lower-compute computes a chain at its store, "
                          "so pop after the store",
                          valueName(pop->cb()), c.chain.store->location().str()));
  }

  /// The input CBs of a chain in the order its ops read them (a reduction's scaler after its
  /// input).
  std::vector<Value*> inputCbsInOrder(const ChainLowering& c) const {
    std::vector<Value*> out;
    auto add = [&](Value* cb) {
      if (cb && std::find(out.begin(), out.end(), cb) == out.end()) out.push_back(cb);
    };
    for (Operation* op : c.chain.ops) {
      for (Value* operand : op->operands())
        if (auto it = c.inputCb.find(operand); it != c.inputCb.end()) add(it->second);
      if (reduceKind(*op)) add(scalerCb_);
    }
    return out;
  }

  /// The hardware start-up, first in the compute function: TT-Metalium configures unpack, math
  /// and pack once, before any other compute call, for the CBs of the first op
  /// (api/compute/compute_kernel_hw_startup.h). A first chain that is a matmul gets mm_init, the
  /// matmul's full init (srcA from in1, srcB from in0); any other gets compute_kernel_hw_startup
  /// with its first two input CBs (one: both operands; none: the output CB stands in).
  void emitHwStartup(Operation* func, const ChainLowering& first) {
    OpBuilder b = OpBuilder::atStart(func->body())
                      .withLocation(first.chain.ops.empty() ? first.chain.store->location()
                                                            : first.chain.ops.front()->location());
    statistic("hw-startups", "compute kernels given their hardware start-up") += 1;
    std::vector<Value*> in = inputCbsInOrder(first);
    if (!first.chain.ops.empty() && ir::MatmulOp::dyn(first.chain.ops.front()) && in.size() == 2) {
      b.call("mm_init", {in[0], in[1], first.outCb});
      return;
    }
    if (in.size() >= 2)
      b.call("compute_kernel_hw_startup", {in[0], in[1], first.outCb});
    else
      b.call("compute_kernel_hw_startup", {in.empty() ? first.outCb : in[0], first.outCb});
  }

  /// Zeroes the view `c` accumulates into, right after its ttl.cb_reserve: fill h*w DST tiles with
  /// 0 and pack them over the view, one round per sub-block.
  void emitZeroFill(const ChainLowering& c, Constants& constants) {
    const ir::Location& loc = c.chain.store->location();
    forEachRound(
        OpBuilder::after(c.reserve).withLocation(loc), c.block.rows, c.block.cols, c.h, c.w,
        constants, [&](Round& r) {
          OpBuilder b = r.at(loc);
          b.call("tile_regs_acquire", {});
          b.call("fill_tile_init", {});
          for (int64_t t = 0; t < r.tiles(); ++t)
            b.call("fill_tile", {r.constant(t, loc)}, ir::Type(),
                   {{"value", Attribute::floating(0.0, ir::Type::floating(ir::FloatKind::F32))}});
          b.call("tile_regs_commit", {});
          b.call("tile_regs_wait", {});
          packTiles(r, b, c, c.outCb, 0, loc);
          b.call("tile_regs_release", {});
        });
    statistic("views-zeroed", "accumulated views zeroed after their reservation") += 1;
  }

  /// pack_tile of the h*w tiles of DST slot `slot` into their places in the view of `outCb`.
  void packTiles(Round& r, OpBuilder& b, const ChainLowering& c, Value* outCb, int64_t slot,
                 const ir::Location& loc) {
    TileIndex out{true, c.block.cols, true, 1, 0};
    for (int64_t ii = 0; ii < r.h(); ++ii)
      for (int64_t jj = 0; jj < r.w(); ++jj)
        // pack_tile<true>: at the page given. In order (pack_tile<false>) the packer would
        // ignore it and write the next page since the last cb_push_back, which a sub-block
        // round or an L1-accumulating pass over the same view does not follow.
        b.call(
            "pack_tile",
            {r.constant(slot * r.tiles() + ii * r.w() + jj, loc), outCb, r.index(out, ii, jj, loc)},
            ir::Type(), {{"out_of_order", Attribute::boolean(true)}});
  }

  void emitChain(const ChainLowering& c, Constants& constants) {
    Operation* store = c.chain.store;
    const ir::Location& storeLoc = store->location();
    OpBuilder before = OpBuilder::before(store);
    if (c.hoistMatmulInit) {
      auto mm = *ir::MatmulOp::dyn(c.chain.ops.front());
      OpBuilder init = before;
      init.setLocation(mm.location());
      init.call("mm_init_short", {c.inputCb.at(mm.lhs()), c.inputCb.at(mm.rhs())});
    }
    forEachRound(before, c.block.rows, c.block.cols, c.h, c.w, constants, [&](Round& r) {
      r.at(storeLoc).call("tile_regs_acquire", {});
      std::set<const Value*> loaded;
      for (Operation* op : c.chain.ops)
        emitOp(c, r, op, loaded);
      OpBuilder b = r.at(storeLoc);
      b.call("tile_regs_commit", {});
      b.call("tile_regs_wait", {});
      if (c.accumulate) b.call("pack_reconfig_l1_acc", {r.constant(1, storeLoc)});
      for (size_t p = 0; p < c.packs.size(); ++p) {
        const ir::Location& packLoc = c.chain.stores[p]->location();
        OpBuilder pb = r.at(packLoc);
        packTiles(r, pb, c, c.packs[p].outCb, c.slots.at(c.packs[p].value), packLoc);
      }
      if (c.accumulate) b.call("pack_reconfig_l1_acc", {r.constant(0, storeLoc)});
      b.call("tile_regs_release", {});
    });
    statistic("chains-lowered", "compute chains lowered to tile calls") += 1;
  }

  /// DST index of tile t of the sub-block of `v`.
  static int64_t dstIndex(const ChainLowering& c, const Round& r, const Value* v, int64_t t) {
    return c.slots.at(v) * r.tiles() + t;
  }

  void emitOp(const ChainLowering& c, Round& r, Operation* op, std::set<const Value*>& loaded) {
    const ir::Location& loc = op->location();
    OpBuilder b = r.at(loc);
    std::set<const Operation*> members(c.chain.ops.begin(), c.chain.ops.end());
    auto isInput = [&](const Value* v) { return !members.count(v->definingOp()); };
    auto forTiles = [&](const std::function<void(int64_t, int64_t, int64_t)>& f) {
      for (int64_t ii = 0; ii < r.h(); ++ii)
        for (int64_t jj = 0; jj < r.w(); ++jj)
          f(ii, jj, ii * r.w() + jj);
    };
    auto dst = [&](const Value* v, int64_t t) { return r.constant(dstIndex(c, r, v, t), loc); };
    // matmul_tiles and reduce_tile add into DST, which is zero only after tile_regs_acquire: an op
    // after another of the chain may get a slot an earlier value used (infer-dst reuses them:
    // scale * acc + a @ b put a @ b where acc was), so its tiles are zeroed first.
    auto fillResult = [&](double value) { // every DST tile of the op's result set to `value`
      b.call("fill_tile_init", {});
      forTiles([&](int64_t, int64_t, int64_t t) {
        b.call("fill_tile", {dst(op->result(0), t)}, ir::Type(),
               {{"value", Attribute::floating(value, ir::Type::floating(ir::FloatKind::F32))}});
      });
    };
    auto zeroIfReused = [&]() {
      if (op == c.chain.ops.front() && loaded.empty()) return;
      fillResult(0.0);
      statistic("dst-zeroed", "accumulating ops given zeroed DST tiles") += 1;
    };

    if (auto mm = ir::MatmulOp::dyn(op)) {
      zeroIfReused();
      Value* cbA = c.inputCb.at(mm->lhs());
      Value* cbB = c.inputCb.at(mm->rhs());
      if (!c.hoistMatmulInit) b.call("mm_init_short", {cbA, cbB});
      const int64_t K = blockShape(mm->lhs()->type())->cols;
      const int64_t C = c.block.cols;
      forTiles([&](int64_t ii, int64_t jj, int64_t t) {
        for (int64_t k = 0; k < K; ++k) {
          Value* a = r.index(TileIndex{true, K, false, 0, k}, ii, jj, loc);
          Value* bIdx = r.index(TileIndex{false, 0, true, 1, k * C}, ii, jj, loc);
          b.call("matmul_tiles", {cbA, cbB, a, bIdx, dst(op->result(0), t)});
        }
      });
      statistic("matmul-tiles", "matmul_tiles calls emitted") += r.tiles() * K;
      return;
    }
    if (std::optional<ReduceKind> kind = reduceKind(*op)) {
      // The reduced dimension is the inner loop: every input tile of the output tile's row
      // (REDUCE_ROW), column (REDUCE_COL) or of the block (REDUCE_SCALAR) accumulates into it.
      Value* input = op->operand(0);
      Value* cb = c.inputCb.at(input);
      const Shape in = *blockShape(input->type());
      auto templ = [&]() {
        return std::vector<ir::NamedAttribute>{{"pool", Attribute::string(kind->pool)},
                                               {"reduce_dim", Attribute::string(kind->dim)}};
      };
      if (kind->pool == "MAX") {
        // DST is zero after tile_regs_acquire and reduce_tile MAX combines with what the
        // register holds: start from -inf so that rows of negative values keep their maximum.
        fillResult(-std::numeric_limits<double>::infinity());
      }
      if (!scalerCb_) {
        error(op, fmt::format("{} needs the kernel's reduce scaler CB, which add-reduce-scaler "
                              "adds: run it before plan",
                              op->name()));
        return;
      }
      if (kind->pool != "MAX") zeroIfReused();
      b.call("reduce_init", {cb, scalerCb_, c.outCb}, ir::Type(), templ());
      const int64_t steps = kind->dim == "REDUCE_ROW"   ? in.cols
                            : kind->dim == "REDUCE_COL" ? in.rows
                                                        : in.rows * in.cols;
      forTiles([&](int64_t ii, int64_t jj, int64_t t) {
        for (int64_t k = 0; k < steps; ++k) {
          TileIndex idx = kind->dim == "REDUCE_ROW"   ? TileIndex{true, in.cols, false, 0, k}
                          : kind->dim == "REDUCE_COL" ? TileIndex{false, 0, true, 1, k * in.cols}
                                                      : TileIndex{false, 0, false, 0, k};
          b.call(
              "reduce_tile",
              {cb, scalerCb_, r.index(idx, ii, jj, loc), r.constant(0, loc), dst(op->result(0), t)},
              ir::Type(), templ());
        }
      });
      b.call("reduce_uninit", {});
      statistic("reduce-tiles", "reduce_tile calls emitted") += r.tiles() * steps;
      return;
    }
    if (auto bc = ir::ReduceOrBcastOp::dyn(op); bc && bc->isBroadcast()) {
      std::vector<int64_t> dims = bc->dims();
      bool pinRows = std::count(dims.begin(), dims.end(), 0) > 0;
      bool pinCols = std::count(dims.begin(), dims.end(), 1) > 0;
      std::string kind = pinRows && pinCols ? "SCALAR" : pinCols ? "COL" : "ROW";
      Value* cb = c.inputCb.at(bc->input());
      TileIndex in = inputIndex(*blockShape(bc->input()->type()), pinRows, pinCols);
      b.call("unary_bcast_init", {cb, c.outCb}, ir::Type(), {{"bcast", Attribute::string(kind)}});
      forTiles([&](int64_t ii, int64_t jj, int64_t t) {
        b.call("unary_bcast", {cb, r.index(in, ii, jj, loc), dst(op->result(0), t)}, ir::Type(),
               {{"bcast", Attribute::string(kind)}});
      });
      return;
    }
    if (op->def()->compute.kind == ir::ComputeKind::Transpose) {
      // Result tile (i, j) is operand tile (j, i): along the result's rows the operand's column
      // moves (stride 1), along its columns the operand's row (stride: the operand's columns).
      Value* cb = c.inputCb.at(op->operand(0));
      const TileIndex in{true, 1, true, blockShape(op->operand(0)->type())->cols, 0};
      b.call("transpose_wh_init_short", {cb});
      forTiles([&](int64_t ii, int64_t jj, int64_t t) {
        b.call("transpose_wh_tile", {cb, r.index(in, ii, jj, loc), dst(op->result(0), t)});
      });
      return;
    }
    if (op->def()->compute.kind == ir::ComputeKind::Fill) {
      b.call("fill_tile_init", {});
      const double value = op->attribute("value").floatValue(); // the parser requires it
      forTiles([&](int64_t, int64_t, int64_t t) {
        b.call("fill_tile", {dst(op->result(0), t)}, ir::Type(),
               {{"value", Attribute::floating(value, ir::Type::floating(ir::FloatKind::F32))}});
      });
      return;
    }
    // Elementwise: unpack the inputs this op is the first to read.
    for (Value* operand : op->operands()) {
      if (!isInput(operand) || !loaded.insert(operand).second) continue;
      Value* cb = c.inputCb.at(operand);
      TileIndex in = inputIndex(*blockShape(operand->type()));
      b.call("copy_tile_init", {cb});
      forTiles([&](int64_t ii, int64_t jj, int64_t t) {
        b.call("copy_tile", {cb, r.index(in, ii, jj, loc), dst(operand, t)});
      });
    }
    const ir::ComputeDef& fn = *elementwiseRecord(op); // checked when the chain was read
    if (fn.kind == ir::ComputeKind::Copy) { // the unpack above did it; to the result's slot
      if (c.slots.at(op->operand(0)) != c.slots.at(op->result(0))) {
        b.call("copy_dest_values_init", {});
        forTiles([&](int64_t, int64_t, int64_t t) {
          b.call("copy_dest_values", {dst(op->operand(0), t), dst(op->result(0), t)}, ir::Type(),
                 {{"data_format", Attribute::string(fp32DestAcc_ ? "Float32" : "Float16_b")}});
        });
      }
      return;
    }
    if (fn.kind == ir::ComputeKind::Binary) {
      b.call(fn.apiInit, {});
      forTiles([&](int64_t, int64_t, int64_t t) {
        b.call(fn.apiFn, {dst(op->operand(0), t), dst(op->operand(1), t), dst(op->result(0), t)});
      });
      return;
    }
    if (c.slots.at(op->operand(0)) != c.slots.at(op->result(0))) {
      b.call("copy_dest_values_init", {});
      forTiles([&](int64_t, int64_t, int64_t t) {
        b.call("copy_dest_values", {dst(op->operand(0), t), dst(op->result(0), t)}, ir::Type(),
               {{"data_format", Attribute::string(fp32DestAcc_ ? "Float32" : "Float16_b")}});
      });
    }
    b.call(fn.apiInit, {});
    forTiles([&](int64_t, int64_t, int64_t t) { b.call(fn.apiFn, {dst(op->result(0), t)}); });
  }

  /// Removes the store and the chain's ops (users before producers).
  void erase(const ChainLowering& c) {
    Operation* func = c.chain.store->ancestor("func.func");
    for (Operation* st : c.chain.stores)
      ir::eraseOp(st);
    for (auto it = c.chain.ops.rbegin(); it != c.chain.ops.rend(); ++it) {
      if (ir::hasUses(func, (*it)->result(0))) {
        error(*it, fmt::format("internal error: {} still has uses after its chain was lowered",
                               (*it)->name()));
        continue;
      }
      ir::eraseOp(*it);
      statistic("ops-lowered", "compute ops replaced by tile calls") += 1;
    }
    statistic("stores-lowered", "ttl.store ops replaced by pack_tile") +=
        static_cast<int64_t>(c.chain.stores.size());
  }
};

} // namespace

std::unique_ptr<Pass> createLowerComputePass() {
  return std::make_unique<LowerComputePass>();
}

} // namespace ttlplan::lower
