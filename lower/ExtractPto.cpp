// The pto target's problem extraction (PtoPlanner.h): CBs with their memory and pipes, the matmul
// staging buffers, the chain temporaries, and the located refusals of what PTO cannot express.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/PtoPlanner.h"
#include "ttlplan/planner/colouring/Colouring.h"
#include "ttlplan/planner/l1/Solve.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace ttlplan::lower {

namespace {

namespace pp = planner::pto;

/// Bytes of one L0C accumulator element: fp32.
constexpr int64_t kAccumulatorBytes = 4;

std::string located(const ir::Operation* op, const std::string& what) {
  return fmt::format("{}: error: {}", op->location().str(), what);
}

/// Bytes of one element in a pto-isa tile (half, bfloat16_t, float, int32_t, uint32_t).
Expected<int64_t> elementBytes(ir::DataType type) {
  switch (type) {
  case ir::DataType::BF16:
  case ir::DataType::F16:
    return 2;
  case ir::DataType::F32:
  case ir::DataType::I32:
  case ir::DataType::U32:
    return 4;
  case ir::DataType::BFP8_B:
  case ir::DataType::BFP4_B:
    break;
  }
  return Error{fmt::format("{} is a Tenstorrent block-float format, which pto-isa tiles do not "
                           "hold (they hold half, bfloat16_t, float and 32-bit integers); use bf16",
                           ir::toString(type))};
}

Expected<int64_t> ptoTileBytes(ir::DataType type, const ir::Type& tile) {
  Expected<int64_t> element = elementBytes(type);
  if (!element) return element.error();
  return tile.tileRows() * tile.tileColumns() * *element;
}

/// The first construct of `kernel` that PTO cannot express, as a located error.
std::optional<std::string> refusal(ir::Operation* kernel) {
  static const std::set<std::string_view> multicast = {
      "ttl.create_pipe", "ttl.if_src", "ttl.if_dst",   "ttl.pipenet_scope",
      "ttl.is_src",      "ttl.is_dst", "ttl.is_active"};
  static const std::set<std::string_view> semaphores = {
      "ttl.create_semaphore", "ttl.semaphore_wait", "ttl.semaphore_set", "ttl.semaphore_inc"};
  std::optional<std::string> out;
  kernel->walk([&](ir::Operation* op) {
    if (out) return;
    const std::string_view name = op->name();
    if (multicast.count(name))
      out = located(op, fmt::format("{}: multicast has no meaning under --target pto: an Ascend "
                                    "AI core has no core-to-core multicast (each core loads its "
                                    "own tiles from global memory with TLOAD); read the data on "
                                    "every core instead of sending it through a pipe",
                                    name));
    else if (semaphores.count(name))
      out = located(op, fmt::format("{}: semaphores between cores have no meaning under --target "
                                    "pto: pto-isa's set_flag/wait_flag order the pipes of one "
                                    "core, not one core against another",
                                    name));
    else if (name == "ttl.fill_reduce_scaler")
      out = located(op, "ttl.fill_reduce_scaler fills the scaler CB of a Tenstorrent reduction: "
                        "pto-isa's TROWSUM/TROWMAX take no scaler; leave it to `ttlplan` (it adds "
                        "the scaler CB for Tenstorrent targets only)");
    else if (const ir::OpDef* def = op->def();
             def && def->compute.kind != ir::ComputeKind::None && def->compute.pto.empty())
      out = located(op, fmt::format("{} has no pto-isa instruction in ttlplan yet; `ttlplan ops` "
                                    "lists each compute op's instruction under --target pto",
                                    name));
  });
  return out;
}

/// How the threads use one CB.
struct CbUse {
  bool filledByCompute = false, filledByMover = false;
  bool drainedByCompute = false, drainedByMover = false;
  int matmulOperand = -1;            ///< 0: a matmul's lhs reads its view, 1: the rhs
  bool readByOtherCompute = false;   ///< a compute op other than matmul reads its view
  bool matmulResult = false;         ///< a matmul result is stored into its view
  ir::Operation* firstUse = nullptr; ///< for messages
};

/// The views of CBs: the value a cb_wait or cb_reserve gives, and the CB's position.
using Views = std::map<const ir::Value*, size_t>;

/// Which threads fill and drain each CB, and how the compute thread reads the views.
Expected<std::vector<CbUse>> cbUses(ir::Operation* kernel, const std::vector<CbInfo>& cbs) {
  std::map<const ir::Value*, size_t> cbIndex;
  for (size_t i = 0; i < cbs.size(); ++i)
    cbIndex[ir::CreateCBOp(cbs[i].op).cb()] = i;
  std::vector<CbUse> uses(cbs.size());
  Views views;
  std::string error;
  for (const std::unique_ptr<ir::Operation>& thread : kernel->body().operations()) {
    std::optional<ir::ThreadOp> t = ir::ThreadOp::dyn(thread.get());
    if (!t) continue;
    const bool compute = t->isCompute();
    thread->walk([&](ir::Operation* op) {
      if (!error.empty() || op->numOperands() == 0) return;
      const std::string_view name = op->name();
      const bool fills = name == "ttl.cb_reserve" || name == "ttl.cb_push";
      const bool drains = name == "ttl.cb_wait" || name == "ttl.cb_pop";
      if (fills || drains) {
        auto it = cbIndex.find(op->operand(0));
        if (it == cbIndex.end()) return;
        CbUse& use = uses[it->second];
        if (!use.firstUse) use.firstUse = op;
        (fills ? (compute ? use.filledByCompute : use.filledByMover)
               : (compute ? use.drainedByCompute : use.drainedByMover)) = true;
        if (op->numResults() == 1) views[op->result(0)] = it->second;
        return;
      }
      if (!compute) return;
      if (auto matmul = ir::MatmulOp::dyn(op)) {
        for (int side = 0; side < 2; ++side) {
          auto it = views.find(side == 0 ? matmul->lhs() : matmul->rhs());
          if (it == views.end()) {
            error = located(op, "ttl.matmul under --target pto reads both operands from CBs "
                                "(TLOAD into L1, TEXTRACT into L0A/L0B); this operand is computed");
            return;
          }
          uses[it->second].matmulOperand = side;
        }
        return;
      }
      if (auto store = ir::StoreOp::dyn(op)) {
        auto it = views.find(store->view());
        if (it != views.end() && ir::MatmulOp::dyn(store->value()->definingOp()))
          uses[it->second].matmulResult = true;
        return;
      }
      for (size_t k = 0; k < op->numOperands(); ++k)
        if (auto it = views.find(op->operand(k)); it != views.end())
          uses[it->second].readByOtherCompute = true;
    });
  }
  if (!error.empty()) return Error{error};
  return uses;
}

/// The memory and pipes of CB `cb` under `use`, or why PTO cannot place it.
Expected<pp::BufferSpec> cbBuffer(const CbInfo& cb, const CbUse& use, int maxBlockCount) {
  pp::BufferSpec b;
  b.name = cb.name;
  b.location = cb.location;
  b.role = pp::BufferRole::Cb;
  b.blockShape = cb.blockShape;
  b.dataType = cb.dataType;
  b.slotBytes = cb.blockBytes();
  b.slots = cb.blockCount;
  b.maxSlots = std::max(1, maxBlockCount);
  b.producer = use.filledByCompute ? pp::Pipe::V : pp::Pipe::Mte2;
  b.consumer = use.drainedByCompute ? pp::Pipe::V : pp::Pipe::Mte3;
  if (!use.filledByCompute && !use.filledByMover) b.producer = b.consumer;
  if (!use.drainedByCompute && !use.drainedByMover) b.consumer = b.producer;
  if (use.matmulOperand >= 0) {
    if (use.readByOtherCompute || use.filledByCompute)
      return Error{fmt::format(
          "{}: error: CB {} feeds a ttl.matmul and is also {}: under --target pto a matmul "
          "operand lives in L1, loaded by TLOAD and read only by the cube (through L0A/L0B)",
          cb.location, cb.name,
          use.filledByCompute ? "filled by the compute thread" : "read by another compute op")};
    b.memory = pp::Memory::L1;
    b.consumer = pp::Pipe::Mte1;
  } else if (use.matmulResult) {
    if (use.drainedByCompute)
      return Error{fmt::format(
          "{}: error: CB {} holds a ttl.matmul result that the compute thread reads again: under "
          "--target pto a matmul accumulates in L0C, which only TSTORE (the FIX pipe) drains; "
          "store the result and read it back in another kernel",
          cb.location, cb.name)};
    b.memory = pp::Memory::L0c;
    b.producer = pp::Pipe::M;
    b.consumer = pp::Pipe::Fix;
    // L0C holds fp32 accumulators whatever type is stored (pto-isa's Acc tiles are float).
    std::optional<ir::DataType> stored = ir::parseDataType(cb.dataType);
    Expected<int64_t> element = elementBytes(stored.value_or(ir::DataType::F32));
    b.slotBytes = cb.blockBytes() / (element ? *element : 4) * kAccumulatorBytes;
  }
  return b;
}

/// A staging buffer in L0A / L0B for the matmul operand CB `source`.
pp::BufferSpec stagingBuffer(const pp::BufferSpec& source, int side, size_t sourceIndex) {
  pp::BufferSpec b = source;
  b.role = pp::BufferRole::Staging;
  b.memory = side == 0 ? pp::Memory::L0a : pp::Memory::L0b;
  b.name = source.name + (side == 0 ? ".l0a" : ".l0b");
  b.slots = std::nullopt; // ping-pong when it fits
  b.maxSlots = 2;
  b.producer = pp::Pipe::Mte1;
  b.consumer = pp::Pipe::M;
  b.source = int(sourceIndex);
  return b;
}

pp::MemoryLimit memoryLimit(const ir::pto::Device& device, pp::Memory memory) {
  const ir::pto::Buffer* buffer = device.buffer(pp::toString(memory));
  if (!buffer) return {0, 1};
  // A reserved window ends the room for tiles (A2/A3's UB: the top 8 KiB, docs/pto-facts.md).
  return {buffer->reserved ? buffer->reserved->start : buffer->sizeBytes,
          std::max<int64_t>(1, buffer->alignmentBytes)};
}

} // namespace

