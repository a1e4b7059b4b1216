#pragma once
// Typed views over generic operations: `if (auto wait = CBWaitOp::dyn(op)) wait.cb()`. A view
// holds only the Operation pointer; it names operands, results and attributes of one TTL op so
// that passes need not remember operand positions.
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Operation.h"

#include <optional>
#include <string_view>

namespace ttlplan::ir {

template <typename Derived> class OpView {
public:
  explicit OpView(Operation* op) : op_(op) {}
  /// A view of `op` when it is this kind of op; otherwise an empty optional.
  static std::optional<Derived> dyn(Operation* op) {
    if (op && op->name() == Derived::kName) return Derived(op);
    return std::nullopt;
  }
  Operation* op() const { return op_; }
  const Location& location() const { return op_->location(); }

protected:
  Operation* op_;
};

#define TTLPLAN_OP_VIEW(Class, Name)                                                               \
  class Class : public OpView<Class> {                                                             \
  public:                                                                                          \
    static constexpr std::string_view kName = Name;                                                \
    using OpView::OpView;

// --- Structure ---------------------------------------------------------------------------------

TTLPLAN_OP_VIEW(KernelOp, "ttl.kernel")
std::string_view symbolName() const {
  return op_->attribute("sym_name").stringValue();
}
/// The kernel's tensor arguments (entry block arguments).
std::vector<Value*> arguments() const {
  return op_->body().arguments();
}
Block& body() const {
  return op_->body();
}
/// `grid = [GY, GX]`, or a string attribute "auto"; null when absent.
Attribute grid() const {
  return op_->attribute("grid");
}
bool gridIsAuto() const {
  return grid().is(AttrKind::String) && grid().stringValue() == "auto";
}
/// `work = [D0, D1, ...]` (integers or @param references); null when absent.
Attribute work() const {
  return op_->attribute("work");
}
};

TTLPLAN_OP_VIEW(ParamOp, "ttl.param")
std::string_view symbolName() const {
  return op_->attribute("sym_name").stringValue();
}
Attribute values() const {
  return op_->attribute("values");
}
}
;

TTLPLAN_OP_VIEW(ParamValueOp, "ttl.param_value")
std::string_view param() const {
  return op_->attribute("param").stringValue();
}
Value* result() const {
  return op_->result(0);
}
}
;

TTLPLAN_OP_VIEW(RequireOp, "ttl.require")
Value* condition() const {
  return op_->operand(0);
}
}
;

TTLPLAN_OP_VIEW(WorkLoopOp, "ttl.work_loop")
/// One index per work dimension.
std::vector<Value*> inductionVars() const {
  return op_->body().arguments();
}
Block& body() const {
  return op_->body();
}
}
;

/// `ttl.datamovement_thread` or `ttl.compute_thread`.
class ThreadOp : public OpView<ThreadOp> {
public:
  using OpView::OpView;
  static std::optional<ThreadOp> dyn(Operation* op) {
    if (op && (op->name() == "ttl.datamovement_thread" || op->name() == "ttl.compute_thread"))
      return ThreadOp(op);
    return std::nullopt;
  }
  bool isCompute() const { return op_->name() == "ttl.compute_thread"; }
  Block& body() const { return op_->body(); }
};

// --- Resources ---------------------------------------------------------------------------------

TTLPLAN_OP_VIEW(CreateCBOp, "ttl.create_cb")
Value* cb() const {
  return op_->result(0);
}
Type cbType() const {
  return cb()->type();
}
}
;

TTLPLAN_OP_VIEW(CreateSemaphoreOp, "ttl.create_semaphore")
Value* semaphore() const {
  return op_->result(0);
}
/// The `init` attribute (0 when absent).
int64_t initialValue() const {
  Attribute init = op_->attribute("init");
  return init.is(AttrKind::Integer) ? init.intValue() : 0;
}
}
;

/// The four CB protocol ops share one shape: the CB is operand 0.
#define TTLPLAN_CB_OP_VIEW(Class, Name)                                                            \
  TTLPLAN_OP_VIEW(Class, Name)                                                                     \
  Value* cb() const {                                                                              \
    return op_->operand(0);                                                                        \
  }
TTLPLAN_CB_OP_VIEW(CBReserveOp, "ttl.cb_reserve")
Value* view() const {
  return op_->result(0);
}
}
;
TTLPLAN_CB_OP_VIEW(CBWaitOp, "ttl.cb_wait")
Value* view() const {
  return op_->result(0);
}
}
;
TTLPLAN_CB_OP_VIEW(CBPushOp, "ttl.cb_push")
}
;
TTLPLAN_CB_OP_VIEW(CBPopOp, "ttl.cb_pop")
}
;
#undef TTLPLAN_CB_OP_VIEW

/// Which end of its CB a protocol op acts for: a reserve or push produces, a wait or pop consumes.
enum class CbEnd { None, Producer, Consumer };
inline CbEnd cbEndOf(const Operation& op) {
  if (op.isa(CBReserveOp::kName) || op.isa(CBPushOp::kName)) return CbEnd::Producer;
  if (op.isa(CBWaitOp::kName) || op.isa(CBPopOp::kName)) return CbEnd::Consumer;
  return CbEnd::None;
}

// --- Data movement -----------------------------------------------------------------------------

