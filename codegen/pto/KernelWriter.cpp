// The pto kernel visitor (KernelWriter.h).
#include "ttlplan/codegen/pto/KernelWriter.h"

#include "ttlplan/codegen/CppText.h"
#include "ttlplan/codegen/pto/TypeConverter.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/PtoPlanner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace ttlplan::codegen::pto {

namespace {

namespace pp = planner::pto;

/// Lines of C++ with indentation.
class CodeEmitter {
public:
  void line(const std::string& text) { text_ += std::string(2 * indent_, ' ') + text + "\n"; }
  void blank() { text_ += "\n"; }
  void open(const std::string& header) {
    line(header + " {");
    ++indent_;
  }
  void close(const std::string& tail = "") {
    --indent_;
    line("}" + tail);
  }
  const std::string& text() const { return text_; }

private:
  std::string text_;
  int indent_ = 0;
};

/// `PIPE_<name>`.
std::string pipeName(pp::Pipe pipe) {
  return fmt::format("PIPE_{}", pp::toString(pipe));
}

/// One buffer's C++ names and slot counters.
struct BufferNames {
  std::string array;        ///< the tiles, one per slot: "cba"
  std::string put, take;    ///< producer and consumer counters: "cba_put", "cba_take"
  std::string ready, free;  ///< the event id tables: "kCbaReady", "kCbaFree"
  std::string producerSlot; ///< the slot of the last reserve (C++ variable)
  std::string consumerSlot; ///< the slot of the last wait
  std::string rowAlias;     ///< per-row buffers: the row-major alias tile ("tmp_mx_row")
};

/// The C++ name and meaning of every value the emitted code refers to.
class Context {
public:
  NameTable names;
  std::map<const ir::Value*, std::string> scalars;  ///< index values: a C++ expression
  std::map<const ir::Value*, std::string> tiles;    ///< block values: a tile lvalue
  std::map<const ir::Value*, std::string> globals;  ///< tensor values: a GlobalTensor or pointer
  std::map<const ir::Value*, size_t> cbOf;          ///< create_cb results -> buffer index
  std::map<const ir::Value*, size_t> viewBuffer;    ///< CB views -> buffer index
  std::set<const ir::Value*> vectorResults;         ///< values a V instruction wrote
  std::map<const ir::Value*, std::string> rowTiles; ///< per-row values: the row-major alias
};

class KernelWriter {
public:
  explicit KernelWriter(const KernelInput& input) : in_(input) {}
  Expected<std::string> run();

private:
  bool fail(const ir::Operation* op, const std::string& what) {
    if (error_.empty()) error_ = fmt::format("{}: error: {}", op->location().str(), what);
    return false;
  }
  bool declare();
  void prologue();
  void epilogue();
  /// The threads' blocks at one nesting level, in thread order, fused into one stream.
  bool fuse(const std::vector<ir::Block*>& parts);
  bool emitLoop(const std::vector<ir::Operation*>& loops);
  bool emitOp(ir::Operation* op);
  bool emitArith(ir::Operation* op);
  bool emitCbOp(ir::Operation* op);
  bool emitSlice(ir::Operation* op);
  bool emitCopy(ir::Operation* op);
  bool emitComputeOp(ir::Operation* op);
  std::optional<std::string> operandTile(ir::Operation* op, const ir::Value* value);
  std::optional<std::string> destination(ir::Operation* op, const ir::Value* result);
  bool emitProgram(ir::Operation* op, const std::string& y, const std::string& x);
  lower::PtoForm form(const ir::Value* v) const {
    auto it = temporaries_.forms.find(v);
    return it == temporaries_.forms.end() ? lower::PtoForm::Block : it->second;
  }
  bool emitMatmul(ir::Operation* op);
  std::optional<size_t> stagingOf(const ir::Value* view, pp::Memory memory) const;
  std::optional<std::string> stage(ir::Operation* op, const ir::Value* view, pp::Memory memory);
  bool emitStore(ir::Operation* op);
  std::optional<std::string> scalar(const ir::Value* value, const ir::Operation* user);
  void at(const ir::Operation* op);
  const pp::BufferSpec& spec(size_t b) const { return in_.problem->buffers[b]; }