std::optional<std::string> ptoOversize(const pp::Problem& problem) {
  for (const pp::BufferSpec& b : problem.buffers) {
    const pp::MemoryLimit& limit = problem.memories[size_t(b.memory)];
    if (b.slotBytes <= limit.capacity) continue;
    return fmt::format("{}: error: {} {}: one {} of {} B is larger than the {} B of {} on {}; use "
                       "a smaller block",
                       b.location, b.role == pp::BufferRole::Cb ? "CB" : "buffer", b.name,
                       b.role == pp::BufferRole::Temporary ? "value" : "block",
                       planner::l1::withThousands(b.slotBytes),
                       planner::l1::withThousands(limit.capacity), pp::toString(b.memory),
                       problem.device);
  }
  return std::nullopt;
}

namespace {} // namespace

std::optional<ir::DataType> ptoComputeType(const ir::Value* value, const ir::Binding& binding) {
  const ir::Type& type = value->type();
  if (!type.is(ir::TypeKind::Tensor) || !type.elementType().is(ir::TypeKind::Tile))
    return std::nullopt;
  std::optional<ir::DataType> dt = ir::resolveDataType(type.elementType(), binding);
  if (dt == ir::DataType::BF16) return ir::DataType::F32;
  return dt;
}

namespace {

/// The block value's data type as stored (its tile type under the binding).
std::optional<ir::DataType> storedType(const ir::Value* value, const ir::Binding& binding) {
  const ir::Type& type = value->type();
  if (!type.is(ir::TypeKind::Tensor) || !type.elementType().is(ir::TypeKind::Tile))
    return std::nullopt;
  return ir::resolveDataType(type.elementType(), binding);
}

/// A vector op of the pto target: a compute op with a pto-isa instruction but a matmul's.
bool isVectorOp(ir::Operation* op) {
  return isComputeChainOp(op) && !ir::MatmulOp::dyn(op);
}

/// The pto instruction of a binary elementwise op that has row- and column-expanded forms
/// (TROWEXPAND<op>, TCOLEXPAND<op>); empty for any other op.
std::string_view expandableBinary(const ir::Operation* op) {
  const ir::OpDef* def = op->def();
  if (!def || def->compute.kind != ir::ComputeKind::Binary) return {};
  const std::string_view pto = def->compute.pto;
  return pto == "TADD" || pto == "TSUB" || pto == "TMUL" || pto == "TMAX" ? pto
                                                                          : std::string_view{};
}

/// Assigns each vector op's result its form (PtoTemporaries::forms), or a located error.
class FormPass {
public:
  Expected<std::map<const ir::Value*, PtoForm>> run(ir::Operation* kernel) {
    kernel->walk([&](ir::Operation* op) {
      if (error_.empty()) visit(op);
    });
    if (!error_.empty()) return Error{error_};
    for (const auto& [bcast, fusable] : fusable_)
      forms_[bcast] = fusable ? PtoForm::Expanded : PtoForm::Block;
    return forms_;
  }

private:
  PtoForm form(const ir::Value* v) const {
    auto it = forms_.find(v);
    return it == forms_.end() ? PtoForm::Block : it->second;
  }
  void fail(const ir::Operation* op, const std::string& what) {
    if (error_.empty()) error_ = located(op, "--target pto: " + what);
  }
  /// Whether `op` can fold the bcast `operand` (position k) in: a binary op with an expanded
  /// form, whose other operand is a block; a column expansion is src1's (or either operand's
  /// when the op commutes).
  bool folds(const ir::Operation* op, size_t k, const std::vector<int64_t>& dims) const {
    const std::string_view pto = expandableBinary(op);
    if (pto.empty() || op->numOperands() != 2) return false;
    const ir::Value* other = op->operand(1 - k);
    if (other == op->operand(k) || fusable_.count(other) || form(other) != PtoForm::Block)
      return false;
    return dims == std::vector<int64_t>{1} || k == 1 || pto != "TSUB";
  }
  void visit(ir::Operation* op) {
    for (size_t k = 0; k < op->numOperands(); ++k) {
      auto b = fusable_.find(op->operand(k));
      if (b != fusable_.end() && b->second)
        b->second = folds(op, k, ir::ReduceOrBcastOp(b->first->definingOp()).dims());
    }
    if (auto store = ir::StoreOp::dyn(op); store && form(store->value()) == PtoForm::PerRow)
      return fail(op, "a row reduction's value (one element per row) is stored: the pto target "
                      "lowers it only as an operand of elementwise ops and of ttl.bcast {dims = "
                      "[1]}; broadcast it back to the block before storing");
    if (!isVectorOp(op)) return;
    if (auto rb = ir::ReduceOrBcastOp::dyn(op)) return reduceOrBcast(op, *rb);
    bool perRow = false, block = false;
    for (size_t k = 0; k < op->numOperands(); ++k)
      (form(op->operand(k)) == PtoForm::PerRow ? perRow : block) = true;
    if (perRow && block)
      return fail(op, fmt::format("{} mixes a row reduction's value with a block: broadcast the "
                                  "value first (ttl.bcast {{dims = [1]}})",
                                  op->name()));
    if (perRow) forms_[op->result(0)] = PtoForm::PerRow;
  }
  void reduceOrBcast(ir::Operation* op, const ir::ReduceOrBcastOp& rb) {
    const std::vector<int64_t> dims = rb.dims();
    const PtoForm input = form(rb.input());
    if (!rb.isBroadcast()) {
      if (dims != std::vector<int64_t>{1})
        return fail(op, fmt::format("{} over dims [{}]: the pto target lowers row reductions "
                                    "(dims [1], TROWSUM/TROWMAX) only",
                                    op->name(), fmt::join(dims, ", ")));
      if (input != PtoForm::Block)
        return fail(op, "a reduction of a row reduction's value: reduce the block instead");
      forms_[op->result(0)] = PtoForm::PerRow;
      return;
    }
    if (dims == std::vector<int64_t>{1} && input != PtoForm::PerRow)
      return fail(op, "ttl.bcast {dims = [1]} under --target pto broadcasts a row reduction's "
                      "value along the rows (TROWEXPAND); this operand is a block");
    if (dims == std::vector<int64_t>{0} && input != PtoForm::Block)
      return fail(op, "ttl.bcast {dims = [0]} under --target pto broadcasts row 0 of a block down "
                      "the columns (TCOLEXPAND); this operand is not a block");
    if (dims != std::vector<int64_t>{1} && dims != std::vector<int64_t>{0})
      return fail(op, "ttl.bcast of element (0, 0) (dims [0, 1]) is not lowered for pto yet: "
                      "pto-isa's TROWEXPAND and TCOLEXPAND broadcast one dimension at a time");
    fusable_[op->result(0)] = true; // until a reader cannot fold it in
  }