TTLPLAN_OP_VIEW(TensorSliceOp, "ttl.tensor_slice")
Value* source() const {
  return op_->operand(0);
}
/// Tile indices, one per tensor dimension.
std::vector<Value*> indices() const {
  return {op_->operands().begin() + 1, op_->operands().end()};
}
Value* result() const {
  return op_->result(0);
}
/// `{clip = true}`: the block may reach past the tensor's edge; those tiles are neither read
/// (their part of the block is unspecified) nor written. ttnn's edge blocks, without padding.
bool clipped() const {
  Attribute a = op_->attribute("clip");
  return a.is(AttrKind::Bool) && a.boolValue();
}
}
;

TTLPLAN_OP_VIEW(CopyOp, "ttl.copy")
enum class Direction { Read, Write, Send, Receive, Invalid };
Value* source() const {
  return op_->operand(0);
}
Value* destination() const {
  return op_->operand(1);
}
Value* handle() const {
  return op_->result(0);
}
/// slice -> view: Read; view -> slice: Write; view -> pipe: Send; pipe -> view: Receive.
Direction direction() const {
  bool fromPipe = source()->type().is(TypeKind::Pipe);
  bool toPipe = destination()->type().is(TypeKind::Pipe);
  if (fromPipe && !toPipe) return Direction::Receive;
  if (toPipe && !fromPipe) return Direction::Send;
  if (fromPipe || toPipe) return Direction::Invalid;
  bool fromSlice = isSlice(source()), toSlice = isSlice(destination());
  if (fromSlice && !toSlice) return Direction::Read;
  if (toSlice && !fromSlice) return Direction::Write;
  return Direction::Invalid;
}

private:
static bool isSlice(Value* v) {
  return v->definingOp() && v->definingOp()->name() == TensorSliceOp::kName;
}
}
;

TTLPLAN_OP_VIEW(WaitOp, "ttl.wait")
Value* handle() const {
  return op_->operand(0);
}
}
;

TTLPLAN_OP_VIEW(CreatePipeOp, "ttl.create_pipe")
/// A coordinate: a literal, or the index value that computes it.
struct Coord {
  std::optional<int64_t> literal; ///< set for a literal
  Value* value = nullptr;         ///< set for an SSA coordinate
};
/// src, dst (first destination corner) and, for multicast, `to` (the opposite corner); each as
/// (x, y). Unicast pipes return 2 points.
std::vector<std::pair<Coord, Coord>> points() const {
  std::vector<int64_t> coords;
  (void)op_->attribute("static_coords").getIntegers(coords);
  std::vector<std::pair<Coord, Coord>> out;
  size_t next = 0;
  auto coord = [&](int64_t c) {
    if (c != kDynamicCoordinate) return Coord{c, nullptr};
    return Coord{std::nullopt, next < op_->numOperands() ? op_->operand(next++) : nullptr};
  };
  for (size_t i = 0; i + 1 < coords.size(); i += 2) {
    Coord x = coord(coords[i]);
    Coord y = coord(coords[i + 1]);
    out.emplace_back(x, y);
  }
  return out;
}
bool isMulticast() const {
  return points().size() == 3;
}
/// `{source_receives = true}`: a source inside its destination range is one of the destinations
/// (tt-lang's pipes: it receives its own block, a local copy); without it the source is skipped,
/// as the NoC's multicast skips its sender.
bool sourceReceives() const {
  const Attribute& a = op_->attribute("source_receives");
  return a.is(AttrKind::Bool) && a.boolValue();
}
Value* pipe() const {
  return op_->result(0);
}
}
;

TTLPLAN_OP_VIEW(IfSrcOp, "ttl.if_src")
Value* pipe() const {
  return op_->operand(0);
}
Block& body() const {
  return op_->body();
}
}
;

TTLPLAN_OP_VIEW(IfDstOp, "ttl.if_dst")
Value* pipe() const {
  return op_->operand(0);
}
Block& body() const {
  return op_->body();
}
}
;

// --- Compute -----------------------------------------------------------------------------------

TTLPLAN_OP_VIEW(MatmulOp, "ttl.matmul")
Value* lhs() const {
  return op_->operand(0);
}
Value* rhs() const {
  return op_->operand(1);
}
Value* result() const {
  return op_->result(0);
}
}
;

TTLPLAN_OP_VIEW(StoreOp, "ttl.store")
Value* value() const {
  return op_->operand(0);
}
/// The reserved view written to.
Value* view() const {
  return op_->operand(1);
}
bool accumulate() const {
  Attribute a = op_->attribute("accumulate");
  return a.is(AttrKind::Bool) && a.boolValue();
}
}
;

/// `ttl.reduce_sum`, `ttl.reduce_max` and `ttl.bcast`: one operand and `dims`.
class ReduceOrBcastOp : public OpView<ReduceOrBcastOp> {
public:
  using OpView::OpView;
  static std::optional<ReduceOrBcastOp> dyn(Operation* op) {
    if (op && (op->name() == "ttl.reduce_sum" || op->name() == "ttl.reduce_max" ||
               op->name() == "ttl.bcast"))
      return ReduceOrBcastOp(op);
    return std::nullopt;
  }
  bool isBroadcast() const { return op_->name() == "ttl.bcast"; }
  Value* input() const { return op_->operand(0); }
  /// The `dims` list; empty when absent or malformed.
  std::vector<int64_t> dims() const {
    std::vector<int64_t> out;
    if (!op_->attribute("dims").getIntegers(out)) out.clear();
    return out;
  }
};

#undef TTLPLAN_OP_VIEW

} // namespace ttlplan::ir
