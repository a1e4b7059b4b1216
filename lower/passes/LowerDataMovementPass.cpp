// lower-data-movement: in every data-movement thread function ("noc0" / "noc1"), copies become
// tile reads and writes of interleaved DRAM tensors, pipes become the multicast semaphore
// handshake, and waits on copy handles become NoC barriers (docs/lowering.md, "Data-movement
// lowering"). The CB protocol ops stay for lower-sync; the view pointers this pass needs
// (get_write_ptr / get_read_ptr) are placed right after the ttl.cb_reserve / ttl.cb_wait that made
// the view.
//
// The pipe handshake, per net (one sender, `receivers` destination cores, a ready semaphore R and
// a valid semaphore V with the same ids on every core of the net, both starting at 0):
//   receiver: V := 0; R(sender) += 1; wait V == 1
//   sender:   wait R == receivers; R := 0; multicast data; V(own) := 1; multicast V
// Why a loop of these cannot see a stale value (the emulator runs the cores truly concurrently):
//  - A receiver resets its V *before* it signals R, and the sender multicasts VALID only after all
//    R signals of this round arrived; so the VALID a receiver then waits for is this round's, and a
//    VALID left over from the previous round was cleared before the signal.
//  - The sender resets R right after the wait, before the data and VALID go out. A receiver
//    signals R for the next round only after it saw this round's VALID, which comes after that
//    reset; so no next-round increment is lost to the reset or counted in this round.
//  - A receiver signals R only after it reserved its CB slot (the copy follows the reserve), so the
//    data never lands in a slot the receiver still uses. The data and VALID multicasts go out on
//    the same NoC in that order (the emulator applies writes at the call), so VALID never
//    overtakes the data. The ttl.wait of the send handle is a write barrier before the sender's
//    slot can be reused.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/passes/DataMovementSupport.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"
#include "ttlplan/support/Checked.h"

#include <array>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>

namespace ttlplan::lower {

namespace {

using ir::Attribute;
using ir::OpBuilder;
using ir::Operation;
using ir::Type;
using ir::Value;
using Direction = ir::CopyOp::Direction;

Type addrGenType() {
  return Type::opaque("!ttkernel.addr_gen");
}
/// `arith.cmpi ult, %a, %b`.
Value* lessThan(OpBuilder& b, Value* lhs, Value* rhs) {
  Operation* cmp = b.create("arith.cmpi", {lhs, rhs}, {Type::integer(1)},
                            {{"predicate", Attribute::integer(6, Type::integer(64))}});
  return cmp->result(0);
}

/// The value of an `arith.constant` integer, or nullopt.
std::optional<int64_t> constantOf(const Value* v) {
  Operation* def = v->definingOp();
  if (!def || !def->isa("arith.constant")) return std::nullopt;
  Attribute a = def->attribute("value");
  if (!a.is(ir::AttrKind::Integer)) return std::nullopt;
  return a.intValue();
}

// Index arithmetic that folds constants, so that a slice at constant indices gets literal tile
// ids and a zero offset no add. A fold that would overflow is left to the kernel's arithmetic.
Value* add(OpBuilder& b, Value* lhs, Value* rhs, std::string hint = {}) {
  std::optional<int64_t> l = constantOf(lhs), r = constantOf(rhs);
  if (l && r)
    if (std::optional<int64_t> sum = checkedAdd(*l, *r)) return b.constant(*sum);
  if (l == 0) return rhs;
  if (r == 0) return lhs;
  return b.arith("addi", lhs, rhs, std::move(hint));
}
Value* plus(OpBuilder& b, Value* lhs, int64_t c, std::string hint = {}) {
  if (c == 0) return lhs;
  return add(b, lhs, b.constant(c), std::move(hint));
}
Value* times(OpBuilder& b, Value* lhs, int64_t c, std::string hint = {}) {
  if (c == 1) return lhs;
  if (std::optional<int64_t> l = constantOf(lhs))
    if (std::optional<int64_t> product = checkedMul(*l, c)) return b.constant(*product);
  return b.arith("muli", lhs, b.constant(c), std::move(hint));
}

/// The runtime-arg values of one pipe, read where the pipe is created.
struct PipeValues {
  Value* isSender = nullptr;
  Value* receivers = nullptr;
  Value* sendReady = nullptr;
  Value* sendValid = nullptr;
  Value* numRects = nullptr;
  std::vector<std::array<Value*, 5>> rects; ///< start_x, start_y, end_x, end_y, num_dests
  Value* isReceiver = nullptr;
  Value* senderNocX = nullptr;
  Value* senderNocY = nullptr;
  Value* recvReady = nullptr;
  Value* recvValid = nullptr;
  size_t minSenderRects = 0; ///< rectangles every sender has (no guard needed below this)
  /// The semaphore whose word on the sender holds the receivers' address (PublishedPipes), or
  /// nullopt when the bytes go to the sender's own address of its view.
  std::optional<int64_t> addressSemaphore;
  /// A `source_receives` pipe with a sender among its destinations: `P.self_receive` (1 on such
  /// a sender), and the semaphore whose word holds the address of the block it last sent, which
  /// its own receive copies locally (docs/lowering.md).
  Value* selfReceive = nullptr;
  std::optional<int64_t> sentSemaphore;
};

/// The pipes whose receivers publish the address they receive at (docs/lowering.md): a receive
/// into another CB than the send's, or a send from a waited view (a block forwarded), where the
/// sender's own address of its view is not the receivers'. Keyed by where the pipe is created (each
/// thread creates its own value of the same pipe); the value is the kernel semaphore id of the
/// address word, taken after the planner's ids (ttl.semaphore_count grows by one per pipe).
using PublishedPipes = std::map<std::string, int64_t>;
/// The `source_receives` pipes' sent-address words (PipeValues::sentSemaphore), keyed likewise.
using SentWords = std::map<std::string, int64_t>;

/// A receive of a source's own block, completed where its handle is waited for.
struct SelfReceive {
  Value* to = nullptr;              ///< the view's write pointer
  int64_t bytes = 0;                ///< the block's size
  const PipeValues* pipe = nullptr; ///< its pipe's values
};

/// The words lower-data-movement adds are shared by the pipes created at one location (a
/// comprehension's pipes, mostly of distinct senders: a word lives on its sender), which keeps
/// their count within the device's semaphores (tt-lang's SUMMA atoms need it).
std::string pipeKey(const Value* pipe) {
  const Operation* def = pipe->definingOp();
  return def && def->location().known() ? def->location().str()
                                        : fmt::format("{}", static_cast<const void*>(pipe));
}

/// A tensor argument as the tile reads and writes see it.
struct TensorAccess {
  Value* gen = nullptr;    ///< the interleaved address generator
  int64_t pageBytes = 0;   ///< one tile
  int64_t columnTiles = 0; ///< tiles per tensor row
  int64_t rowTiles = 0;    ///< tiles per tensor column (a clipped slice's bound)
};

/// Tile `base + offset` along a dimension of `limit` tiles, and the builder where it is moved:
/// `b` itself for an unclipped slice or a constant inside the tensor; the body of an
/// `scf.if (index < limit)` (unsigned: a negative index is outside too) otherwise. Nothing, and
/// no op built, for a clipped constant outside the tensor.
struct GuardedIndex {
  Value* index;
  OpBuilder at;
};
std::optional<GuardedIndex> tileIndex(OpBuilder& b, Value* base, int64_t offset, int64_t limit,
                                      bool clip) {
  if (std::optional<int64_t> c = constantOf(base); c && clip) {
    std::optional<int64_t> v = checkedAdd(*c, offset);
    if (!v || *v < 0 || *v >= limit) return std::nullopt;
  }
  Value* index = plus(b, base, offset);
  if (!clip || constantOf(index)) return GuardedIndex{index, b};
  Operation* guard = b.ifOp(lessThan(b, index, b.constant(limit)), false);
  OpBuilder in = OpBuilder::bodyBuilder(guard);
  in.setLocation(b.location());
  return GuardedIndex{index, in};
}

class FunctionLowering {
public:
  FunctionLowering(PassContext& context, Operation* func, int64_t rows, int64_t cols,
                   int64_t maxUnrolledTiles, const PublishedPipes& published, const SentWords& sent,
                   std::function<int64_t&(std::string_view, std::string_view)> stat)
      : context_(context), func_(func), rows_(rows), cols_(cols),
        maxUnrolledTiles_(maxUnrolledTiles), published_(published), sent_(sent),
        stat_(std::move(stat)), args_(RuntimeArgs::load(func)) {}