  std::map<const ir::Value*, PtoForm> forms_;
  std::map<const ir::Value*, bool> fusable_; ///< bcast results: every reader so far folds it in
  std::string error_;
};

/// A temporary before colouring: a value (or an op's scratch), its live interval and tile type.
struct TemporaryUse {
  const ir::Value* value = nullptr;         ///< null for a scratch tile
  const ir::Operation* scratchOf = nullptr; ///< the op whose scratch it is
  ir::Operation* at = nullptr;              ///< defining, converting or using op
  planner::colouring::Interval live;
  std::vector<int64_t> blockShape;
  std::string dataType; ///< the compute type
  bool perRow = false;
  int64_t bytes = 0;
};

/// The bytes of `value`'s block (`shape` tiles) in the element type `type`; of one column of it
/// (one element per row) when perRow.
int64_t temporaryBytes(const ir::Value* value, const std::vector<int64_t>& shape,
                       std::optional<ir::DataType> type, bool perRow) {
  Expected<int64_t> element = elementBytes(type.value_or(ir::DataType::F32));
  int64_t bytes = element ? *element : 4;
  const ir::Type& tile = value->type().elementType();
  if (shape.empty() || !tile.is(ir::TypeKind::Tile)) return bytes;
  bytes *= shape[0] * tile.tileRows();
  if (!perRow)
    for (size_t d = 1; d < shape.size(); ++d)
      bytes *= shape[d] * tile.tileColumns();
  return bytes;
}

std::vector<int64_t> resolvedShape(const ir::Value* value, const ir::Binding& binding) {
  std::vector<int64_t> shape;
  for (const ir::Dim& d : value->type().shape())
    shape.push_back(ir::resolveDim(d, binding).value_or(0));
  return shape;
}

/// Whether `op` needs a scratch tile: a row reduction, or a composite op whose program names `t`.
bool needsScratch(ir::Operation* op) {
  if (auto rb = ir::ReduceOrBcastOp::dyn(op)) return !rb->isBroadcast();
  const ir::OpDef* def = op->def();
  return def && def->compute.pto.find("t=") != std::string::npos;
}

} // namespace