  const KernelInput& in_;
  CodeEmitter out_;
  Context ctx_;
  std::vector<BufferNames> buffers_;
  lower::PtoTemporaries temporaries_;
  size_t firstTemporary_ = 0;
  /// Values whose every use is a ttl.store: computed straight into the stored view.
  std::map<const ir::Value*, const ir::Value*> storedInto_;
  std::vector<int64_t> workDims_;
  std::map<const ir::Value*, std::string> fresh_;      ///< L0C views: "no matmul wrote it yet"
  std::vector<std::pair<size_t, std::string>> staged_; ///< the current matmul's staging slots
  std::string error_;
};

void KernelWriter::at(const ir::Operation* op) {
  std::string comment = sourceComment(op->location(), in_.sources);
  if (!comment.empty()) out_.line(comment);
  out_.line(fmt::format("TTLPLAN_AT(\"{}\");", op->location().str()));
}

bool KernelWriter::declare() {
  // Buffers: a tile per slot, TASSIGNed at its planned offset, and the event id tables.
  for (size_t b = 0; b < in_.problem->buffers.size(); ++b) {
    const pp::BufferSpec& buffer = spec(b);
    const pp::BufferPlan& plan = in_.plan->buffers[b];
    Expected<std::string> type = tileType(buffer);
    if (!type) {
      error_ = fmt::format("{}: error: {}", buffer.location, type.error().message);
      return false;
    }
    std::string base =
        ctx_.names.unique(buffer.role == pp::BufferRole::Temporary ? "tmp_" + buffer.name.substr(1)
                                                                   : buffer.name.substr(1));
    BufferNames names;
    names.array = base;
    std::string capital = base;
    capital[0] = char(std::toupper(static_cast<unsigned char>(capital[0])));
    names.put = ctx_.names.unique(base + "_put");
    names.take = ctx_.names.unique(base + "_take");
    names.ready = ctx_.names.unique("k" + capital + "Ready");
    names.free = ctx_.names.unique("k" + capital + "Free");
    out_.line(fmt::format("// {} {} ({}): {} slot{} of {} B in {}, filled on {}, drained on {}",
                          pp::toString(buffer.role), buffer.name, buffer.location, plan.slots,
                          plan.slots == 1 ? "" : "s", buffer.slotBytes, pp::toString(buffer.memory),
                          pp::toString(buffer.producer), pp::toString(buffer.consumer)));
    out_.line(fmt::format("{} {}[{}];", *type, base, plan.slots));
    for (int64_t s = 0; s < plan.slots; ++s)
      out_.line(fmt::format("TASSIGN({}[{}], 0x{:x});", base, s, plan.offsets[size_t(s)]));
    if (buffer.perRow) { // the same bytes as a row, for elementwise ops (TypeConverter.h)
      Expected<std::string> row = rowAliasType(buffer);
      if (!row) return fail(in_.kernel, row.error().message);
      names.rowAlias = ctx_.names.unique(base + "_row");
      out_.line(fmt::format("{} {}[1];", *row, names.rowAlias));
      out_.line(fmt::format("TASSIGN({}[0], 0x{:x});", names.rowAlias, plan.offsets[0]));
    }
    if (!plan.readyEvents.empty()) {
      out_.line(fmt::format("constexpr int {}[] = {{{}}};", names.ready,
                            fmt::join(plan.readyEvents, ", ")));
      out_.line(fmt::format("constexpr int {}[] = {{{}}};", names.free,
                            fmt::join(plan.freeEvents, ", ")));
    }
    if (buffer.role == pp::BufferRole::Cb)
      out_.line(fmt::format("int64_t {} = 0, {} = 0; // blocks reserved and waited for", names.put,
                            names.take));
    else if (buffer.role == pp::BufferRole::Staging)
      out_.line(fmt::format("int64_t {} = 0; // blocks copied in", names.put));
    buffers_.push_back(std::move(names));
  }
  return true;
}

void KernelWriter::prologue() {
  out_.line("// Every slot starts free: its free flag is set once before the first reserve.");
  for (size_t b = 0; b < buffers_.size(); ++b)
    if (!in_.plan->buffers[b].freeEvents.empty())
      out_.line(fmt::format("for (int s = 0; s < {}; ++s) set_flag({}, {}, (event_t){}[s]);",
                            in_.plan->buffers[b].slots, pipeName(spec(b).consumer),
                            pipeName(spec(b).producer), buffers_[b].free));
}

void KernelWriter::epilogue() {
  out_.line("// Drain: every free flag is waited for once more, so that no flag is left set.");
  for (size_t b = 0; b < buffers_.size(); ++b)
    if (!in_.plan->buffers[b].freeEvents.empty())
      out_.line(fmt::format("for (int s = 0; s < {}; ++s) wait_flag({}, {}, (event_t){}[s]);",
                            in_.plan->buffers[b].slots, pipeName(spec(b).consumer),
                            pipeName(spec(b).producer), buffers_[b].free));
}

std::optional<std::string> KernelWriter::scalar(const ir::Value* value, const ir::Operation* user) {
  if (auto it = ctx_.scalars.find(value); it != ctx_.scalars.end()) return it->second;
  fail(user, fmt::format("--target pto: operand {} is not an index the pto code generator "
                         "computes (arith on constants, loop indices and work indices)",
                         lower::valueName(value)));
  return std::nullopt;
}

bool KernelWriter::emitArith(ir::Operation* op) {
  static const std::map<std::string_view, std::string_view> infix = {
      {"arith.addi", "+"},  {"arith.subi", "-"},  {"arith.muli", "*"}, {"arith.divsi", "/"},
      {"arith.remsi", "%"}, {"arith.divui", "/"}, {"arith.remui", "%"}};
  const std::string_view name = op->name();
  if (name == "arith.constant") {
    ir::Attribute value = op->attribute("value");
    if (!value.is(ir::AttrKind::Integer))
      return fail(op, "--target pto: only integer constants have a C++ form here");
    ctx_.scalars[op->result(0)] = std::to_string(value.intValue());
    return true;
  }
  if (name == "arith.index_cast") {
    auto a = scalar(op->operand(0), op);
    if (!a) return false;
    ctx_.scalars[op->result(0)] = *a;
    return true;
  }
  // A comparison feeds a ttl.require (checked with the binding); any other use of it fails
  // where its value is asked for.
  if (name == "arith.cmpi") return true;
  auto it = infix.find(name);
  if (it == infix.end() || op->numOperands() != 2)
    return fail(op, fmt::format("--target pto: {} has no C++ translation", name));
  auto a = scalar(op->operand(0), op);
  auto b = scalar(op->operand(1), op);
  if (!a || !b) return false;
  ctx_.scalars[op->result(0)] = fmt::format("({} {} {})", *a, it->second, *b);
  return true;
}

bool KernelWriter::emitCbOp(ir::Operation* op) {
  auto it = ctx_.cbOf.find(op->operand(0));
  if (it == ctx_.cbOf.end()) return fail(op, "--target pto: the CB of this op is not a create_cb");
  const size_t b = it->second;
  const pp::BufferSpec& buffer = spec(b);
  BufferNames& names = buffers_[b];
  const int64_t slots = in_.plan->buffers[b].slots;
  const bool flags = !in_.plan->buffers[b].readyEvents.empty();
  const std::string_view name = op->name();
  at(op);
  if (name == "ttl.cb_reserve") {
    names.producerSlot = ctx_.names.unique(lower::valueName(op->result(0)).substr(1) + "_slot");
    out_.line(fmt::format("const int64_t {} = {} % {};", names.producerSlot, names.put, slots));
    if (flags)
      out_.line(fmt::format("wait_flag({}, {}, (event_t){}[{}]);", pipeName(buffer.consumer),
                            pipeName(buffer.producer), names.free, names.producerSlot));
    ctx_.tiles[op->result(0)] = fmt::format("{}[{}]", names.array, names.producerSlot);
    if (buffer.memory == pp::Memory::L0c) { // the first matmul into the block overwrites it
      std::string fresh = ctx_.names.unique(names.producerSlot + "_fresh");
      out_.line(fmt::format("bool {} = true;", fresh));
      fresh_[op->result(0)] = fresh;
    }
  } else if (name == "ttl.cb_push") {
    if (names.producerSlot.empty()) return fail(op, "--target pto: cb_push without a cb_reserve");
    if (flags)
      out_.line(fmt::format("set_flag({}, {}, (event_t){}[{}]);", pipeName(buffer.producer),
                            pipeName(buffer.consumer), names.ready, names.producerSlot));
    out_.line(fmt::format("++{};", names.put));
  } else if (name == "ttl.cb_wait") {
    names.consumerSlot = ctx_.names.unique(lower::valueName(op->result(0)).substr(1) + "_slot");
    out_.line(fmt::format("const int64_t {} = {} % {};", names.consumerSlot, names.take, slots));
    if (flags)
      out_.line(fmt::format("wait_flag({}, {}, (event_t){}[{}]);", pipeName(buffer.producer),
                            pipeName(buffer.consumer), names.ready, names.consumerSlot));
    ctx_.tiles[op->result(0)] = fmt::format("{}[{}]", names.array, names.consumerSlot);
    ctx_.viewBuffer[op->result(0)] = b;
  } else { // ttl.cb_pop
    if (names.consumerSlot.empty()) return fail(op, "--target pto: cb_pop without a cb_wait");
    if (flags)
      out_.line(fmt::format("set_flag({}, {}, (event_t){}[{}]);", pipeName(buffer.consumer),
                            pipeName(buffer.producer), names.free, names.consumerSlot));
    out_.line(fmt::format("++{};", names.take));
  }
  return true;
}

bool KernelWriter::emitSlice(ir::Operation* op) {
  const ir::Value* tensor = op->operand(0);
  auto base = ctx_.globals.find(tensor);
  if (base == ctx_.globals.end()) return fail(op, "--target pto: slices of kernel arguments only");
  const ir::Type& whole = tensor->type();
  const ir::Type& block = op->result(0)->type();
  if (whole.shape().size() != 2 || block.shape().size() != 2 || op->numOperands() != 3)
    return fail(op, "--target pto: 2-d tensors and blocks only");
  auto row = scalar(op->operand(1), op);
  auto col = scalar(op->operand(2), op);
  if (!row || !col) return false;
  std::optional<int64_t> width = ir::resolveDim(whole.shape()[1], in_.binding);
  std::optional<int64_t> rows = ir::resolveDim(block.shape()[0], in_.binding);
  std::optional<int64_t> cols = ir::resolveDim(block.shape()[1], in_.binding);
  std::optional<ir::DataType> dt = ir::resolveDataType(block.elementType(), in_.binding);
  if (!width || !rows || !cols || !dt)
    return fail(op, "--target pto: the slice has no shape under the binding");
  Expected<std::string> element = elementType(ir::toString(*dt));
  if (!element) return fail(op, element.error().message);
  std::string var = ctx_.names.unique(lower::valueName(op->result(0)).substr(1));
  at(op);
  out_.line(fmt::format("{} {}({} + {} * {} * {} + {} * {});",
                        globalTensorType(*element, *rows * kTileSide, *cols * kTileSide, *width),
                        var, base->second, *row, kTileSide, *width, *col, kTileSide));
  ctx_.globals[op->result(0)] = var;
  return true;
}

bool KernelWriter::emitCopy(ir::Operation* op) {
  const ir::Value* src = op->operand(0);
  const ir::Value* dst = op->operand(1);
  at(op);
  if (ctx_.globals.count(src) && ctx_.tiles.count(dst)) {
    out_.line(fmt::format("TLOAD({}, {});", ctx_.tiles[dst], ctx_.globals[src]));
    return true;
  }
  if (ctx_.tiles.count(src) && ctx_.globals.count(dst)) {
    out_.line(fmt::format("TSTORE({}, {});", ctx_.globals[dst], ctx_.tiles[src]));
    return true;
  }
  return fail(op, "--target pto: a copy between DRAM slices and CB views only");
}

std::optional<size_t> KernelWriter::stagingOf(const ir::Value* view, pp::Memory memory) const {
  auto tile = ctx_.viewBuffer.find(view);
  if (tile == ctx_.viewBuffer.end()) return std::nullopt;
  for (size_t b = 0; b < in_.problem->buffers.size(); ++b)
    if (spec(b).role == pp::BufferRole::Staging && spec(b).memory == memory &&
        spec(b).source == spec(tile->second).source)
      return b;
  return std::nullopt;
}

std::optional<std::string> KernelWriter::stage(ir::Operation* op, const ir::Value* view,
                                               pp::Memory memory) {
  std::optional<size_t> b = stagingOf(view, memory);
  auto source = ctx_.tiles.find(view);
  if (!b || source == ctx_.tiles.end()) {
    fail(op, "--target pto: a matmul operand that is not a CB view with its staging buffer");
    return std::nullopt;
  }
  const BufferNames& names = buffers_[*b];
  std::string slot = ctx_.names.unique(names.array + "_slot");
  out_.line(
      fmt::format("const int64_t {} = {}++ % {};", slot, names.put, in_.plan->buffers[*b].slots));
  out_.line(fmt::format("wait_flag(PIPE_M, PIPE_MTE1, (event_t){}[{}]);", names.free, slot));
  out_.line(fmt::format("TEXTRACT({}[{}], {});", names.array, slot, source->second));
  out_.line(fmt::format("set_flag(PIPE_MTE1, PIPE_M, (event_t){}[{}]);", names.ready, slot));
  staged_.push_back({*b, slot});
  return fmt::format("{}[{}]", names.array, slot);
}

bool KernelWriter::emitMatmul(ir::Operation* op) {
  ir::MatmulOp matmul(op);
  auto stored = storedInto_.find(matmul.result());
  if (stored == storedInto_.end() || !fresh_.count(stored->second))
    return fail(op, "--target pto: a matmul result is stored, accumulating, into an L0C CB view");
  at(op);
  out_.line("// L1 -> L0A / L0B on MTE1, then the cube (M) into the L0C block.");
  staged_.clear();
  std::optional<std::string> lhs = stage(op, matmul.lhs(), pp::Memory::L0a);
  std::optional<std::string> rhs = lhs ? stage(op, matmul.rhs(), pp::Memory::L0b) : std::nullopt;
  if (!rhs) return false;
  for (const auto& [b, slot] : staged_)
    out_.line(
        fmt::format("wait_flag(PIPE_MTE1, PIPE_M, (event_t){}[{}]);", buffers_[b].ready, slot));
  const std::string& dst = ctx_.tiles[stored->second];
  const std::string& fresh = fresh_[stored->second];
  // TMATMUL_ACC's (cOut, cIn, a, b) form: pto-isa's CPU simulation implements only that one
  // (scripts/pto_isa_check.sh found the three-operand form unresolved there).
  out_.line(fmt::format("if ({0}) TMATMUL({1}, {2}, {3}); else TMATMUL_ACC({1}, {1}, {2}, {3});",
                        fresh, dst, *lhs, *rhs));
  out_.line(fmt::format("{} = false;", fresh));
  for (const auto& [b, slot] : staged_)
    out_.line(fmt::format("set_flag(PIPE_M, PIPE_MTE1, (event_t){}[{}]);", buffers_[b].free, slot));
  ctx_.tiles[matmul.result()] = dst;
  return true;
}

std::optional<std::string> KernelWriter::operandTile(ir::Operation* op, const ir::Value* value) {
  auto it = ctx_.tiles.find(value);
  if (it == ctx_.tiles.end()) {
    fail(op, "--target pto: an operand that is neither a CB view nor a computed block");
    return std::nullopt;
  }
  // A view not in the compute type (bf16) is converted into its float temporary once.
  auto t = temporaries_.bufferOf.find(value);
  if (t != temporaries_.bufferOf.end() && !ctx_.vectorResults.count(value)) {
    std::string tmp = fmt::format("{}[0]", buffers_[firstTemporary_ + t->second].array);
    out_.line(fmt::format("TCVT({}, {}, RoundMode::CAST_NONE);", tmp, it->second));
    it->second = tmp;
    ctx_.vectorResults.insert(value);
  }
  return it->second;
}

std::optional<std::string> KernelWriter::destination(ir::Operation* op, const ir::Value* result) {
  if (auto t = temporaries_.bufferOf.find(result); t != temporaries_.bufferOf.end()) {
    const BufferNames& names = buffers_[firstTemporary_ + t->second];
    if (!names.rowAlias.empty()) ctx_.rowTiles[result] = names.rowAlias + "[0]";
    return fmt::format("{}[0]", names.array);
  }
  if (auto stored = storedInto_.find(result); stored != storedInto_.end()) {
    auto view = ctx_.tiles.find(stored->second);
    if (view != ctx_.tiles.end()) return view->second;
    fail(op, "--target pto: the view this value is stored into is reserved after it");
    return std::nullopt;
  }
  fail(op, "--target pto: a computed value that is neither stored nor read");
  return std::nullopt;
}

/// A float literal of a pto program ("-1.5957691" -> "-1.5957691f", "1" -> "1.0f").
std::string floatLiteral(const std::string& text) {
  return text + (text.find_first_of(".eE") == std::string::npos ? ".0f" : "f");
}

bool KernelWriter::emitProgram(ir::Operation* op, const std::string& y, const std::string& x) {
  Expected<std::vector<lower::PtoStatement>> program =
      lower::parsePtoProgram(op->def()->compute.pto);
  if (!program) return fail(op, program.error().message);
  std::string t;
  if (auto s = temporaries_.scratchOf.find(op); s != temporaries_.scratchOf.end()) {
    const BufferNames& names = buffers_[firstTemporary_ + s->second];
    t = (names.rowAlias.empty() ? names.array : names.rowAlias) + "[0]";
  }
  auto name = [&](const std::string& n) -> std::optional<std::string> {
    if (n == "x") return x;
    if (n == "y") return y;
    if (n == "t" && !t.empty()) return t;
    if (!n.empty() && (std::isdigit(static_cast<unsigned char>(n.back())))) return floatLiteral(n);
    return std::nullopt;
  };
  for (size_t i = 0; i < program->size(); ++i) {
    const lower::PtoStatement& st = (*program)[i];
    std::vector<std::string> args = {*name(st.dst)};
    for (const std::string& a : st.args) {
      std::optional<std::string> text = name(a);
      if (!text)
        return fail(op, fmt::format("pto program of {}: unknown operand '{}'", op->name(), a));
      args.push_back(*text);
    }
    if (i > 0) out_.line("pipe_barrier(PIPE_V);");
    out_.line(fmt::format("{}({});", st.instruction, fmt::join(args, ", ")));
  }
  return true;
}

bool KernelWriter::emitComputeOp(ir::Operation* op) {
  if (ir::MatmulOp::dyn(op)) return emitMatmul(op);
  const ir::OpDef* def = op->def();
  if (!def || def->compute.pto.empty())
    return fail(op, fmt::format("{} has no pto-isa instruction", op->name()));
  const ir::Value* result = op->result(0);
  if (form(result) == lower::PtoForm::Expanded) return true; // its readers fold it in
  at(op);
  // Operands: an Expanded bcast stands for its input, expanded along `expandDims`.
  std::vector<std::string> operands;
  std::optional<size_t> expanded;
  std::vector<int64_t> expandDims;
  bool afterVector = false;
  for (size_t k = 0; k < op->numOperands(); ++k) {
    const ir::Value* operand = op->operand(k);
    if (form(operand) == lower::PtoForm::Expanded) {
      ir::ReduceOrBcastOp bcast(operand->definingOp());
      expanded = k;
      expandDims = bcast.dims();
      operand = bcast.input();
    }
    std::optional<std::string> tile = operandTile(op, operand);
    if (!tile) return false;
    // An elementwise op on per-row values works on their row-major aliases.
    const bool rowWise = form(result) == lower::PtoForm::PerRow && !ir::ReduceOrBcastOp::dyn(op);
    operands.push_back(rowWise ? ctx_.rowTiles[operand] : *tile);
    afterVector = afterVector || ctx_.vectorResults.count(operand);
  }
  std::optional<std::string> dst = destination(op, result);
  if (!dst) return false;
  // A vector op that reads what the previous one wrote waits for it (pto-isa's A2/A3 kernels
  // put this barrier between dependent vector ops, docs/pto-facts.md section 2); so does one that
  // reuses a scratch tile.
  if (afterVector || temporaries_.scratchOf.count(op)) out_.line("pipe_barrier(PIPE_V);");
  ctx_.tiles[result] = *dst;
  ctx_.vectorResults.insert(result);
  const std::string pto(def->compute.pto);
  if (auto rb = ir::ReduceOrBcastOp::dyn(op)) {
    if (rb->isBroadcast()) { // materialised: a reader cannot fold it in
      out_.line(
          fmt::format("{}({}, {});", lower::ptoExpandInstruction(rb->dims()), *dst, operands[0]));
      return true;
    }
    const BufferNames& scratch = buffers_[firstTemporary_ + temporaries_.scratchOf.at(op)];
    out_.line(fmt::format("{}({}, {}, {}[0]);", pto, *dst, operands[0], scratch.array));
    return true;
  }
  if (expanded) {
    const bool rows = expandDims == std::vector<int64_t>{1};
    if (!rows && *expanded == 0) std::swap(operands[0], operands[1]); // src1 is TCOLEXPAND's row
    out_.line(fmt::format("{}({}, {});", lower::ptoExpandInstruction(expandDims, pto), *dst,
                          fmt::join(operands, ", ")));
    return true;
  }
  const std::string y = form(result) == lower::PtoForm::PerRow ? ctx_.rowTiles[result] : *dst;
  if (pto.find('(') != std::string::npos) return emitProgram(op, y, operands.at(0));
  out_.line(fmt::format("{}({}, {});", pto, y, fmt::join(operands, ", ")));
  return true;
}

bool KernelWriter::emitStore(ir::Operation* op) {
  ir::StoreOp store(op);
  auto value = ctx_.tiles.find(store.value());
  auto view = ctx_.tiles.find(store.view());
  if (value == ctx_.tiles.end() || view == ctx_.tiles.end())
    return fail(op, "--target pto: a store of a computed block into a reserved view only");
  if (value->second == view->second) return true; // computed in place (a matmul accumulates)
  if (store.accumulate())
    return fail(op, "--target pto: an accumulating store of a matmul result only");
  at(op);
  if (ctx_.vectorResults.count(store.value())) out_.line("pipe_barrier(PIPE_V);");
  // A float result goes into a bf16 view through TCVT (round to nearest even), else TMOV.
  if (lower::ptoComputeType(store.value(), in_.binding) !=
      ir::resolveDataType(store.view()->type().elementType(), in_.binding))
    out_.line(fmt::format("TCVT({}, {}, RoundMode::CAST_RINT);", view->second, value->second));
  else
    out_.line(fmt::format("TMOV({}, {});", view->second, value->second));
  return true;
}

bool KernelWriter::emitOp(ir::Operation* op) {
  const std::string_view name = op->name();
  if (name.substr(0, 6) == "arith.") return emitArith(op);
  if (name == "ttl.cb_reserve" || name == "ttl.cb_push" || name == "ttl.cb_wait" ||
      name == "ttl.cb_pop")
    return emitCbOp(op);
  if (name == "ttl.tensor_slice") return emitSlice(op);
  if (name == "ttl.copy") return emitCopy(op);
  if (name == "ttl.wait") return true; // the copy's pipe sets the slot's ready flag at cb_push
  if (name == "ttl.store") return emitStore(op);
  if (name == "ttl.yield" || name == "scf.yield") return true;
  if (name == "ttl.require") return true; // the binding's legality was checked when it was chosen
  if (name == "ttl.param_value") {
    std::optional<int64_t> value = ir::evaluate(op->result(0), in_.binding);
    if (!value)
      return fail(op, fmt::format("ttl.param_value {} has no integer value in the binding",
                                  op->attribute("param").str()));
    ctx_.scalars[op->result(0)] = std::to_string(*value);
    return true;
  }
  if (op->def() && op->def()->compute.kind != ir::ComputeKind::None) return emitComputeOp(op);
  return fail(op, fmt::format("--target pto: the code generator does not lower {} yet", name));
}

/// The loops of a block in order, and the ops before each and after the last.
struct Segments {
  std::vector<std::vector<ir::Operation*>> before; ///< before[p]: ops before loop p; back(): after
  std::vector<ir::Operation*> loops;
};

Segments split(ir::Block* block) {
  Segments s;
  s.before.emplace_back();
  for (const std::unique_ptr<ir::Operation>& op : block->operations()) {
    if (op->name() == "scf.for" || op->name() == "ttl.work_loop") {
      s.loops.push_back(op.get());
      s.before.emplace_back();
    } else {
      s.before.back().push_back(op.get());
    }
  }
  return s;
}

bool KernelWriter::fuse(const std::vector<ir::Block*>& parts) {
  std::vector<Segments> segments;
  size_t loops = 0;
  for (ir::Block* block : parts) {
    segments.push_back(split(block));
    loops = std::max(loops, segments.back().loops.size());
  }
  for (size_t l = 0; l <= loops; ++l) {
    // The ops before loop l of each part (the rest of a part with fewer loops waits for the end).
    for (size_t k = 0; k < parts.size(); ++k)
      if (l < segments[k].loops.size() || (l == loops && segments[k].loops.size() <= l))
        for (ir::Operation* op : segments[k].before[std::min(l, segments[k].loops.size())])
          if (!emitOp(op)) return false;
    if (l == loops) break;
    std::vector<ir::Operation*> fused;
    for (size_t k = 0; k < parts.size(); ++k)
      if (l < segments[k].loops.size()) fused.push_back(segments[k].loops[l]);
    if (!emitLoop(fused)) return false;
  }
  return true;
}

bool KernelWriter::emitLoop(const std::vector<ir::Operation*>& loops) {
  ir::Operation* first = loops.front();
  std::vector<ir::Block*> bodies;
  for (ir::Operation* loop : loops) {
    if (loop->name() != first->name())
      return fail(loop, fmt::format("--target pto fuses the threads' loops level by level: this "
                                    "{} stands where another thread has a {} ({})",
                                    loop->name(), first->name(), first->location().str()));
    bodies.push_back(&loop->body());
  }
  if (first->name() == "ttl.work_loop") {
    if (workDims_.empty()) return fail(first, "--target pto: a work_loop needs the kernel's work");
    int64_t items = 1;
    for (int64_t d : workDims_)
      items *= d;
    at(first);
    out_.line(fmt::format("// This core's share of the {} work items: a contiguous range.", items));
    out_.line(fmt::format("const int64_t per_core = ({} + get_block_num() - 1) / get_block_num();",
                          items));
    out_.line(fmt::format("const int64_t first_item = std::min<int64_t>({}, get_block_idx() * "
                          "per_core);",
                          items));
    out_.line(fmt::format("const int64_t end_item = std::min<int64_t>({}, first_item + per_core);",
                          items));
    out_.open("for (int64_t item = first_item; item < end_item; ++item)");
    int64_t stride = items;
    for (size_t d = 0; d < workDims_.size(); ++d) {
      stride /= workDims_[d];
      std::string var = ctx_.names.unique(fmt::format("w{}", d));
      out_.line(fmt::format("const int64_t {} = item / {} % {};", var, stride, workDims_[d]));
      for (ir::Operation* loop : loops)
        if (d < loop->body().numArguments()) ctx_.scalars[loop->body().argument(d)] = var;
    }
  } else {
    std::vector<std::string> bounds;
    for (size_t k = 0; k < 3; ++k) {
      auto v = scalar(first->operand(k), first);
      if (!v) return false;
      bounds.push_back(*v);
    }
    for (ir::Operation* loop : loops)
      for (size_t k = 0; k < 3; ++k) {
        auto v = scalar(loop->operand(k), loop);
        if (!v) return false;
        if (*v != bounds[k])
          return fail(loop, fmt::format("--target pto fuses the threads' loops level by level: "
                                        "this loop's bounds ({}) differ from those of the loop "
                                        "at {} ({})",
                                        *v, first->location().str(), bounds[k]));
      }
    std::string var = ctx_.names.unique(lower::valueName(first->body().argument(0)).substr(1));
    at(first);
    out_.open(fmt::format("for (int64_t {0} = {1}; {0} < {2}; {0} += {3})", var, bounds[0],
                          bounds[1], bounds[2]));
    for (ir::Operation* loop : loops)
      ctx_.scalars[loop->body().argument(0)] = var;
  }
  if (!fuse(bodies)) return false;
  out_.close();
  return true;
}

Expected<std::string> KernelWriter::run() {
  ir::KernelOp kernel(in_.kernel);
  Expected<lower::PtoTemporaries> temporaries = lower::ptoTemporaries(in_.kernel, in_.binding);
  if (!temporaries) return temporaries.error();
  temporaries_ = std::move(*temporaries);
  for (size_t b = 0; b < in_.problem->buffers.size(); ++b)
    if (spec(b).role == pp::BufferRole::Temporary) {
      firstTemporary_ = b;
      break;
    }
  Expected<std::vector<int64_t>> work = lower::extractWorkDims(in_.kernel, in_.binding);
  if (!work) return work.error();
  workDims_ = *work;
  // CBs by position, and the values only stored (computed into the stored view).
  std::vector<const ir::Value*> cbs;
  in_.kernel->walk([&](ir::Operation* op) {
    if (auto create = ir::CreateCBOp::dyn(op)) cbs.push_back(create->cb());
  });
  for (size_t b = 0; b < in_.problem->buffers.size(); ++b)
    if (spec(b).role == pp::BufferRole::Cb && spec(b).source >= 0 &&
        size_t(spec(b).source) < cbs.size())
      ctx_.cbOf[cbs[size_t(spec(b).source)]] = b;
  std::map<const ir::Value*, int> otherUses;
  in_.kernel->walk([&](ir::Operation* op) {
    for (size_t k = 0; k < op->numOperands(); ++k) {
      if (auto store = ir::StoreOp::dyn(op); store && k == 0)
        storedInto_.emplace(op->operand(0), store->view());
      else
        ++otherUses[op->operand(k)];
    }
  });
  for (auto it = storedInto_.begin(); it != storedInto_.end();)
    it = otherUses.count(it->first) ? storedInto_.erase(it) : std::next(it);

  // Signature: one __gm__ pointer per tensor argument.
  std::vector<std::string> params;
  for (ir::Value* arg : kernel.arguments()) {
    const ir::Type& type = arg->type();
    std::optional<ir::DataType> dt =
        type.is(ir::TypeKind::Tensor) ? elementDataType(type.elementType()) : std::nullopt;
    if (!dt)
      return Error{fmt::format("{}: error: --target pto: argument {} is not a tensor",
                               in_.kernel->location().str(), lower::valueName(arg))};
    Expected<std::string> element = elementType(ir::toString(*dt));
    if (!element)
      return Error{
          fmt::format("{}: error: {}", in_.kernel->location().str(), element.error().message)};
    std::string name = ctx_.names.unique(lower::valueName(arg).substr(1));
    params.push_back(fmt::format("__gm__ {}* {}", *element, name));
    ctx_.globals[arg] = name;
  }
  const std::string function = sanitizeIdentifier(kernel.symbolName());
  out_.line(fmt::format("// Generated by ttlplan from {} for {} (--target pto): pto-isa C++ in",
                        in_.file, in_.problem->device));
  out_.line("// manual mode: every tile TASSIGNed at its planned offset, every pipe ordered by");
  out_.line("// set_flag/wait_flag with the planned event ids (docs/pto.md). One AI core runs the");
  out_.line("// kernel's threads as one instruction stream; the pipes run its instructions "
            "concurrently.");
  out_.line("#include <pto/pto-inst.hpp>");
  out_.line("#include <algorithm>");
  out_.line("#include <cstdint>");
  out_.blank();
  out_.line("// The emulator (docs/pto.md) records where each instruction comes from; elsewhere");
  out_.line("// this is nothing.");
  out_.line("#ifndef TTLPLAN_AT");
  out_.line("#define TTLPLAN_AT(where)");
  out_.line("#endif");
  out_.blank();
  out_.line("using namespace pto;");
  out_.blank();
  out_.line(sourceComment(in_.kernel->location(), in_.sources));
  out_.open(
      fmt::format("extern \"C\" __global__ AICORE void {}({})", function, fmt::join(params, ", ")));
  if (workDims_.empty())
    out_.line("if (get_block_idx() != 0) return; // no `work`: the kernel runs on one core");
  if (!declare()) return Error{error_};
  prologue();
  std::vector<ir::Block*> parts;
  for (const std::unique_ptr<ir::Operation>& op : kernel.body().operations())
    if (auto thread = ir::ThreadOp::dyn(op.get())) parts.push_back(&thread->body());
  for (const std::unique_ptr<ir::Operation>& op : kernel.body().operations())
    if (!ir::ThreadOp::dyn(op.get()) && !ir::CreateCBOp::dyn(op.get()) && !emitOp(op.get()))
      return Error{error_};
  if (!fuse(parts)) return Error{error_};
  epilogue();
  out_.close();
  return out_.text();
}

} // namespace

Expected<std::string> writeKernel(const KernelInput& input) {
  return KernelWriter(input).run();
}

} // namespace ttlplan::codegen::pto