  bool run() {
    std::vector<Operation*> pipes, copies, waits, barriers, regions, fills;
    func_->walk([&](Operation* op) {
      const std::string& n = op->name();
      if (n == ir::CreatePipeOp::kName)
        pipes.push_back(op);
      else if (n == ir::CopyOp::kName)
        copies.push_back(op);
      else if (n == ir::WaitOp::kName)
        waits.push_back(op);
      else if (n == "ttl.dma_barrier")
        barriers.push_back(op);
      else if (n == ir::IfSrcOp::kName || n == ir::IfDstOp::kName)
        regions.push_back(op);
      else if (n == "ttl.fill_reduce_scaler")
        fills.push_back(op);
    });
    bool ok = true;
    for (Operation* fill : fills)
      ok = lowerFillScaler(fill) && ok;
    for (Operation* pipe : pipes)
      ok = lowerPipe(pipe) && ok;
    if (!ok) return false;
    for (Operation* copy : copies)
      ok = lowerCopy(copy) && ok;
    if (!ok) return false;
    for (Operation* wait : waits)
      ok = lowerWait(wait) && ok;
    if (!ok) return false;
    for (Operation* barrier : barriers) {
      OpBuilder b = OpBuilder::before(barrier);
      b.call("noc_async_read_barrier", {});
      b.call("noc_async_write_barrier", {});
      ir::eraseOp(barrier);
      stat_("barriers", "NoC barriers emitted") += 2;
    }
    for (Operation* region : regions)
      lowerPipeRegion(region);
    for (Operation* copy : copies)
      ok = eraseIfUnused(copy, "the handle of this copy") && ok;
    for (Operation* slice : slices_)
      ok = eraseIfUnused(slice, "this tensor slice") && ok;
    for (Operation* pipe : pipes)
      ok = eraseIfUnused(pipe, "this pipe") && ok;
    args_.store(func_);
    int64_t limit = context_.device.kernel.maxRuntimeArgs;
    if (limit > 0 && static_cast<int64_t>(args_.size()) > limit)
      return error(func_, fmt::format("this thread function needs {} runtime args, more than the "
                                      "{} a kernel may have on {}: use fewer pipes in one thread",
                                      args_.size(), limit, context_.device.name));
    return ok;
  }

private:
  // ---- pipes ------------------------------------------------------------------------------