Expected<std::vector<PtoStatement>> parsePtoProgram(std::string_view pto) {
  std::vector<PtoStatement> out;
  if (pto.find('(') == std::string_view::npos) { // one instruction: y = INSTR(x...)
    const bool name = !pto.empty() && std::all_of(pto.begin(), pto.end(), [](char c) {
      return std::isupper(static_cast<unsigned char>(c)) ||
             std::isdigit(static_cast<unsigned char>(c)) || c == '_';
    });
    if (!name)
      return Error{
          fmt::format("malformed pto field '{}': want INSTR or dst=INSTR(args); ...", pto)};
    out.push_back({"y", std::string(pto), {}});
    return out;
  }
  auto trim = [](std::string_view t) {
    while (!t.empty() && t.front() == ' ')
      t.remove_prefix(1);
    while (!t.empty() && t.back() == ' ')
      t.remove_suffix(1);
    return t;
  };
  size_t start = 0;
  while (start < pto.size()) {
    size_t end = pto.find(';', start);
    std::string_view text = trim(pto.substr(start, end - start));
    start = end == std::string_view::npos ? pto.size() : end + 1;
    const size_t eq = text.find('='), open = text.find('('), close = text.rfind(')');
    if (eq == std::string_view::npos || open == std::string_view::npos ||
        close != text.size() - 1 || open < eq)
      return Error{fmt::format("malformed pto statement '{}': want dst=INSTR(args)", text)};
    PtoStatement st{std::string(trim(text.substr(0, eq))),
                    std::string(trim(text.substr(eq + 1, open - eq - 1))),
                    {}};
    std::string_view args = text.substr(open + 1, close - open - 1);
    for (size_t a = 0; a <= args.size();) {
      size_t comma = args.find(',', a);
      if (comma == std::string_view::npos) comma = args.size();
      st.args.emplace_back(trim(args.substr(a, comma - a)));
      a = comma + 1;
    }
    if (st.dst != "y" && st.dst != "t")
      return Error{fmt::format("pto statement '{}' writes '{}': want y or t", text, st.dst)};
    out.push_back(std::move(st));
  }
  if (out.empty() || out.back().dst != "y")
    return Error{fmt::format("pto program '{}' does not end by writing y", pto)};
  return out;
}

