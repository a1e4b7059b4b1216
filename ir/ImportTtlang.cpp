#include "ttlplan/ir/ImportTtlang.h"

#include "ttlplan/ir/DataType.h"
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace ttlplan::ir {

namespace {

std::vector<Operation*> threadFunctions(const Module& module) {
  std::vector<Operation*> out;
  for (Operation* f : module.topLevel("func.func"))
    if (f->hasAttribute("ttl.kernel_thread") && !f->region(0).empty()) out.push_back(f);
  return out;
}

bool isComputeThread(const Operation& f) {
  Attribute role = f.attribute("ttl.kernel_thread");
  return role.is(AttrKind::Opaque) && role.stringValue().find("compute") != std::string::npos;
}

/// The integers of `ttl.launch_grid = [GX, GY]` (or `array<i64: GX, GY>`), x first as tt-lang
/// writes it (pipes go from `src(x, y)`); empty when absent or malformed.
std::vector<int64_t> launchGrid(const Operation& module) {
  Attribute grid = module.attribute("ttl.launch_grid");
  std::vector<int64_t> out;
  if (grid.is(AttrKind::DenseArray)) out = grid.denseValues();
  if (grid.is(AttrKind::Array) && !grid.getIntegers(out)) out.clear();
  if (out.size() != 2 || out[0] <= 0 || out[1] <= 0) out.clear();
  return out;
}

/// The element type of a DRAM tensor holding tiles of `tile`, or null.
Type elementOf(const Type& tile) {
  if (!tile.is(TypeKind::Tile) || !tile.tileDataTypeKnob().empty()) return Type();
  switch (tile.tileDataType()) {
  case DataType::BF16:
    return Type::floating(FloatKind::BF16);
  case DataType::F32:
    return Type::floating(FloatKind::F32);
  case DataType::F16:
    return Type::floating(FloatKind::F16);
  case DataType::BFP8_B:
  case DataType::BFP4_B:
    return Type::opaque(std::string(toString(tile.tileDataType())));
  default:
    return Type();
  }
}

class Importer {
public:
  Importer(Module& module, DiagnosticEngine& diags) : module_(module), diags_(diags) {}

  bool run() {
    std::vector<Operation*> threads = threadFunctions(module_);
    std::vector<int64_t> grid = launchGrid(*module_.op);
    // tt-lang's pass tests hold thread functions on their own: plan them on one core, with the
    // threads they leave out assumed to exist (and said so).
    onItsOwn_ = !module_.op->hasAttribute("ttl.launch_grid");
    if (onItsOwn_) {
      grid = {1, 1};
      assumed_.push_back("no ttl.launch_grid: the threads run on one core (grid [1, 1])");
    }
    if (grid.empty())
      return fail(module_.op->location(),
                  "a tt-lang module needs `ttl.launch_grid = [GX, GY]` (two positive integers)");
    // One kernel where the first thread function was, with the threads in the functions' order.
    Operation* first = threads.front();
    kernel_ = OpBuilder::before(first).create(
        "ttl.kernel", {}, {},
        {{"sym_name", Attribute::string(kernelName())},
         {"grid", Attribute::array({Attribute::integer(grid[1]), Attribute::integer(grid[0])})}},
        1);
    kernel_->setLocation(first->location());
    kernel_->body();
    for (Operation* f : threads)
      if (!importThread(*f)) return false;
    if (onItsOwn_) markOutsideEnds();
    if (!assumed_.empty()) {
      std::vector<Attribute> lines;
      for (const std::string& line : assumed_)
        lines.push_back(Attribute::string(line));
      kernel_->setAttribute("assumed", Attribute::array(std::move(lines)));
    }
    // What is left of tt-lang's own ops (a `ttl.fill` that is not a reduce scaler) has no meaning.
    kernel_->walk([&](Operation* op) {
      if (op->def() && op->def()->placement == Placement::TtLangThread)
        fail(op->location(), fmt::format("import-ttlang: '{}' has no ttlplan meaning yet here; "
                                         "docs/ttlang-interop.md lists what is imported",
                                         op->name()));
    });
    return ok_;
  }

private:
  bool fail(const Location& at, std::string message) {
    diags_.error(at, std::move(message));
    ok_ = false;
    return false;
  }

  /// A CB whose producer (or consumer) thread is not in the file gets `outside = "producer"`
  /// (or "consumer"), and the assumption is written down.
  void markOutsideEnds() {
    std::set<std::pair<Value*, CbEnd>> used; // (cb, end) that a thread here acts for
    kernel_->walk([&](Operation* op) {
      if (CbEnd end = cbEndOf(*op); end != CbEnd::None && op->numOperands() > 0)
        used.insert({op->operand(0), end});
    });
    for (auto& [index, cb] : cbs_) {
      bool produced = used.count({cb, CbEnd::Producer}),
           consumed = used.count({cb, CbEnd::Consumer});
      if (produced == consumed) continue; // both ends here, or an unused CB (the verifier says)
      const char* end = produced ? "consumer" : "producer";
      cb->definingOp()->setAttribute("outside", Attribute::string(end));
      assumed_.push_back(fmt::format("%{} (cb_index {}): its {} is a thread not in this file; the "
                                     "plan places and indexes it, nothing is costed or run",
                                     cb->nameHint(), index, end));
    }
  }

  /// The module's name, else `ttlang_kernel` (with `_`s added until no symbol has it).
  std::string kernelName() {
    if (Attribute name = module_.op->attribute("sym_name"); name.is(AttrKind::String))
      return name.stringValue();
    std::string name = "ttlang_kernel";
    auto taken = [&] {
      for (const auto& op : module_.body().operations())
        if (Attribute s = op->attribute("sym_name");
            s.is(AttrKind::String) && s.stringValue() == name)
          return true;
      return false;
    };
    while (taken())
      name += "_";
    return name;
  }

  /// A kernel argument for tt-lang tensor argument `arg` of a thread: the tensor of elements
  /// with ttlplan's layout. Arguments with the same `ttl.crta_indices` entry are one tensor.
  Value* kernelArgument(Operation& f, Value* arg) {
    Attribute crta = f.attribute("ttl.crta_indices");
    std::vector<int64_t> indices;
    int64_t key = -1;
    if (crta.getIntegers(indices) && arg->index() < indices.size()) key = indices[arg->index()];
    if (key >= 0 && sharedArgs_.count(key)) return sharedArgs_[key];
    Type type = arg->type();
    Type element = type.is(TypeKind::Tensor) ? elementOf(type.elementType()) : Type();
    if (!element || type.shape().size() != 2 || !type.shape()[0].isStatic() ||
        !type.shape()[1].isStatic()) {
      fail(arg->location(), fmt::format("import-ttlang: argument %{} has type {}; ttlplan imports "
                                        "2-D tensors of bf16, f32, f16, bfp8_b or bfp4_b tiles",
                                        arg->nameHint(), type.str()));
      return nullptr;
    }
    const Type& tile = type.elementType();
    Attribute layout = Attribute::layout(Layout{memoryOf(type.encoding()), false, {}, {}});
    Type tensor = Type::tensor({Dim::fixed(type.shape()[0].value * tile.tileRows()),
                                Dim::fixed(type.shape()[1].value * tile.tileColumns())},
                               element, layout);
    Value* v = kernel_->body().addArgument(tensor, arg->nameHint(), arg->location());
    if (key >= 0) sharedArgs_[key] = v;
    return v;
  }

  /// `buffer = l1` in tt-lang's layout text is L1; anything else is DRAM.
  static MemorySpace memoryOf(const Attribute& encoding) {
    bool l1 = encoding.is(AttrKind::Opaque) &&
              encoding.stringValue().find("buffer = l1") != std::string::npos;
    return l1 ? MemorySpace::L1 : MemorySpace::Dram;
  }

  /// The kernel-scope CB for `ttl.bind_cb`, one per `cb_index`.
  Value* kernelCb(Operation& bind) {
    Attribute index = bind.attribute("cb_index");
    if (!index.is(AttrKind::Integer)) {
      fail(bind.location(), "import-ttlang: ttl.bind_cb needs an integer cb_index");
      return nullptr;
    }
    auto it = cbs_.find(index.intValue());
    if (it != cbs_.end()) {
      if (it->second->type() != bind.result(0)->type())
        fail(bind.location(),
             fmt::format("import-ttlang: CB {} is bound as {} here and as {} in another thread",
                         index.intValue(), bind.result(0)->type().str(), it->second->type().str()));
      return it->second;
    }
    // Before the threads that use them, in the order they are first bound.
    OpBuilder b = lastCb_ ? OpBuilder::after(lastCb_) : OpBuilder::atStart(kernel_->body());
    b.setLocation(bind.location());
    Operation* cb = b.create("ttl.create_cb", {}, {bind.result(0)->type()},
                             {{"ttl.cb_index", Attribute::integer(index.intValue())}});
    cb->result(0)->setNameHint(bind.result(0)->nameHint());
    lastCb_ = cb;
    cbs_[index.intValue()] = cb->result(0);
    return cb->result(0);
  }

  bool importThread(Operation& f) {
    std::string kind = isComputeThread(f) ? "ttl.compute_thread" : "ttl.datamovement_thread";
    Operation* thread = OpBuilder::atEnd(kernel_->body()).create(kind, {}, {}, {}, 1);
    thread->setLocation(f.location());
    Block& body = thread->body();
    Block& from = f.region(0).front();
    for (Value* arg : from.arguments()) {
      Value* replacement = kernelArgument(f, arg);
      if (!replacement) return false;
      replaceAllUsesWith(&f, arg, replacement);
    }
    while (!from.empty()) {
      Operation* op = from.operations().front().get();
      if (op->isa("func.return")) {
        if (op->numOperands() != 0) {
          if (!onItsOwn_)
            return fail(op->location(), "import-ttlang: a thread function returns nothing");
          // A pass test's function on its own, returning what it made.
          assumed_.push_back(fmt::format("@{} returns {} value(s): the plan leaves them out",
                                         f.attribute("sym_name").stringValue(), op->numOperands()));
        }
        eraseOp(op);
        continue;
      }
      body.push_back(from.remove(op));
    }
    eraseOp(&f);
    std::vector<Operation*> ops;
    thread->walk([&](Operation* op) { ops.push_back(op); });
    for (Operation* op : ops)
      if (op != thread && !convert(*op, *thread)) return false;
    if (ok_) insertMissingReleases(body);
    return ok_;
  }

  // tt-lang's front end leaves out the cb_push after a cb_reserve and the cb_pop after a cb_wait
  // that its ttl-insert-cb-sync pass adds (tenstorrent/tt-lang include/ttlang/Dialect/TTL/
  // Passes.td): after the last op of the acquire's block that uses the block it acquired, or
  // values computed from it, or the CB itself before the CB's next acquire of that kind.
  static void insertMissingReleases(Block& block) {
    std::vector<Operation*> ops;
    for (auto& op : block.operations())
      ops.push_back(op.get());
    // The k-th acquire of a CB in this block is released by its k-th release here (a release
    // nested in an op counts where that op is); the acquires left over get one.
    std::map<std::pair<Value*, bool>, std::vector<size_t>> open; // (cb, reserve?) -> acquires
    std::vector<size_t> unmatched;
    for (size_t i = 0; i < ops.size(); ++i) {
      for (size_t r = 0; r < ops[i]->numRegions(); ++r)
        for (auto& inner : ops[i]->region(r).blocks())
          insertMissingReleases(*inner);
      bool reserve = ops[i]->isa("ttl.cb_reserve");
      if ((reserve || ops[i]->isa("ttl.cb_wait")) && ops[i]->numOperands() == 1) {
        open[{ops[i]->operand(0), reserve}].push_back(i);
        continue;
      }
      ops[i]->walk([&](Operation* op) {
        bool push = op->isa("ttl.cb_push");
        if ((!push && !op->isa("ttl.cb_pop")) || op->numOperands() != 1) return;
        std::vector<size_t>& acquires = open[{op->operand(0), push}];
        if (!acquires.empty()) acquires.erase(acquires.begin());
      });
    }
    for (auto& [key, acquires] : open)
      unmatched.insert(unmatched.end(), acquires.begin(), acquires.end());
    std::sort(unmatched.begin(), unmatched.end());
    for (size_t at : unmatched)
      releaseAfterLastUse(ops, at);
  }

  /// Inserts the release of acquire `ops[at]` after the last op that uses its block, or a value
  /// computed from it, or (before the CB's next acquire of that kind) the CB itself.
  static void releaseAfterLastUse(const std::vector<Operation*>& ops, size_t at) {
    bool reserve = ops[at]->isa("ttl.cb_reserve");
    std::string_view acquire = reserve ? "ttl.cb_reserve" : "ttl.cb_wait";
    Value* cb = ops[at]->operand(0);
    std::set<const Value*> reached = {ops[at]->result(0)};
    Operation* last = ops[at];
    bool reacquired = false;
    for (size_t j = at + 1; j < ops.size(); ++j) {
      bool uses = false;
      ops[j]->walk([&](Operation* op) {
        reacquired |= op->isa(acquire) && op->numOperands() == 1 && op->operand(0) == cb;
        bool release = op->isa(reserve ? "ttl.cb_push" : "ttl.cb_pop");
        for (Value* v : op->operands())
          uses |= reached.count(v) > 0 || (v == cb && !reacquired && !release);
      });
      if (!uses) continue;
      last = ops[j];
      ops[j]->walk([&](Operation* op) {
        for (Value* v : op->results())
          reached.insert(v);
      });
    }
    OpBuilder b = OpBuilder::after(last);
    b.setLocation(ops[at]->location());
    b.create(reserve ? "ttl.cb_push" : "ttl.cb_pop", {cb}, {});
  }

  /// The view of the nearest acquire (`cb_reserve` / `cb_wait`, as `acquires` allows) of `cb`
  /// before `op`: in its block, else before the enclosing op in the block around it, and so on.
  static Value* viewBefore(Operation& op, Value* cb, std::vector<std::string_view> acquires) {
    for (Operation* anchor = &op; anchor && anchor->parentBlock(); anchor = anchor->parentOp()) {
      Value* view = nullptr;
      for (auto& other : anchor->parentBlock()->operations()) {
        if (other.get() == anchor) break;
        for (std::string_view acquire : acquires)
          if (other->isa(acquire) && other->operand(0) == cb) view = other->result(0);
      }
      if (view) return view;
      if (anchor->isa("ttl.kernel")) break;
    }
    return nullptr;
  }

  bool convert(Operation& op, Operation& thread) {
    const std::string& name = op.name();
    if (name == "ttl.bind_cb") {
      Value* cb = kernelCb(op);
      if (!cb) return false;
      replaceAllUsesWith(&thread, op.result(0), cb);
      eraseOp(&op);
      return true;
    }
    if (name == "ttl.attach_cb") { // an identity on the tensor
      replaceAllUsesWith(&thread, op.result(0), op.operand(0));
      eraseOp(&op);
      return true;
    }
    if (name == "ttl.copy") return convertCopy(op);
    if (name == "ttl.tensor_slice") { // ttlplan's slices carry no layout
      Type t = op.result(0)->type();
      op.result(0)->setType(Type::tensor(t.shape(), t.elementType()));
      return true;
    }
    if (name == "ttl.store" && op.attribute("accumulate").is(AttrKind::Unit)) {
      op.setAttribute("accumulate", Attribute::boolean(true));
      return true;
    }
    if (name == "ttl.create_pipe") {
      op.removeAttribute("net");
      return true;
    }
    if (name == "ttl.reduce") return convertReduce(op, thread);
    if (name == "ttl.block.broadcast") return convertBroadcast(op, thread);
    if (name == "ttl.fill") return true; // a reduce scaler; refused below if anything else uses it
    if (op.def() && op.def()->placement == Placement::TtLangThread)
      return fail(op.location(), fmt::format("import-ttlang: '{}' has no ttlplan meaning yet; "
                                             "docs/ttlang-interop.md lists what is imported",
                                             name));
    return true;
  }

  bool convertCopy(Operation& op) {
    // tt-lang copies between a slice (or a pipe) and the CB itself; ttlplan between a slice and
    // the view the thread reserved (a read) or waited for (a write), and sends a view it holds.
    for (size_t i = 0; i < 2; ++i) {
      Value* v = op.operand(i);
      if (!v->type().is(TypeKind::CircularBuffer)) continue;
      bool send = op.operand(1 - i)->type().is(TypeKind::Pipe);
      std::vector<std::string_view> acquires = {i == 1 ? "ttl.cb_reserve" : "ttl.cb_wait"};
      if (send) acquires = {"ttl.cb_reserve", "ttl.cb_wait"};
      Value* view = viewBefore(op, v, acquires);
      if (!view)
        return fail(op.location(),
                    fmt::format("import-ttlang: this copy {} a CB that is not {} before it",
                                send     ? "sends"
                                : i == 1 ? "reads into"
                                         : "writes out of",
                                send     ? "reserved or waited for"
                                : i == 1 ? "reserved"
                                         : "waited for"));
      op.setOperand(i, view);
    }
    return true;
  }

  bool convertReduce(Operation& op, Operation& thread) {
    Operation* scaler = op.operand(1)->definingOp();
    Attribute one = scaler ? scaler->attribute("value") : Attribute();
    if (!scaler || !scaler->isa("ttl.fill") || !one.is(AttrKind::Float) || one.floatValue() != 1.0)
      return fail(op.location(), "import-ttlang: a reduce whose scaler is not `ttl.fill 1.0` has "
                                 "no ttlplan meaning yet");
    int64_t kind = op.attribute("reduce_type").intValue();
    if (kind != 0 && kind != 1)
      return fail(op.location(), fmt::format("import-ttlang: reduce kind {} is neither sum (0) "
                                             "nor max (1)",
                                             kind));
    std::vector<Attribute> dims;
    if (!normalisedDims(op, op.attribute("dims"), dims)) return false;
    Operation* reduce = OpBuilder::before(&op).create(
        kind == 0 ? "ttl.reduce_sum" : "ttl.reduce_max", {op.operand(0)}, {op.result(0)->type()},
        {{"dims", Attribute::array(dims)}});
    reduce->setLocation(op.location());
    replaceWith(op, *reduce, thread);
    if (!hasUses(&thread, scaler->result(0))) eraseOp(scaler);
    return true;
  }

  bool convertBroadcast(Operation& op, Operation& thread) {
    std::vector<Attribute> dims;
    if (!normalisedDims(op, op.attribute("dims"), dims)) return false;
    Operation* bcast = OpBuilder::before(&op).create(
        "ttl.bcast", {op.operand(0)}, {op.result(0)->type()}, {{"dims", Attribute::array(dims)}});
    bcast->setLocation(op.location());
    replaceWith(op, *bcast, thread);
    return true;
  }

  /// `dims` (negative counting from the end, as tt-lang allows) as ttlplan's [0, rank) list.
  bool normalisedDims(Operation& op, const Attribute& dims, std::vector<Attribute>& out) {
    std::vector<int64_t> values =
        dims.is(AttrKind::DenseArray) ? dims.denseValues() : std::vector<int64_t>{};
    if (dims.is(AttrKind::Array)) dims.getIntegers(values);
    for (int64_t d : values) {
      int64_t n = d < 0 ? d + 2 : d;
      if (n < 0 || n > 1)
        return fail(op.location(), fmt::format("import-ttlang: dim {} of a 2-D block", d));
      out.push_back(Attribute::integer(n));
    }
    return true;
  }

  static void replaceWith(Operation& old, Operation& replacement, Operation& scope) {
    replacement.result(0)->setNameHint(old.result(0)->nameHint());
    replaceAllUsesWith(&scope, old.result(0), replacement.result(0));
    eraseOp(&old);
  }

  Module& module_;
  DiagnosticEngine& diags_;
  Operation* kernel_ = nullptr;
  Operation* lastCb_ = nullptr; ///< the kernel's last ttl.create_cb so far
  std::map<int64_t, Value*> cbs_;
  std::map<int64_t, Value*> sharedArgs_;
  std::vector<std::string> assumed_; ///< the kernel's `assumed` lines
  bool onItsOwn_ = false;            ///< no ttl.launch_grid: thread functions planned on one core
  bool ok_ = true;
};

} // namespace

std::string outsideEndRefusal(Operation& kernel, std::string_view what) {
  std::string out;
  kernel.walk([&](Operation* op) {
    Attribute end = op->isa("ttl.create_cb") ? op->attribute("outside") : Attribute();
    if (!out.empty() || !end.is(AttrKind::String)) return;
    out =
        fmt::format("{} needs every thread of the kernel, but the {} of %{} ({}) is not in "
                    "this file (a tt-lang thread planned on its own, or a compile-only tt-lang "
                    "kernel whose data-movement threads are empty); `plan` reports its L1, CB "
                    "indices and DST; write the thread that is missing (with `ttl.launch_grid` "
                    "for thread functions) to {} it",
                    what, end.stringValue(), op->result(0)->nameHint(), op->location().str(), what);
  });
  return out;
}

bool isTtlangModule(const Module& module) {
  return module.topLevel("ttl.kernel").empty() && !threadFunctions(module).empty();
}

bool importTtlang(Module& module, DiagnosticEngine& diags) {
  if (!isTtlangModule(module)) return true;
  return Importer(module, diags).run();
}

} // namespace ttlplan::ir