  bool lowerPipe(Operation* op) {
    Expected<PipeArgTable> table =
        pipeArgTable(op->attribute("ttl.nets"), rows_, cols_, context_.device);
    if (!table) {
      reportError(context_, op, "lower-data-movement: " + table.error().message);
      return false;
    }
    if (!op->hasAttribute("ttl.nets") && usesPipe(op->result(0))) {
      // Nobody would send or receive: a kernel that was not planned, or a plan without this pipe.
      reportError(context_, op,
                  "lower-data-movement: this pipe has no `ttl.nets`: run `plan` and `apply-plan` "
                  "before lowering (a pipe no core sends or receives on is not planned)");
      return false;
    }
    std::string prefix = op->result(0)->nameHint();
    Attribute id = op->attribute("ttl.pipe_id");
    if (prefix.empty() || args_.contains(prefix + ".is_sender"))
      prefix = id.is(ir::AttrKind::Integer) ? fmt::format("pipe{}", id.intValue())
                                            : fmt::format("pipe_{}", args_.size());
    while (args_.contains(prefix + ".is_sender"))
      prefix += "_";
    std::vector<std::string> names = pipeArgNames(prefix, table->maxRects);
    std::vector<std::vector<int64_t>> values = pipeArgValues(*table, table->maxRects);
    OpBuilder b = OpBuilder::before(op);
    std::vector<Value*> read;
    for (size_t i = 0; i < names.size(); ++i) {
      read.push_back(getArgVal(b, args_.append(names[i], std::move(values[i])), names[i]));
      if (char axis = pipeArgNocAxis(names[i])) args_.markNocCoordinate(names[i], axis);
    }
    PipeValues v;
    size_t i = 0;
    v.isSender = read[i++];
    v.receivers = read[i++];
    v.sendReady = read[i++];
    v.sendValid = read[i++];
    v.numRects = read[i++];
    for (size_t r = 0; r < table->maxRects; ++r) {
      std::array<Value*, 5> rect{};
      for (Value*& x : rect)
        x = read[i++];
      v.rects.push_back(rect);
    }
    v.isReceiver = read[i++];
    v.senderNocX = read[i++];
    v.senderNocY = read[i++];
    v.recvReady = read[i++];
    v.recvValid = read[i++];
    v.minSenderRects = table->minSenderRects;
    // tt-lang's source inside its destination range (the front end's `source_receives`): every
    // sender of the pipe also receives its own block.
    const bool sourceReceives = ir::CreatePipeOp(op).sourceReceives();
    if (sourceReceives) {
      std::vector<int64_t> flags;
      for (const PipeCoreArgs& c : table->cores)
        flags.push_back(c.sender ? 1 : 0);
      std::string name = prefix + ".self_receive";
      v.selfReceive = getArgVal(b, args_.append(name, std::move(flags)), name);
      Expected<int64_t> word = sentWord(op);
      if (!word) return false;
      v.sentSemaphore = *word;
    }
    if (auto it = published_.find(pipeKey(op->result(0))); it != published_.end()) {
      if (table->senderInDests && !sourceReceives) {
        reportError(context_, op,
                    "lower-data-movement: a core of this pipe sends to a range that holds itself "
                    "and the receivers fill another DFB than the send's (or the send is of a "
                    "waited block): the sender would need a copy of its own, which is not "
                    "supported; leave the source out of its destinations and copy its block "
                    "into the receiving DFB on that core");
        return false;
      }
      v.addressSemaphore = it->second;
    }
    pipes_[op->result(0)] = std::move(v);
    stat_("pipes", "pipes lowered to the multicast handshake") += 1;
    return true;
  }

  bool usesPipe(Value* pipe) { return ir::hasUses(func_, pipe); }

  /// The sent-address word of a `source_receives` pipe (sentWords of the pass).
  Expected<int64_t> sentWord(Operation* op) {
    auto it = sent_.find(pipeKey(op->result(0)));
    if (it == sent_.end()) {
      error(op, "this pipe's source receives its own block but has no sent-address word");
      return Error{"no sent-address word"};
    }
    return it->second;
  }

  /// `ttl.if_src %p { body }` -> `scf.if (is_sender != 0) { body }`; if_dst on is_receiver (or
  /// self_receive, a source that receives its own block).
  void lowerPipeRegion(Operation* region) {
    const PipeValues& v = pipes_.at(region->operand(0));
    OpBuilder b = OpBuilder::before(region);
    Value* flag = region->isa(ir::IfSrcOp::kName) ? v.isSender : v.isReceiver;
    if (region->isa(ir::IfDstOp::kName) && v.selfReceive)
      flag = b.arith("ori", v.isReceiver, v.selfReceive, "receives");
    Operation* ifOp = b.ifOp(isNonZero(b, flag), false);
    ir::Block& from = region->body();
    ir::Block& to = ifOp->body(0);
    Operation* yield = to.back();
    while (!from.empty())
      to.insert(ir::iteratorOf(yield), from.remove(from.operations().front().get()));
    ir::eraseOp(region);
  }

  /// Calls `emit(b, rect)` for every multicast rectangle of the sender, guarding rectangle r with
  /// `r < num_rects` where some sender has fewer.
  void forEachRect(OpBuilder& b, const PipeValues& v,
                   const std::function<void(OpBuilder&, const std::array<Value*, 5>&)>& emit) {
    for (size_t r = 0; r < v.rects.size(); ++r) {
      if (r < v.minSenderRects) {
        emit(b, v.rects[r]);
        continue;
      }
      Operation* guard =
          b.ifOp(lessThan(b, b.constant(static_cast<int64_t>(r)), v.numRects), false);
      OpBuilder inner = OpBuilder::bodyBuilder(guard);
      inner.setLocation(b.location());
      emit(inner, v.rects[r]);
    }
  }