// Positions are those of one walk of the kernel (PtoPlanner.h says what needs a temporary).
Expected<PtoTemporaries> ptoTemporaries(ir::Operation* kernel, const ir::Binding& binding) {
  PtoTemporaries out;
  Expected<std::map<const ir::Value*, PtoForm>> forms = FormPass().run(kernel);
  if (!forms) return forms.error();
  out.forms = std::move(*forms);
  auto form = [&](const ir::Value* v) {
    auto it = out.forms.find(v);
    return it == out.forms.end() ? PtoForm::Block : it->second;
  };
  // What an op reads for an operand: an Expanded bcast's input.
  auto resolve = [&](const ir::Value* v) {
    while (form(v) == PtoForm::Expanded)
      v = v->definingOp()->operand(0);
    return v;
  };
  std::vector<TemporaryUse> uses;
  std::map<const ir::Value*, size_t> index;
  std::set<const ir::Value*> views; ///< cb_wait results
  // A temporary shaped like `v` (its block, or one value per row), in its compute type.
  auto shapedLike = [&](const ir::Value* v, ir::Operation* at, int64_t lower, int64_t upper) {
    TemporaryUse u{nullptr, nullptr, at, {lower, upper}, resolvedShape(v, binding), "", false, 0};
    const std::optional<ir::DataType> compute = ptoComputeType(v, binding);
    if (compute) u.dataType = std::string(ir::toString(*compute));
    u.perRow = form(v) == PtoForm::PerRow;
    u.bytes = temporaryBytes(v, u.blockShape, compute, u.perRow);
    return u;
  };
  auto add = [&](const ir::Value* v, ir::Operation* at, int64_t lower, int64_t upper) {
    index[v] = uses.size();
    uses.push_back(shapedLike(v, at, lower, upper));
    uses.back().value = v;
  };
  int64_t position = 0;
  kernel->walk([&](ir::Operation* op) {
    ++position;
    if (op->name() == "ttl.cb_wait" && op->numResults() == 1) views.insert(op->result(0));
    if (op->numResults() == 1 && form(op->result(0)) == PtoForm::Expanded) return;
    for (size_t k = 0; k < op->numOperands(); ++k) {
      const ir::Value* v = resolve(op->operand(k));
      auto store = ir::StoreOp::dyn(op);
      auto it = index.find(v);
      if (it != index.end()) {
        // A store reads the value only when it converts it into the view (bf16 from float).
        if (!store || storedType(store->view(), binding) != ptoComputeType(v, binding))
          uses[it->second].live.upper = position + 1;
      } else if (views.count(v) && isVectorOp(op) &&
                 storedType(v, binding) != ptoComputeType(v, binding)) {
        add(v, op, position, position + 1); // TCVT into float right before its first reader
      }
    }
    if (!isVectorOp(op)) return;
    add(op->result(0), op, position, position); // empty until something needs it in a buffer
    if (needsScratch(op)) {
      // Shaped like the reduction's source, or the composite op's result; live at the op only.
      const ir::Value* like =
          ir::ReduceOrBcastOp::dyn(op) ? resolve(op->operand(0)) : op->result(0);
      uses.push_back(shapedLike(like, op, position, position + 1));
      uses.back().scratchOf = op;
    }
  });
  // One interval colouring per tile type: values sharing a buffer share its C++ tile type.
  std::map<std::tuple<bool, std::vector<int64_t>, std::string>, std::vector<size_t>> classes;
  for (size_t u = 0; u < uses.size(); ++u)
    classes[{uses[u].perRow, uses[u].blockShape, uses[u].dataType}].push_back(u);
  for (const auto& [key, members] : classes) {
    std::vector<planner::colouring::Interval> live;
    for (size_t u : members)
      live.push_back(uses[u].live);
    std::vector<int> colours = planner::colouring::colourIntervals(live);
    const size_t first = out.buffers.size();
    out.buffers.resize(first + size_t(planner::colouring::span(colours)));
    for (size_t m = 0; m < members.size(); ++m) {
      if (colours[m] < 0) continue;
      const TemporaryUse& u = uses[members[m]];
      const size_t buffer = first + size_t(colours[m]);
      if (u.value)
        out.bufferOf[u.value] = buffer;
      else
        out.scratchOf[u.scratchOf] = buffer;
      pp::BufferSpec& b = out.buffers[buffer];
      if (b.name.empty()) {
        b.location = u.at->location().str();
        b.role = pp::BufferRole::Temporary;
        b.memory = pp::Memory::Ub;
        b.slots = 1;
        b.producer = b.consumer = pp::Pipe::V;
        b.blockShape = u.blockShape;
        b.dataType = u.dataType;
        b.perRow = u.perRow;
      }
      const std::string name =
          u.value ? valueName(u.value) : valueName(u.scratchOf->result(0)) + ".scratch";
      b.name += (b.name.empty() ? "" : "/") + name;
      b.slotBytes = std::max(b.slotBytes, u.bytes);
    }
  }
  return out;
}