  bool lowerSend(Operation* op, Value* view, Value* pipe) {
    auto it = pipes_.find(pipe);
    if (it == pipes_.end())
      return error(op, "the pipe of this send is not created in the same thread function");
    const PipeValues& v = it->second;
    Operation* acquire = view->definingOp();
    const bool waited = acquire && acquire->isa(ir::CBWaitOp::kName) && v.addressSemaphore;
    if (!acquire || (!acquire->isa(ir::CBReserveOp::kName) && !waited))
      return error(op, "a pipe send must send a view from ttl.cb_reserve: the receivers get the "
                       "bytes at the sender's write pointer of the same CB, which is their own "
                       "write pointer only because every core reserves in the same order");
    Value* ptr = viewPointer(acquire);
    std::optional<int64_t> bytes = blockBytes(op, view);
    if (!bytes) return false;
    OpBuilder b = OpBuilder::before(op);
    // Wait until every receiver has reserved its slot (and cleared its VALID), then reset READY
    // before anything goes out, so that a next-round signal cannot be lost or counted early.
    Value* readyAddr = b.call("get_semaphore", {v.sendReady}, Type::index(), {}, "ready_addr");
    Value* readyPtr = b.call("l1_ptr", {readyAddr}, l1PtrType(), {}, "ready_ptr");
    b.call("noc_semaphore_wait", {readyPtr, v.receivers});
    b.call("noc_semaphore_set", {readyPtr, b.constant(0)});
    // The receivers' address: the one they published into the address word (every receiver of
    // a multicast the same, as they reserve the same CB in the same order), else the sender's own.
    Value* to = ptr;
    if (v.addressSemaphore) {
      Value* word = b.call("get_semaphore", {b.constant(*v.addressSemaphore)}, Type::index(), {},
                           "addr_word");
      to = b.call("l1_load", {b.call("l1_ptr", {word}, l1PtrType(), {}, "addr_ptr")}, Type::index(),
                  {}, "recv_addr");
    }
    if (v.sentSemaphore) {
      // What its own receive copies: the address of this block, once the previous one was taken
      // (the word is 0 between rounds; a CB slot is never at L1 address 0).
      Value* word =
          b.call("get_semaphore", {b.constant(*v.sentSemaphore)}, Type::index(), {}, "sent_word");
      Value* wordPtr = b.call("l1_ptr", {word}, l1PtrType(), {}, "sent_ptr");
      b.call("noc_semaphore_wait", {wordPtr, b.constant(0)});
      b.call("noc_semaphore_set", {wordPtr, ptr});
    }
    Value* size = b.constant(*bytes);
    forEachRect(b, v, [&](OpBuilder& ib, const std::array<Value*, 5>& r) {
      Value* dst = ib.call("get_noc_multicast_addr", {r[0], r[1], r[2], r[3], to},
                           Type::integer(64), {}, "mcast_addr");
      ib.call("noc_async_write_multicast", {ptr, dst, size, r[4]});
    });
    // VALID goes out after the data on the same NoC, from the sender's own valid semaphore.
    Value* validAddr = b.call("get_semaphore", {v.sendValid}, Type::index(), {}, "valid_addr");
    Value* validPtr = b.call("l1_ptr", {validAddr}, l1PtrType(), {}, "valid_ptr");
    b.call("noc_semaphore_set", {validPtr, b.constant(1)});
    forEachRect(b, v, [&](OpBuilder& ib, const std::array<Value*, 5>& r) {
      Value* dst = ib.call("get_noc_multicast_addr", {r[0], r[1], r[2], r[3], validAddr},
                           Type::integer(64), {}, "valid_mcast_addr");
      ib.call("noc_semaphore_set_multicast", {validAddr, dst, r[4]});
    });
    stat_("sends", "pipe sends lowered") += 1;
    return true;
  }

  bool lowerReceive(Operation* op, Value* view, Value* pipe) {
    auto it = pipes_.find(pipe);
    if (it == pipes_.end())
      return error(op, "the pipe of this receive is not created in the same thread function");
    const PipeValues& v = it->second;
    Operation* acquire = view->definingOp();
    if (!acquire || !acquire->isa(ir::CBReserveOp::kName))
      return error(op, "a pipe receive must fill a view from ttl.cb_reserve");
    OpBuilder outer = OpBuilder::before(op);
    OpBuilder b = outer;
    if (v.selfReceive) {
      // A source receiving its own block has no handshake: it copies what it sent, where the
      // receive is waited for (lowerWait), since it may send after this copy starts.
      std::optional<int64_t> bytes = blockBytes(op, view);
      if (!bytes) return false;
      selfReceives_[op->result(0)] = {viewPointer(acquire), *bytes, &v};
      Operation* guard = outer.ifOp(isNonZero(outer, v.isReceiver), false);
      b = OpBuilder::bodyBuilder(guard);
      b.setLocation(outer.location());
    }
    // Clear VALID before signalling READY: the sender multicasts VALID only after every signal
    // of this round, so the VALID waited for below cannot be a stale one.
    Value* validAddr = b.call("get_semaphore", {v.recvValid}, Type::index(), {}, "valid_addr");
    Value* validPtr = b.call("l1_ptr", {validAddr}, l1PtrType(), {}, "valid_ptr");
    b.call("noc_semaphore_set", {validPtr, b.constant(0)});
    if (v.addressSemaphore) {
      // The address this receive fills goes to the sender's address word before READY, and
      // arrives before it (the barrier).
      Value* word = b.call("get_semaphore", {b.constant(*v.addressSemaphore)}, Type::index(), {},
                           "addr_word");
      Value* senderWord = b.call("get_noc_addr", {v.senderNocX, v.senderNocY, word},
                                 Type::integer(64), {}, "sender_addr_word");
      b.call("noc_inline_dw_write", {senderWord, viewPointer(acquire)});
      b.call("noc_async_write_barrier", {});
    }
    Value* readyAddr = b.call("get_semaphore", {v.recvReady}, Type::index(), {}, "ready_addr");
    Value* senderReady = b.call("get_noc_addr", {v.senderNocX, v.senderNocY, readyAddr},
                                Type::integer(64), {}, "sender_ready");
    b.call("noc_semaphore_inc", {senderReady, b.constant(1)});
    b.call("noc_semaphore_wait", {validPtr, b.constant(1)});
    stat_("receives", "pipe receives lowered") += 1;
    return true;
  }

  // ---- the reduce scaler --------------------------------------------------------------------

  /// ttl.fill_reduce_scaler %view {value}: the tile TT-Metalium's reduce_tile reads as its scaler,
  /// bf16 with `value` in row 0 of each 16x16 face and 0 elsewhere (tt_metal/hw/inc/api/compute/
  /// reduce.h): the tile's 512 words zeroed, then the first 8 words (16 bf16, two per word) of
  /// each 128-word face. Each word is a NoC inline write to this core's own L1
  /// (noc_inline_dw_write), not a store through a pointer: an API call, so the emulator sees it.
  bool lowerFillScaler(Operation* fill) {
    Operation* acquire = fill->operand(0)->definingOp();
    Type view = fill->operand(0)->type();
    if (!acquire || !acquire->isa(ir::CBReserveOp::kName) || !view.isTileBlock() ||
        view.elementType().tileDataType() != ir::DataType::BF16 || view.shape().size() != 2 ||
        !view.shape()[0].isStatic() || view.shape()[0].value != 1 || !view.shape()[1].isStatic() ||
        view.shape()[1].value != 1)
      return error(fill, "ttl.fill_reduce_scaler fills a 1x1 bf16 view of a ttl.cb_reserve");
    Attribute value = fill->attribute("value");
    if (!value.is(ir::AttrKind::Float))
      return error(fill, "ttl.fill_reduce_scaler needs a float `value`");
    const uint32_t bits = bf16Bits(static_cast<float>(value.floatValue()));
    const int64_t packed = static_cast<int64_t>((bits << 16) | bits);
    Value* tile = viewPointer(acquire);
    auto store = [&](OpBuilder& at, Value* word, Value* v) {
      Value* byte = at.arith("addi", tile, at.arith("muli", word, at.constant(4)), "scaler_byte");
      Value* noc = at.call("get_noc_addr", {byte}, Type::integer(64), {}, "scaler_noc");
      at.call("noc_inline_dw_write", {noc, v});
    };
    OpBuilder b = OpBuilder::before(fill);
    b.setLocation(fill->location());
    Operation* zero = b.forLoop(b.constant(0), b.constant(512), b.constant(1), "w");
    OpBuilder zb = OpBuilder::bodyBuilder(zero);
    zb.setLocation(fill->location());
    store(zb, zero->body().argument(0), zb.constant(0));
    Operation* faces = b.forLoop(b.constant(0), b.constant(4), b.constant(1), "face");
    OpBuilder fb = OpBuilder::bodyBuilder(faces);
    fb.setLocation(fill->location());
    Value* faceStart = fb.arith("muli", faces->body().argument(0), fb.constant(128), "face_start");
    Operation* row = fb.forLoop(fb.constant(0), fb.constant(8), fb.constant(1), "w");
    OpBuilder rb = OpBuilder::bodyBuilder(row);
    rb.setLocation(fill->location());
    store(rb, rb.arith("addi", faceStart, row->body().argument(0), "word"), rb.constant(packed));
    b.call("noc_async_write_barrier", {});
    ir::eraseOp(fill);
    stat_("scaler-tiles", "reduce scaler tiles filled") += 1;
    return true;
  }

  /// bf16 bits of `f`, rounded to nearest even (TT-Metalium's bfloat16(float)).
  static uint32_t bf16Bits(float f) {
    uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u; // NaN
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  }

  // ---- reads and writes -------------------------------------------------------------------

  /// The L1 address of a view: get_write_ptr after its ttl.cb_reserve, get_read_ptr after its
  /// ttl.cb_wait (once per view).
  Value* viewPointer(Operation* acquire) {
    auto it = pointers_.find(acquire);
    if (it != pointers_.end()) return it->second;
    OpBuilder b = OpBuilder::after(acquire);
    bool reserve = acquire->isa(ir::CBReserveOp::kName);
    Value* ptr = b.call(reserve ? "get_write_ptr" : "get_read_ptr", {acquire->operand(0)},
                        Type::index(), {}, reserve ? "write_ptr" : "read_ptr");
    pointers_[acquire] = ptr;
    return ptr;
  }

  /// Bytes of the block a view holds (tiles x tile bytes).
  std::optional<int64_t> blockBytes(Operation* op, Value* view) {
    Type t = view->type();
    if (!t.isTileBlock()) {
      error(op, fmt::format("expected a block of tiles, got {}", t.str()));
      return std::nullopt;
    }
    std::vector<int64_t> factors;
    for (const ir::Dim& d : t.shape()) {
      if (!d.isStatic()) {
        error(op, fmt::format("the block shape of {} is not a number: run `apply-plan` first",
                              t.str()));
        return std::nullopt;
      }
      factors.push_back(d.value);
    }
    factors.push_back(context_.device.tileBytes(t.elementType().tileDataType()));
    std::optional<int64_t> bytes = checkedProduct(factors, lower::kMaxCbBytes);
    if (!bytes) error(op, fmt::format("a block of {} is larger than 2^40 bytes", t.str()));
    return bytes;
  }