Expected<pp::Problem> extractPtoProblem(ir::Operation* kernel, const ir::Binding& binding,
                                        const ir::pto::Device& device, int maxBlockCount,
                                        PtoTemporaries* temporariesOut) {
  if (std::optional<std::string> why = refusal(kernel)) return Error{*why};
  Expected<std::vector<CbInfo>> cbs = extractCbs(kernel, binding, ptoTileBytes);
  if (!cbs) return cbs.error();
  Expected<std::vector<CbUse>> uses = cbUses(kernel, *cbs);
  if (!uses) return uses.error();
  ir::KernelOp view(kernel);
  pp::Problem problem;
  problem.kernel = fmt::format("@{}", view.symbolName());
  problem.location = kernel->location().str();
  problem.device = device.name;
  problem.eventIds = device.eventIdsPerPipePair;
  for (int m = 0; m < pp::kMemoryCount; ++m)
    problem.memories[size_t(m)] = memoryLimit(device, pp::Memory(m));
  std::vector<pp::BufferSpec> staging;
  for (size_t i = 0; i < cbs->size(); ++i) {
    Expected<pp::BufferSpec> b = cbBuffer((*cbs)[i], (*uses)[i], maxBlockCount);
    if (!b) return b.error();
    b->source = int(i);
    if ((*uses)[i].matmulOperand >= 0)
      staging.push_back(stagingBuffer(*b, (*uses)[i].matmulOperand, i));
    problem.buffers.push_back(std::move(*b));
  }
  for (pp::BufferSpec& b : staging)
    problem.buffers.push_back(std::move(b));
  Expected<PtoTemporaries> temporaries = ptoTemporaries(kernel, binding);
  if (!temporaries) return temporaries.error();
  problem.buffers.insert(problem.buffers.end(), temporaries->buffers.begin(),
                         temporaries->buffers.end());
  if (temporariesOut) *temporariesOut = std::move(*temporaries);
  return problem;
}

} // namespace ttlplan::lower