  /// The address generator of a tensor argument, made once at the top of the function.
  std::optional<TensorAccess> tensorAccess(Operation* slice, Value* tensor, Type tileType) {
    auto it = tensors_.find(tensor);
    if (it != tensors_.end()) return it->second;
    Type t = tensor->type();
    Attribute layout = t.is(ir::TypeKind::Tensor) ? t.encoding() : Attribute();
    if (layout.is(ir::AttrKind::Layout) && layout.layoutValue().sharded) {
      error(slice, fmt::format("lower-data-movement: sharded tensors are not supported yet ({} "
                               "is {}); use #ttl.layout<dram, interleaved>",
                               valueName(tensor), layout.str()));
      return std::nullopt;
    }
    if (layout.is(ir::AttrKind::Layout) && layout.layoutValue().memory != ir::MemorySpace::Dram) {
      error(slice, fmt::format("lower-data-movement: tensors in L1 are not supported yet ({} is "
                               "{}); use #ttl.layout<dram, interleaved>",
                               valueName(tensor), layout.str()));
      return std::nullopt;
    }
    if (!tensor->isBlockArgument() || tensor->ownerBlock() != &func_->body()) {
      error(slice, fmt::format("the sliced tensor {} is not an argument of the thread function",
                               valueName(tensor)));
      return std::nullopt;
    }
    std::optional<int64_t> arg = args_.indexOf(tensor->nameHint());
    if (!arg) {
      error(slice, fmt::format("the tensor {} is not in the runtime args of {} "
                               "(ttl.runtime_args): a bug in expand-threads",
                               valueName(tensor), func_->attribute("sym_name").stringValue()));
      return std::nullopt;
    }
    if (t.shape().size() != 2 || !t.shape()[0].isStatic() || !t.shape()[1].isStatic() ||
        tileType.tileColumns() <= 0 || tileType.tileRows() <= 0) {
      error(slice,
            fmt::format("only 2-D tensors with a static shape are supported, got {}", t.str()));
      return std::nullopt;
    }
    // A tensor that is not whole tiles lives padded to them (ir/Padding.h): its pages are tiles.
    TensorAccess access;
    access.pageBytes = context_.device.tileBytes(tileType.tileDataType());
    access.columnTiles = (t.shape()[1].value + tileType.tileColumns() - 1) / tileType.tileColumns();
    access.rowTiles = (t.shape()[0].value + tileType.tileRows() - 1) / tileType.tileRows();
    ir::Block& body = func_->body();
    OpBuilder b = body.empty() ? OpBuilder::atEnd(body) : OpBuilder::before(prologueEnd());
    b.setLocation(slice->location());
    Value* addr = getArgVal(b, *arg, tensor->nameHint() + "_addr");
    // Its TensorAccessor reads two compile-time args ([flags, aligned page size]) that the host
    // appends for this tensor after the CB indices, in the order the accessors are made.
    int64_t cbArgs = 0;
    for (Value* a : body.arguments())
      cbArgs += a->type().is(ir::TypeKind::CircularBuffer) ? 1 : 0;
    const int64_t ctaOffset = cbArgs + 2 * static_cast<int64_t>(tensors_.size());
    access.gen = b.call("tensor_accessor", {addr, b.constant(access.pageBytes)}, addrGenType(),
                        {{"cta_offset", Attribute::integer(ctaOffset)},
                         {"tensor", Attribute::string(tensor->nameHint())}},
                        tensor->nameHint() + "_gen");
    lastPrologueOp_ = access.gen->definingOp();
    tensors_[tensor] = access;
    return access;
  }

  /// The op before which prologue ops go: after the ones this pass already put there, else at
  /// the top of the function.
  Operation* prologueEnd() {
    if (lastPrologueOp_) {
      auto it = std::next(ir::iteratorOf(lastPrologueOp_));
      if (it != func_->body().operations().end()) return it->get();
    }
    return func_->body().operations().front().get();
  }

  /// noc_async_read_page / noc_async_write_page for every tile of a BxC block at tile
  /// [row, col] of the tensor: tile id (row + i) * columns + (col + j), L1 address
  /// ptr + (i * C + j) * page. Small blocks are unrolled, larger ones get two scf.for loops.
  /// A clipped slice moves only the tiles inside the tensor (a guard per row and per column).
  void emitTiles(OpBuilder& b, const char* fn, const TensorAccess& t, Value* row, Value* col,
                 int64_t rowsB, int64_t colsB, Value* ptr, bool clip) {
    if (rowsB * colsB <= maxUnrolledTiles_) {
      for (int64_t i = 0; i < rowsB; ++i) {
        std::optional<GuardedIndex> r = tileIndex(b, row, i, t.rowTiles, clip);
        if (!r) continue;
        Value* rowStart = times(r->at, r->index, t.columnTiles, "row_tile");
        for (int64_t j = 0; j < colsB; ++j) {
          std::optional<GuardedIndex> c = tileIndex(r->at, col, j, t.columnTiles, clip);
          if (!c) continue;
          Value* id = add(c->at, rowStart, c->index, "tile_id");
          Value* addr = plus(c->at, ptr, (i * colsB + j) * t.pageBytes, "tile_addr");
          c->at.call(fn, {id, t.gen, addr});
        }
      }
      return;
    }
    Operation* outer = b.forLoop(b.constant(0), b.constant(rowsB), b.constant(1), "ti");
    OpBuilder ob = OpBuilder::bodyBuilder(outer);
    ob.setLocation(b.location());
    Value* ti = outer->body().argument(0);
    // ti and tj are not constants, so neither index is ever dropped here.
    std::optional<GuardedIndex> r = tileIndex(ob, add(ob, row, ti), 0, t.rowTiles, clip);
    Value* rowStart = times(r->at, r->index, t.columnTiles, "row_tile");
    Value* rowAddr = add(r->at, ptr, times(r->at, ti, colsB * t.pageBytes), "row_addr");
    Operation* inner =
        r->at.forLoop(r->at.constant(0), r->at.constant(colsB), r->at.constant(1), "tj");
    OpBuilder ib = OpBuilder::bodyBuilder(inner);
    ib.setLocation(b.location());
    Value* tj = inner->body().argument(0);
    std::optional<GuardedIndex> c = tileIndex(ib, add(ib, col, tj), 0, t.columnTiles, clip);
    Value* id = add(c->at, rowStart, c->index, "tile_id");
    Value* addr = add(c->at, rowAddr, times(c->at, tj, t.pageBytes), "tile_addr");
    c->at.call(fn, {id, t.gen, addr});
  }

  bool lowerTransfer(Operation* op, Value* view, Value* sliceValue, bool read) {
    Operation* slice = sliceValue->definingOp();
    ir::TensorSliceOp s(slice);
    std::vector<Value*> indices = s.indices();
    Type block = sliceValue->type();
    if (indices.size() != 2 || !block.isTileBlock() || block.shape().size() != 2 ||
        !block.shape()[0].isStatic() || !block.shape()[1].isStatic())
      return error(op, fmt::format("only 2-D slices with a static block shape are supported, got "
                                   "{}",
                                   block.str()));
    if (view->type() != block)
      return error(
          op, fmt::format("the slice is {} but the view is {}", block.str(), view->type().str()));
    Operation* acquire = view->definingOp();
    if (!acquire || (!acquire->isa(ir::CBReserveOp::kName) && !acquire->isa(ir::CBWaitOp::kName)))
      return error(op, "the view of this copy does not come from ttl.cb_reserve or ttl.cb_wait");
    std::optional<TensorAccess> t = tensorAccess(slice, s.source(), block.elementType());
    if (!t) return false;
    slices_.insert(slice);
    Value* ptr = viewPointer(acquire);
    OpBuilder b = OpBuilder::before(op);
    int64_t rowsB = block.shape()[0].value, colsB = block.shape()[1].value;
    emitTiles(b, read ? "noc_async_read_page" : "noc_async_write_page", *t, indices[0], indices[1],
              rowsB, colsB, ptr, s.clipped());
    stat_(read ? "tiles-read" : "tiles-written",
          read ? "tiles read per block copy" : "tiles written per block copy") += rowsB * colsB;
    stat_("copies", "block copies lowered") += 1;
    return true;
  }

  bool lowerCopy(Operation* op) {
    if (op->numOperands() != 2 || op->numResults() != 1)
      return error(op, "ttl.copy needs two operands and a handle");
    ir::CopyOp copy(op);
    Direction d = copy.direction();
    handles_[copy.handle()] = d;
    switch (d) {
    case Direction::Read:
      return lowerTransfer(op, copy.destination(), copy.source(), true);
    case Direction::Write:
      return lowerTransfer(op, copy.source(), copy.destination(), false);
    case Direction::Send:
      return lowerSend(op, copy.source(), copy.destination());
    case Direction::Receive:
      return lowerReceive(op, copy.destination(), copy.source());
    case Direction::Invalid:
      break;
    }
    return error(op, "this copy is neither slice -> view, view -> slice, view -> pipe nor pipe -> "
                     "view");
  }

  /// A read's wait is a read barrier, a write's or a send's a write barrier (the sender's slot
  /// may be reused after it); a receive needs none: its VALID wait already saw the data land.
  bool lowerWait(Operation* op) {
    auto it = handles_.find(op->operand(0));
    if (it == handles_.end())
      return error(op, "this ttl.wait's handle does not come from a ttl.copy of the same thread "
                       "function");
    OpBuilder b = OpBuilder::before(op);
    if (auto self = selfReceives_.find(op->operand(0)); self != selfReceives_.end()) {
      // On a source that receives its own block: once its send left the block's address in the
      // sent word, a local copy of it into this view; the word back to 0 for the next round.
      const SelfReceive& r = self->second;
      Operation* guard = b.ifOp(isNonZero(b, r.pipe->selfReceive), false);
      OpBuilder ib = OpBuilder::bodyBuilder(guard);
      ib.setLocation(b.location());
      Value* word = ib.call("get_semaphore", {ib.constant(*r.pipe->sentSemaphore)}, Type::index(),
                            {}, "sent_word");
      Value* wordPtr = ib.call("l1_ptr", {word}, l1PtrType(), {}, "sent_ptr");
      ib.call("noc_semaphore_wait_min", {wordPtr, ib.constant(1)});
      Value* from = ib.call("l1_load", {wordPtr}, Type::index(), {}, "sent_addr");
      Value* src = ib.call("get_noc_addr", {from}, Type::integer(64), {}, "own_block");
      ib.call("noc_async_read", {src, r.to, ib.constant(r.bytes)});
      ib.call("noc_async_read_barrier", {});
      ib.call("noc_semaphore_set", {wordPtr, ib.constant(0)});
      stat_("self-receives", "receives of a source's own block (local copies)") += 1;
    }
    if (it->second == Direction::Read) b.call("noc_async_read_barrier", {});
    if (it->second == Direction::Write || it->second == Direction::Send)
      b.call("noc_async_write_barrier", {});
    if (it->second != Direction::Receive) stat_("barriers", "NoC barriers emitted") += 1;
    ir::eraseOp(op);
    return true;
  }

  bool eraseIfUnused(Operation* op, std::string_view what) {
    if (op->numResults() == 1 && ir::hasUses(func_, op->result(0)))
      return error(op, fmt::format("lower-data-movement left a use of {} (a {} it does not "
                                   "lower)",
                                   what, "ttl op"));
    std::vector<Value*> operands = op->operands();
    ir::eraseOp(op);
    // The coordinates of a pipe and the indices of a slice may now be dead.
    eraseDeadPure(operands);
    return true;
  }

  /// Erases the ops defining `values` that nothing uses any more and that only compute a value
  /// (arith, core coordinates), then their operands' likewise. A worklist of ops (not values:
  /// a value dies with its op, and one op may feed several operands).
  void eraseDeadPure(const std::vector<Value*>& values) {
    std::vector<Operation*> work;
    for (Value* v : values)
      if (Operation* def = v->definingOp()) work.push_back(def);
    std::set<Operation*> erased;
    while (!work.empty()) {
      Operation* def = work.back();
      work.pop_back();
      if (erased.count(def) || def->numResults() != 1 || def->numRegions() != 0) continue;
      const std::string& n = def->name();
      bool pure =
          n.starts_with("arith.") || n == "ttl.core_x" || n == "ttl.core_y" || n == "ttl.grid_size";
      if (!pure || ir::hasUses(func_, def->result(0))) continue;
      for (Value* o : def->operands())
        if (Operation* d = o->definingOp()) work.push_back(d);
      erased.insert(def);
      ir::eraseOp(def);
    }
  }

  bool error(Operation* op, std::string message) {
    reportError(context_, op, std::move(message));
    return false;
  }

  PassContext& context_;
  Operation* func_;
  int64_t rows_, cols_;
  int64_t maxUnrolledTiles_;
  const PublishedPipes& published_;
  const SentWords& sent_;
  std::function<int64_t&(std::string_view, std::string_view)> stat_;
  RuntimeArgs args_;
  std::map<const Value*, PipeValues> pipes_;
  std::map<const Value*, Direction> handles_;
  std::map<const Value*, SelfReceive> selfReceives_; ///< receive handle -> its local copy
  std::map<const Operation*, Value*> pointers_;
  std::map<const Value*, TensorAccess> tensors_;
  std::set<Operation*> slices_;
  Operation* lastPrologueOp_ = nullptr;
};

class LowerDataMovementPass : public Pass {
public:
  Status setOption(std::string_view name, std::string_view value) override {
    if (name == kMaxUnrolledTiles.name) {
      Expected<double> v = kMaxUnrolledTiles.number(value);
      if (!v) return v.error();
      maxUnrolledTiles_ = static_cast<int64_t>(*v);
      return Status::success();
    }
    return Pass::setOption(name, value);
  }

  bool run(PassContext& context) override {
    std::optional<PublishedPipes> published = publishedPipes(context);
    if (!published) return false;
    std::optional<SentWords> sent = sentWords(context);
    if (!sent) return false;
    bool ok = true;
    for (Operation* func : threadFunctions(context.module, true)) {
      Operation* kernel = kernelOfFunction(context.module, func);
      auto grid = plannedGrid(kernel);
      if (!grid) {
        reportError(context, func,
                    "lower-data-movement needs the kernel of this thread function and its "
                    "ttl.grid_planned: run `apply-plan` and `expand-threads` first");
        ok = false;
        continue;
      }
      FunctionLowering lowering(
          context, func, grid->first, grid->second, maxUnrolledTiles_, *published, *sent,
          [this](std::string_view n, std::string_view d) -> int64_t& { return statistic(n, d); });
      ok = lowering.run() && ok;
    }
    return ok;
  }

private:
  /// PublishedPipes of the module: the CB of every send's and receive's view (by name: each
  /// thread function has its own argument for a kernel CB), and the address word ids.
  std::optional<PublishedPipes> publishedPipes(PassContext& context) {
    struct Ends {
      std::set<std::string> sendCbs, receiveCbs;
      bool sendsWaited = false;
      Operation* kernel = nullptr;
      Operation* where = nullptr;
    };
    std::map<std::string, Ends> ends;
    for (Operation* func : threadFunctions(context.module, true)) {
      Operation* kernel = kernelOfFunction(context.module, func);
      func->walk([&](Operation* op) {
        if (!op->isa(ir::CopyOp::kName) || op->numOperands() != 2) return;
        const bool sends = op->operand(1)->type().is(ir::TypeKind::Pipe);
        const bool receives = op->operand(0)->type().is(ir::TypeKind::Pipe);
        if (sends == receives) return;
        Operation* acquire = op->operand(sends ? 0 : 1)->definingOp();
        if (!acquire || acquire->numOperands() != 1) return;
        Ends& e = ends[pipeKey(op->operand(sends ? 1 : 0))];
        e.kernel = kernel;
        e.where = op;
        (sends ? e.sendCbs : e.receiveCbs).insert(acquire->operand(0)->nameHint());
        e.sendsWaited = e.sendsWaited || (sends && acquire->isa(ir::CBWaitOp::kName));
      });
    }
    PublishedPipes out;
    for (auto& [key, e] : ends) {
      const bool differ = !e.sendCbs.empty() && !e.receiveCbs.empty() && e.sendCbs != e.receiveCbs;
      if ((!differ && !e.sendsWaited) || !e.kernel) continue;
      std::optional<int64_t> id =
          takeSemaphoreId(context, *e.kernel, e.where,
                          "lower-data-movement: the address word this pipe's receivers publish "
                          "into");
      if (!id) return std::nullopt;
      out[key] = *id;
      statistic("published-pipes", "pipes whose receivers publish their address") += 1;
    }
    return out;
  }

  /// A sent-address word per `source_receives` pipe of the module (one id for all its thread
  /// functions: the send and the receive of a core may be in different ones).
  std::optional<SentWords> sentWords(PassContext& context) {
    SentWords out;
    for (Operation* func : threadFunctions(context.module, true)) {
      Operation* kernel = kernelOfFunction(context.module, func);
      bool failed = false;
      func->walk([&](Operation* op) {
        if (!op->isa(ir::CreatePipeOp::kName) || !ir::CreatePipeOp(op).sourceReceives() ||
            !kernel || failed)
          return;
        std::string key = pipeKey(op->result(0));
        if (out.count(key)) return;
        std::optional<int64_t> id = takeSemaphoreId(
            context, *kernel, op,
            "lower-data-movement: the word where a pipe's source leaves the address of the block "
            "it receives itself");
        if (!id) {
          failed = true;
          return;
        }
        out[key] = *id;
      });
      if (failed) return std::nullopt;
    }
    return out;
  }

  int64_t maxUnrolledTiles_ = 4;
};

} // namespace

std::unique_ptr<Pass> createLowerDataMovementPass() {
  return std::make_unique<LowerDataMovementPass>();
}

} // namespace ttlplan::lower
