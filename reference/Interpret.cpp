// The reference interpreter. Every (core, thread) of the kernel runs as its own std::thread over a
// tree-walking evaluator; threads meet only at FIFOs (CBs and pipes), semaphores and the argument
// tensors, all guarded by one mutex. With one producer and one consumer per FIFO the threads form
// a Kahn process network, so what every thread reads, and therefore every result, error and
// deadlock, does not depend on how the OS schedules them.
#include "ttlplan/reference/Interpret.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Padding.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/support/Checked.h"
#include "ttlplan/support/Deadline.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <variant>

namespace ttlplan::reference {

std::pair<int64_t, int64_t> splitWorkToCores(int64_t items, int64_t cores, int64_t coreIndex) {
  if (items <= 0 || cores <= 0 || coreIndex < 0) return {0, 0};
  int64_t target = std::min(items, cores);
  if (coreIndex >= target) return {items, 0};
  int64_t q = items / target, r = items % target;
  int64_t first = coreIndex * q + std::min(coreIndex, r);
  return {first, q + (coreIndex < r ? 1 : 0)};
}

namespace {

using ir::Operation;
using ir::Value;

// ---- runtime values ----------------------------------------------------------------------------

/// A block: the dense (32B) x (32C) matrix a BxC block of tiles holds.
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> data;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), data(static_cast<size_t>(r * c), 0.0) {}
  double& at(int64_t r, int64_t c) { return data[static_cast<size_t>(r * cols + c)]; }
  double at(int64_t r, int64_t c) const { return data[static_cast<size_t>(r * cols + c)]; }
};
using MatrixPtr = std::shared_ptr<Matrix>;

struct CbRef {
  const Operation* create;
};
struct SemaphoreRef {
  const Operation* create;
};
/// A pipe evaluated on the running core: source (x, y) and the destination rectangle. A source
/// inside its rectangle is skipped, as the NoC's multicast skips its sender, unless the pipe says
/// `source_receives` (tt-lang's pipes: it receives its own block).
struct PipeRef {
  const Operation* create;
  int64_t srcX, srcY, x0, y0, x1, y1;
  bool sourceReceives = false;
  bool isDestination(int64_t x, int64_t y) const {
    return x0 <= x && x <= x1 && y0 <= y && y <= y1 &&
           (sourceReceives || !(x == srcX && y == srcY));
  }
};
/// `ttl.tensor_slice`: a rectangle of an argument tensor, in elements.
struct SliceRef {
  size_t argument;
  int64_t row0, col0, rows, cols;
  /// A clipped slice's rows and columns inside the tensor (rows, cols otherwise): a copy moves
  /// only those and leaves the rest of the block as it was.
  int64_t validRows, validCols;
};
struct TensorRef {
  size_t argument;
};
struct TransferHandle {};

using RtValue = std::variant<std::monostate, int64_t, MatrixPtr, CbRef, SemaphoreRef, PipeRef,
                             SliceRef, TensorRef, TransferHandle>;

std::string where(const Operation& op) {
  return op.location().str();
}

Error opError(const Operation& op, const std::string& message) {
  return Error{fmt::format("{}: error: reference: {}", where(op), message)};
}

std::string name(const Value* v) {
  return lower::valueName(v);
}

/// The first block of region `i`, or null. (Operation::body() would create a missing block: not
/// safe while other threads read the IR.)
ir::Block* regionBlock(Operation& op, size_t i) {
  if (i >= op.numRegions() || op.region(i).empty()) return nullptr;
  return &op.region(i).front();
}

// ---- kernel facts shared (read-only) by every thread -------------------------------------------

struct Argument {
  std::string name;
  std::vector<int64_t> shape; ///< elements
};

struct KernelInfo {
  Operation* kernel = nullptr;
  ir::Binding binding;
  int rows = 0, cols = 0;        ///< the grid
  std::vector<int64_t> workDims; ///< empty without `work`
  int64_t workItems = 0;         ///< product of workDims
  std::vector<Argument> arguments;
  std::unordered_map<const Value*, size_t> argumentIndex;
  std::vector<Operation*> threads; ///< in kernel order
  /// The other ops of the kernel body (CBs, semaphores, constants, knob values, requires), which
  /// every thread evaluates first.
  std::vector<Operation*> kernelScope;
};

// ---- the shared machine: FIFOs, semaphores, tensors, blocking and deadlock detection ----------

struct ThreadSlot {
  std::string label;                     ///< "core (1, 0) ttl.compute_thread at f.ttl:40:5"
  bool waiting = false;                  ///< blocked in Machine::waitFor
  std::function<std::string()> waitsFor; ///< while blocked: what for, in words
  std::function<bool()> ready;           ///< while blocked: whether it could go on
  std::optional<Error> error;            ///< how it failed
  bool finished = false;                 ///< its run ended (normally or not)
  /// The op it executes now (for the time-limit report; written by its thread alone).
  std::atomic<const Operation*> current{nullptr};
};

using CbKey = std::pair<int, const Operation*>; ///< (core index, ttl.create_cb)
/// (destination core, ttl.create_pipe, source core): one FIFO per pipe instance and receiver.
using PipeKey = std::tuple<int, const Operation*, int>;
using SemaphoreKey = std::pair<int, const Operation*>;

class Machine {
public:
  Machine(const KernelInfo& info, std::vector<HostTensor> tensors, size_t threads,
          double timeLimitSeconds)
      : info(info), tensors(std::move(tensors)), slots(threads), timeLimitSeconds(timeLimitSeconds),
        deadline(Deadline::in(timeLimitSeconds)), unfinished_(threads) {}

  const KernelInfo& info;
  std::mutex mutex;
  std::vector<HostTensor> tensors;
  std::map<CbKey, std::deque<MatrixPtr>> cbs;
  std::map<PipeKey, std::deque<MatrixPtr>> pipes;
  /// A pipe's create_pipe by location: the one of its thread-local creations pipes are keyed by.
  std::map<std::string, const Operation*> pipeCreates;
  std::map<SemaphoreKey, int64_t> semaphores;
  std::vector<ThreadSlot> slots;
  /// The report once the run stopped early: every unfinished thread blocked (a deadlock), or the
  /// time limit passed.
  std::optional<std::string> stopped;
  double timeLimitSeconds; ///< ReferenceOptions::timeLimitSeconds (0: none)
  Deadline deadline;

  /// Blocks (with `lock` held on `mutex`) until `ready()`; false when the run stopped instead.
  /// `what` describes the wait for the stop report.
  bool waitFor(std::unique_lock<std::mutex>& lock, size_t self, std::function<std::string()> what,
               const std::function<bool()>& ready) {
    if (ready()) return true;
    if (stopped) return false;
    slots[self].waiting = true;
    slots[self].waitsFor = std::move(what);
    slots[self].ready = ready;
    ++waiting_;
    bool ok = false;
    while (true) {
      if (ready()) {
        ok = true;
        break;
      }
      if (stopped) break;
      if (allBlocked()) {
        declareDeadlock();
        break;
      }
      if (deadline.isSet()) {
        changed_.wait_until(lock, deadline.at());
        if (deadline.passed() && !ready() && !stopped) declareTimeout();
      } else {
        changed_.wait(lock);
      }
    }
    --waiting_;
    slots[self].waiting = false;
    slots[self].waitsFor = nullptr;
    slots[self].ready = nullptr;
    return ok;
  }

  /// Wakes the blocked threads after a change of shared state (call with the lock held).
  void notify() { changed_.notify_all(); }

  /// A thread ended (normally or with an error).
  void finish(size_t self, std::optional<Error> error) {
    std::unique_lock<std::mutex> lock(mutex);
    slots[self].error = std::move(error);
    slots[self].finished = true;
    --unfinished_;
    if (unfinished_ > 0 && !stopped && allBlocked()) declareDeadlock();
    changed_.notify_all();
  }

  /// Ends the run at the time limit (call with the lock held): the report says what each
  /// unfinished thread was executing or waiting for.
  void declareTimeout() {
    std::string report = fmt::format(
        "{}: error: reference: @{} did not finish within the time limit of {} s; its threads were:",
        where(*info.kernel), ir::KernelOp(info.kernel).symbolName(), timeLimitSeconds);
    listThreads(report, "unfinished", [](const ThreadSlot& s) {
      if (s.waiting) return s.waitsFor();
      const Operation* op = s.current.load(std::memory_order_relaxed);
      return op ? fmt::format("executing {} at {}", op->name(), where(*op))
                : std::string("starting");
    });
    stopped = std::move(report);
    changed_.notify_all();
  }

  int64_t& semaphore(int core, const Operation* create) {
    auto [it, fresh] = semaphores.try_emplace({core, create}, 0);
    if (fresh) it->second = ir::CreateSemaphoreOp(const_cast<Operation*>(create)).initialValue();
    return it->second;
  }

private:
  // Every unfinished thread waits and none of them could go on: nothing can change any more.
  bool allBlocked() const {
    if (waiting_ != unfinished_) return false;
    for (const ThreadSlot& s : slots)
      if (s.waiting && s.ready()) return false;
    return true;
  }

  void declareDeadlock() {
    std::string report =
        fmt::format("{}: error: reference: deadlock: every unfinished thread of @{} is blocked",
                    where(*info.kernel), ir::KernelOp(info.kernel).symbolName());
    listThreads(report, "blocked", [](const ThreadSlot& s) { return s.waitsFor(); });
    stopped = std::move(report);
    changed_.notify_all();
  }

  /// Appends "\n  LABEL: STATE" for each unfinished thread (the first 16), then how many more.
  template <typename State>
  void listThreads(std::string& report, std::string_view kind, State state) const {
    constexpr size_t kMaxListed = 16;
    size_t listed = 0, unfinished = 0;
    for (const ThreadSlot& s : slots) {
      if (s.finished) continue;
      ++unfinished;
      if (listed++ < kMaxListed) report += fmt::format("\n  {}: {}", s.label, state(s));
    }
    if (unfinished > kMaxListed)
      report += fmt::format("\n  ... and {} more {} threads", unfinished - kMaxListed, kind);
  }

  std::condition_variable changed_;
  size_t unfinished_;
  size_t waiting_ = 0;
};

// ---- one thread of one core --------------------------------------------------------------------

class ThreadRun {
public:
  ThreadRun(Machine& machine, size_t self, int coreX, int coreY, Operation* thread)
      : m_(machine), info_(machine.info), self_(self), x_(coreX), y_(coreY),
        core_(coreY * machine.info.cols + coreX), thread_(thread) {}

  Status run() {
    for (const auto& [arg, index] : info_.argumentIndex)
      set(arg, TensorRef{index});
    // Kernel-scope values (CBs, semaphores, constants, knob values) first, then the thread.
    for (Operation* op : info_.kernelScope)
      if (Status s = exec(*op); !s) return s;
    ir::Block* body = regionBlock(*thread_, 0);
    return body ? execBlock(*body) : Status::success();
  }

private:
  Machine& m_;
  const KernelInfo& info_;
  size_t self_;
  int64_t x_, y_;
  int core_;
  Operation* thread_;
  std::unordered_map<const Value*, RtValue> env_;
  /// Receives of this core's own block waiting for its send: handle -> the receive.
  std::unordered_map<const Value*, Operation*> pendingReceives_;
  /// The block each CB has reserved and not yet pushed (only its producer thread reserves).
  std::map<const Operation*, MatrixPtr> reserved_;
  bool aborted_ = false;  ///< the run stopped (deadlock, time limit) while this thread ran
  uint32_t executed_ = 0; ///< ops executed, to look at the clock every 256th

  Status aborted() {
    aborted_ = true;
    return Error{"aborted"}; // never reported: the stop report wins
  }

public:
  bool wasAborted() const { return aborted_; }

private:
  // ---- operand access ----

  template <typename T> Expected<T> get(const Operation& op, size_t i, const char* what) {
    if (i >= op.numOperands()) return opError(op, fmt::format("missing operand {}", i));
    const Value* v = op.operand(i);
    auto it = env_.find(v);
    if (it == env_.end() || !std::holds_alternative<T>(it->second))
      return opError(op, fmt::format("operand {} ({}) is not {} here", i, name(v), what));
    return std::get<T>(it->second);
  }
  Expected<int64_t> scalar(const Operation& op, size_t i) {
    return get<int64_t>(op, i, "a scalar");
  }
  Expected<MatrixPtr> block(const Operation& op, size_t i) {
    return get<MatrixPtr>(op, i, "a block");
  }

  void set(const Value* v, RtValue value) { env_[v] = std::move(value); }

  /// Scalars take their type's width: i1 is 0 or 1, iN (N < 64) wraps and sign-extends.
  static int64_t truncate(int64_t v, const ir::Type& type) {
    if (!type.is(ir::TypeKind::Integer)) return v;
    unsigned w = type.integerWidth();
    if (w == 1) return v & 1;
    if (w == 0 || w >= 64) return v;
    uint64_t mask = (uint64_t{1} << w) - 1, u = static_cast<uint64_t>(v) & mask;
    if (u >> (w - 1)) u |= ~mask;
    return static_cast<int64_t>(u);
  }

  /// Rows and columns (elements) of a block type `tensor<BxCx!tile<RxC>>` under the binding.
  Expected<std::pair<int64_t, int64_t>> blockShape(const Operation& op, const ir::Type& t) {
    if (!t.is(ir::TypeKind::Tensor) || !t.isTileBlock() || t.shape().size() != 2)
      return opError(op, fmt::format("a block of type {} is not supported (blocks are 2-D "
                                     "tensors of tiles)",
                                     t.str()));
    std::optional<int64_t> b = ir::resolveDim(t.shape()[0], info_.binding);
    std::optional<int64_t> c = ir::resolveDim(t.shape()[1], info_.binding);
    if (!b || !c || *b < 1 || *c < 1)
      return opError(op, fmt::format("block type {} has no shape under the binding", t.str()));
    ir::Type tile = t.elementType();
    return std::make_pair(*b * tile.tileRows(), *c * tile.tileColumns());
  }

  // ---- control flow ----

  Status execBlock(ir::Block& block) {
    for (auto& op : block.operations())
      if (Status s = exec(*op); !s) return s;
    return Status::success();
  }

  Status exec(Operation& op) {
    m_.slots[self_].current.store(&op, std::memory_order_relaxed);
    if ((++executed_ & 255) == 0 && m_.deadline.passed()) {
      std::unique_lock<std::mutex> lock(m_.mutex);
      if (!m_.stopped) m_.declareTimeout();
      return aborted();
    }
    const std::string& n = op.name();
    std::string_view dialect = op.dialect();
    if (dialect == "arith") return execArith(op);
    if (n == "scf.for") return execFor(op);
    if (n == "scf.if") {
      Expected<int64_t> c = scalar(op, 0);
      if (!c) return c.error();
      ir::Block* b = regionBlock(op, (*c & 1) ? 0 : 1);
      return b ? execBlock(*b) : Status::success();
    }
    if (n == "scf.yield") return Status::success();
    if (n == "ttl.work_loop") return execWorkLoop(op);
    if (n == "ttl.param_value") {
      std::string knob(ir::ParamValueOp(&op).param());
      auto it = info_.binding.find(knob);
      if (it == info_.binding.end() || !it->second.isInteger())
        return opError(op, fmt::format("knob @{} has no integer value in the binding", knob));
      set(op.result(0), truncate(it->second.integer(), op.result(0)->type()));
      return Status::success();
    }
    if (n == "ttl.require") {
      Expected<int64_t> c = scalar(op, 0);
      if (!c) return c.error();
      if (!(*c & 1)) return opError(op, "ttl.require does not hold under the binding");
      return Status::success();
    }
    if (n == "ttl.core_x" || n == "ttl.core_y") {
      set(op.result(0), n == "ttl.core_x" ? x_ : y_);
      return Status::success();
    }
    if (n == "ttl.grid_size") {
      ir::Attribute dim = op.attribute("dim");
      if (!dim.is(ir::AttrKind::Integer) || (dim.intValue() != 0 && dim.intValue() != 1))
        return opError(op, "ttl.grid_size needs dim = 0 (rows) or dim = 1 (columns)");
      set(op.result(0), int64_t{dim.intValue() == 0 ? info_.rows : info_.cols});
      return Status::success();
    }
    if (n == "ttl.create_cb") {
      set(op.result(0), CbRef{&op});
      return Status::success();
    }
    if (n == "ttl.create_semaphore") {
      set(op.result(0), SemaphoreRef{&op});
      return Status::success();
    }
    if (n == "ttl.cb_reserve" || n == "ttl.cb_push" || n == "ttl.cb_wait" || n == "ttl.cb_pop")
      return execCb(op);
    if (n == "ttl.tensor_slice") return execSlice(op);
    if (n == "ttl.copy") return execCopy(op);
    if (n == "ttl.wait" && op.numOperands() == 1) {
      // A source's receive of its own block started before its send (tt-lang's
      // test_broadcast_2d.py): it completes here, where the handle is waited for.
      auto it = pendingReceives_.find(op.operand(0));
      if (it != pendingReceives_.end()) {
        Operation* receive = it->second;
        pendingReceives_.erase(it);
        return execReceive(*receive, /*mayDefer=*/false);
      }
    }
    if (n == "ttl.wait" || n == "ttl.dma_barrier") return Status::success(); // copies are instant
    if (n == "ttl.create_pipe") return execCreatePipe(op);
    if (n == "ttl.if_src" || n == "ttl.if_dst") {
      Expected<PipeRef> p = get<PipeRef>(op, 0, "a pipe");
      if (!p) return p.error();
      bool run = n == "ttl.if_src" ? (p->srcX == x_ && p->srcY == y_) : p->isDestination(x_, y_);
      ir::Block* b = regionBlock(op, 0);
      return run && b ? execBlock(*b) : Status::success();
    }
    if (n == "ttl.semaphore_wait" || n == "ttl.semaphore_set" || n == "ttl.semaphore_inc")
      return execSemaphore(op);
    if (n == "ttl.matmul") return execMatmul(op);
    if (n == "ttl.reduce_sum" || n == "ttl.reduce_max" || n == "ttl.bcast")
      return execReduceOrBcast(op);
    if (n == "ttl.store") return execStore(op);
    if (n == "ttl.fill") return execFill(op);
    if (n == "ttl.transpose") return execTranspose(op);
    if (op.numOperands() == 2 && op.numResults() == 1 && dialect == "ttl") return execBinary(op);
    if (op.numOperands() == 1 && op.numResults() == 1 && dialect == "ttl") return execUnary(op);
    return opError(op, fmt::format("{} is not supported", n));
  }

  Status execArith(Operation& op) {
    const std::string& n = op.name();
    if (n == "arith.constant") {
      ir::Attribute v = op.attribute("value");
      if (v.is(ir::AttrKind::Integer))
        set(op.result(0), truncate(v.intValue(), op.result(0)->type()));
      else if (v.is(ir::AttrKind::Bool))
        set(op.result(0), int64_t{v.boolValue() ? 1 : 0});
      else
        return opError(op, "arith.constant of a non-integer is not supported");
      return Status::success();
    }
    if (op.numOperands() != 2 || op.numResults() != 1)
      return opError(op, fmt::format("{} is not supported", n));
    Expected<int64_t> a = scalar(op, 0);
    if (!a) return a.error();
    Expected<int64_t> b = scalar(op, 1);
    if (!b) return b.error();
    auto ua = static_cast<uint64_t>(*a), ub = static_cast<uint64_t>(*b);
    int64_t r = 0;
    // Wrap-around arithmetic as in MLIR (in unsigned, so that overflow is defined).
    if (n == "arith.addi")
      r = static_cast<int64_t>(ua + ub);
    else if (n == "arith.subi")
      r = static_cast<int64_t>(ua - ub);
    else if (n == "arith.muli")
      r = static_cast<int64_t>(ua * ub);
    else if (n == "arith.andi")
      r = *a & *b;
    else if (n == "arith.ori")
      r = *a | *b;
    else if (n == "arith.xori")
      r = *a ^ *b;
    else if (n == "arith.minui")
      r = static_cast<int64_t>(std::min(ua, ub));
    else if (n == "arith.maxui")
      r = static_cast<int64_t>(std::max(ua, ub));
    else if (n == "arith.cmpi") {
      ir::Attribute p = op.attribute("predicate");
      if (!p.is(ir::AttrKind::Integer) || p.intValue() < 0 || p.intValue() > 9)
        return opError(op, "arith.cmpi has no valid predicate");
      // The operands' width decides the unsigned view (i32 -1 is 2^32 - 1 unsigned).
      unsigned w = op.operand(0)->type().is(ir::TypeKind::Integer)
                       ? op.operand(0)->type().integerWidth()
                       : 64;
      uint64_t mask = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
      uint64_t xa = ua & mask, xb = ub & mask;
      bool c = false;
      switch (p.intValue()) {
      case 0:
        c = *a == *b;
        break;
      case 1:
        c = *a != *b;
        break;
      case 2:
        c = *a < *b;
        break;
      case 3:
        c = *a <= *b;
        break;
      case 4:
        c = *a > *b;
        break;
      case 5:
        c = *a >= *b;
        break;
      case 6:
        c = xa < xb;
        break;
      case 7:
        c = xa <= xb;
        break;
      case 8:
        c = xa > xb;
        break;
      default:
        c = xa >= xb;
        break;
      }
      r = c ? 1 : 0;
    } else if (n == "arith.divui" || n == "arith.remui" || n == "arith.divsi" ||
               n == "arith.remsi") {
      if (*b == 0) return opError(op, fmt::format("{} divides by zero", n));
      if (n == "arith.divui")
        r = static_cast<int64_t>(ua / ub);
      else if (n == "arith.remui")
        r = static_cast<int64_t>(ua % ub);
      else if (*a == INT64_MIN && *b == -1)
        r = n == "arith.divsi" ? INT64_MIN : 0;
      else
        r = n == "arith.divsi" ? *a / *b : *a % *b;
    } else {
      return opError(op, fmt::format("{} is not supported", n));
    }
    set(op.result(0), truncate(r, op.result(0)->type()));
    return Status::success();
  }

  Status execFor(Operation& op) {
    Expected<int64_t> lb = scalar(op, 0);
    if (!lb) return lb.error();
    Expected<int64_t> ub = scalar(op, 1);
    if (!ub) return ub.error();
    Expected<int64_t> step = scalar(op, 2);
    if (!step) return step.error();
    if (*step <= 0) return opError(op, fmt::format("scf.for step {} is not positive", *step));
    ir::Block* body = regionBlock(op, 0);
    if (!body || body->numArguments() != 1)
      return opError(op, "scf.for needs a body with one induction variable");
    for (int64_t i = *lb; i < *ub;) {
      set(body->argument(0), i);
      if (Status s = execBlock(*body); !s) return s;
      // In unsigned: ub - i is positive and fits, and i + step must not overflow.
      if (static_cast<uint64_t>(*ub) - static_cast<uint64_t>(i) <= static_cast<uint64_t>(*step))
        break;
      i += *step;
    }
    return Status::success();
  }

  Status execWorkLoop(Operation& op) {
    if (info_.workDims.empty())
      return opError(op, "ttl.work_loop in a kernel without a `work` attribute");
    ir::Block* body = regionBlock(op, 0);
    if (!body || body->numArguments() != info_.workDims.size())
      return opError(op, fmt::format("ttl.work_loop needs {} induction variables, one per work "
                                     "dimension",
                                     info_.workDims.size()));
    auto [first, count] =
        splitWorkToCores(info_.workItems, int64_t{info_.rows} * info_.cols, core_);
    for (int64_t item = first; item < first + count; ++item) {
      // Row-major over the work dims: the last dimension varies fastest.
      int64_t rest = item;
      for (size_t d = info_.workDims.size(); d-- > 0;) {
        set(body->argument(d), rest % info_.workDims[d]);
        rest /= info_.workDims[d];
      }
      if (Status s = execBlock(*body); !s) return s;
    }
    return Status::success();
  }

  // ---- circular buffers ----

  Status execCb(Operation& op) {
    Expected<CbRef> cb = get<CbRef>(op, 0, "a circular buffer");
    if (!cb) return cb.error();
    const std::string& n = op.name();
    std::string cbName = name(op.operand(0));
    if (n == "ttl.cb_reserve") {
      if (reserved_.count(cb->create))
        return opError(op, fmt::format("{} is reserved again before ttl.cb_push", cbName));
      Expected<std::pair<int64_t, int64_t>> shape = blockShape(op, op.result(0)->type());
      if (!shape) return shape.error();
      auto fresh = std::make_shared<Matrix>(shape->first, shape->second);
      reserved_[cb->create] = fresh;
      set(op.result(0), fresh);
      return Status::success();
    }
    if (n == "ttl.cb_push") {
      auto it = reserved_.find(cb->create);
      if (it == reserved_.end())
        return opError(op, fmt::format("ttl.cb_push of {} without ttl.cb_reserve", cbName));
      // A copy: the producer's view may not be used after the push (the verifier checks), and a
      // copy keeps even a kernel that does so free of data races.
      auto published = std::make_shared<Matrix>(*it->second);
      reserved_.erase(it);
      std::unique_lock<std::mutex> lock(m_.mutex);
      m_.cbs[{core_, cb->create}].push_back(std::move(published));
      m_.notify();
      return Status::success();
    }
    // cb_wait and cb_pop both need a pushed block; a pop without a wait waits as well.
    std::unique_lock<std::mutex> lock(m_.mutex);
    std::deque<MatrixPtr>& fifo = m_.cbs[{core_, cb->create}];
    auto what = [&] {
      return fmt::format("{} {} at {} waits for a block that is never pushed", n, cbName,
                         where(op));
    };
    if (!m_.waitFor(lock, self_, what, [&fifo] { return !fifo.empty(); })) return aborted();
    if (n == "ttl.cb_wait") {
      set(op.result(0), fifo.front());
      return Status::success();
    }
    fifo.pop_front();
    return Status::success();
  }

  // ---- data movement ----

  Status execSlice(Operation& op) {
    Expected<TensorRef> t = get<TensorRef>(op, 0, "a kernel argument");
    if (!t) return t.error();
    const Argument& arg = info_.arguments[t->argument];
    if (op.numOperands() != 3)
      return opError(op, "ttl.tensor_slice needs two tile indices (2-D tensors)");
    Expected<int64_t> i = scalar(op, 1);
    if (!i) return i.error();
    Expected<int64_t> j = scalar(op, 2);
    if (!j) return j.error();
    Expected<std::pair<int64_t, int64_t>> shape = blockShape(op, op.result(0)->type());
    if (!shape) return shape.error();
    ir::Type tile = op.result(0)->type().elementType();
    bool clip = ir::TensorSliceOp(&op).clipped();
    // Element offsets, saturated: a clipped slice far past the edge simply has nothing inside.
    int64_t row0 = checkedMul(*i, tile.tileRows()).value_or(INT64_MAX);
    int64_t col0 = checkedMul(*j, tile.tileColumns()).value_or(INT64_MAX);
    auto inside = [](int64_t start, int64_t extent, int64_t size) {
      return start >= size ? 0 : std::min(extent, size - start);
    };
    SliceRef s{t->argument,
               row0,
               col0,
               shape->first,
               shape->second,
               inside(row0, shape->first, arg.shape[0]),
               inside(col0, shape->second, arg.shape[1])};
    bool fits = s.validRows == s.rows && s.validCols == s.cols;
    if (*i < 0 || *j < 0 || (!clip && !fits))
      return opError(op, fmt::format("slice [{}, {}] (tiles) of {} covers rows {}..{} and columns "
                                     "{}..{}, outside its {} x {} elements{}",
                                     *i, *j, name(op.operand(0)), s.row0,
                                     static_cast<__int128>(s.row0) + s.rows - 1, s.col0,
                                     static_cast<__int128>(s.col0) + s.cols - 1, arg.shape[0],
                                     arg.shape[1], clip ? " (a clipped slice starts inside)" : ""));
    set(op.result(0), s);
    return Status::success();
  }

  static Status sameShape(const Operation& op, const Matrix& a, int64_t rows, int64_t cols) {
    if (a.rows == rows && a.cols == cols) return Status::success();
    return opError(op, fmt::format("copies a {} x {} block into {} x {} elements", a.rows, a.cols,
                                   rows, cols));
  }

  Status execCopy(Operation& op) {
    ir::CopyOp copy(&op);
    set(op.result(0), TransferHandle{});
    switch (copy.direction()) {
    case ir::CopyOp::Direction::Read: {
      Expected<SliceRef> s = get<SliceRef>(op, 0, "a slice");
      if (!s) return s.error();
      Expected<MatrixPtr> v = block(op, 1);
      if (!v) return v.error();
      if (Status st = sameShape(op, **v, s->rows, s->cols); !st) return st;
      std::unique_lock<std::mutex> lock(m_.mutex);
      const HostTensor& t = m_.tensors[s->argument];
      int64_t width = t.shape[1];
      for (int64_t r = 0; r < s->validRows; ++r)
        std::copy_n(t.data.begin() + (s->row0 + r) * width + s->col0, s->validCols,
                    (*v)->data.begin() + r * s->cols);
      return Status::success();
    }
    case ir::CopyOp::Direction::Write: {
      Expected<MatrixPtr> v = block(op, 0);
      if (!v) return v.error();
      Expected<SliceRef> s = get<SliceRef>(op, 1, "a slice");
      if (!s) return s.error();
      if (Status st = sameShape(op, **v, s->rows, s->cols); !st) return st;
      std::unique_lock<std::mutex> lock(m_.mutex);
      HostTensor& t = m_.tensors[s->argument];
      int64_t width = t.shape[1];
      for (int64_t r = 0; r < s->validRows; ++r)
        std::copy_n((*v)->data.begin() + r * s->cols, s->validCols,
                    t.data.begin() + (s->row0 + r) * width + s->col0);
      return Status::success();
    }
    case ir::CopyOp::Direction::Send:
      return execSend(op);
    case ir::CopyOp::Direction::Receive:
      return execReceive(op);
    case ir::CopyOp::Direction::Invalid:
      break;
    }
    return opError(op, "ttl.copy between these operands is not supported");
  }

  std::string coreName(int64_t x, int64_t y) const { return fmt::format("({}, {})", x, y); }
  bool inGrid(int64_t x, int64_t y) const {
    return x >= 0 && y >= 0 && x < info_.cols && y < info_.rows;
  }

  Status execSend(Operation& op) {
    Expected<MatrixPtr> v = block(op, 0);
    if (!v) return v.error();
    Expected<PipeRef> p = get<PipeRef>(op, 1, "a pipe");
    if (!p) return p.error();
    if (p->srcX != x_ || p->srcY != y_)
      return opError(op, fmt::format("core {} sends on {}, whose source is {}", coreName(x_, y_),
                                     name(op.operand(1)), coreName(p->srcX, p->srcY)));
    for (int64_t y = p->y0; y <= p->y1; ++y)
      for (int64_t x = p->x0; x <= p->x1; ++x)
        if (!inGrid(x, y))
          return opError(op,
                         fmt::format("{} sends to core {}, outside the {} x {} grid",
                                     name(op.operand(1)), coreName(x, y), info_.rows, info_.cols));
    // One immutable snapshot for every receiver: receives copy out of it.
    auto sent = std::make_shared<Matrix>(**v);
    std::unique_lock<std::mutex> lock(m_.mutex);
    for (int64_t y = p->y0; y <= p->y1; ++y)
      for (int64_t x = p->x0; x <= p->x1; ++x)
        if (p->isDestination(x, y))
          m_.pipes[{static_cast<int>(y * info_.cols + x), p->create, core_}].push_back(sent);
    m_.notify();
    return Status::success();
  }

  Status execReceive(Operation& op, bool mayDefer = true) {
    Expected<PipeRef> p = get<PipeRef>(op, 0, "a pipe");
    if (!p) return p.error();
    Expected<MatrixPtr> v = block(op, 1);
    if (!v) return v.error();
    std::string pipe = name(op.operand(0));
    if (!p->isDestination(x_, y_))
      return opError(op, fmt::format("core {} receives on {}, which does not reach it",
                                     coreName(x_, y_), pipe));
    if (!inGrid(p->srcX, p->srcY))
      return opError(op, fmt::format("{} has its source {} outside the {} x {} grid", pipe,
                                     coreName(p->srcX, p->srcY), info_.rows, info_.cols));
    int source = static_cast<int>(p->srcY * info_.cols + p->srcX);
    std::unique_lock<std::mutex> lock(m_.mutex);
    std::deque<MatrixPtr>& fifo = m_.pipes[{core_, p->create, source}];
    if (mayDefer && source == core_ && fifo.empty() && op.numResults() == 1) {
      pendingReceives_[op.result(0)] = &op; // its own send comes before the handle's wait
      return Status::success();
    }
    auto what = [&] {
      return fmt::format("ttl.copy from {} at {} waits for a block that core {} never sends", pipe,
                         where(op), coreName(p->srcX, p->srcY));
    };
    if (!m_.waitFor(lock, self_, what, [&fifo] { return !fifo.empty(); })) return aborted();
    MatrixPtr got = fifo.front();
    fifo.pop_front();
    lock.unlock();
    if (Status st = sameShape(op, *got, (*v)->rows, (*v)->cols); !st) return st;
    (*v)->data = got->data;
    return Status::success();
  }

  Status execCreatePipe(Operation& op) {
    std::vector<int64_t> c;
    for (const auto& [px, py] : ir::CreatePipeOp(&op).points())
      for (const ir::CreatePipeOp::Coord& k : {px, py}) {
        if (k.literal) {
          c.push_back(*k.literal);
          continue;
        }
        auto it = k.value ? env_.find(k.value) : env_.end();
        if (it == env_.end() || !std::holds_alternative<int64_t>(it->second))
          return opError(op, "a pipe coordinate has no index value here");
        c.push_back(std::get<int64_t>(it->second));
      }
    if (c.size() != 4 && c.size() != 6)
      return opError(op, "ttl.create_pipe needs src(x, y) dst(x, y) [to(x, y)]");
    int64_t x1 = c.size() == 6 ? c[4] : c[2], y1 = c.size() == 6 ? c[5] : c[3];
    // Each thread creates its own value of a pipe: the threads of a core meet on one of them
    // (the first created at that location), so a send in one reaches a receive in the other.
    const Operation* create = &op;
    if (std::string identity = lower::pipeIdentity(op); !identity.empty()) {
      std::unique_lock<std::mutex> lock(m_.mutex);
      create = m_.pipeCreates.emplace(identity, &op).first->second;
    }
    set(op.result(0),
        PipeRef{create, c[0], c[1], std::min(c[2], x1), std::min(c[3], y1), std::max(c[2], x1),
                std::max(c[3], y1), ir::CreatePipeOp(&op).sourceReceives()});
    return Status::success();
  }

  // ---- semaphores ----

  /// Cores a semaphore_set/inc writes: `core = [y, x]`, `mcast = [[y0, x0], [y1, x1]]` (both y
  /// first, as docs/language.md spells mcast), or the running core.
  Expected<std::vector<int>> semaphoreTargets(const Operation& op) {
    std::vector<int> out;
    auto add = [&](int64_t y, int64_t x) -> Status {
      if (!inGrid(x, y))
        return opError(op, fmt::format("{} names core (y = {}, x = {}), outside the {} x {} grid",
                                       op.name(), y, x, info_.rows, info_.cols));
      out.push_back(static_cast<int>(y * info_.cols + x));
      return Status::success();
    };
    ir::Attribute core = op.attribute("core"), mcast = op.attribute("mcast");
    if (core) {
      std::vector<int64_t> yx;
      if (!core.getIntegers(yx) || yx.size() != 2)
        return opError(op, "core = [y, x] must be two integers");
      if (Status s = add(yx[0], yx[1]); !s) return s.error();
    } else if (mcast) {
      std::vector<int64_t> a, b;
      if (!mcast.is(ir::AttrKind::Array) || mcast.elements().size() != 2 ||
          !mcast.elements()[0].getIntegers(a) || !mcast.elements()[1].getIntegers(b) ||
          a.size() != 2 || b.size() != 2)
        return opError(op, "mcast = [[y0, x0], [y1, x1]] must be two pairs of integers");
      for (int64_t y = std::min(a[0], b[0]); y <= std::max(a[0], b[0]); ++y)
        for (int64_t x = std::min(a[1], b[1]); x <= std::max(a[1], b[1]); ++x)
          if (Status s = add(y, x); !s) return s.error();
    } else {
      out.push_back(core_);
    }
    return out;
  }

  Status execSemaphore(Operation& op) {
    Expected<SemaphoreRef> sem = get<SemaphoreRef>(op, 0, "a semaphore");
    if (!sem) return sem.error();
    ir::Attribute valueAttr = op.attribute("value");
    if (!valueAttr.is(ir::AttrKind::Integer)) return opError(op, "needs value = N");
    int64_t value = valueAttr.intValue();
    if (op.isa("ttl.semaphore_wait")) {
      ir::Attribute cmp = op.attribute("cmp"), reset = op.attribute("reset");
      bool eq = cmp.is(ir::AttrKind::String) && cmp.stringValue() == "eq";
      if (!eq && !(cmp.is(ir::AttrKind::String) && cmp.stringValue() == "ge"))
        return opError(op, "ttl.semaphore_wait needs cmp = \"eq\" or \"ge\"");
      std::unique_lock<std::mutex> lock(m_.mutex);
      int64_t& s = m_.semaphore(core_, sem->create);
      auto what = [&] {
        return fmt::format("ttl.semaphore_wait {} at {} waits for the value {} {}, which stays {}",
                           name(op.operand(0)), where(op), eq ? "==" : ">=", value, s);
      };
      if (!m_.waitFor(lock, self_, what, [&] { return eq ? s == value : s >= value; }))
        return aborted();
      if (reset.is(ir::AttrKind::Integer)) {
        s = reset.intValue();
        m_.notify();
      }
      return Status::success();
    }
    Expected<std::vector<int>> targets = semaphoreTargets(op);
    if (!targets) return targets.error();
    std::unique_lock<std::mutex> lock(m_.mutex);
    for (int t : *targets) {
      int64_t& s = m_.semaphore(t, sem->create);
      s = op.isa("ttl.semaphore_set") ? value : s + value;
    }
    m_.notify();
    return Status::success();
  }

  // ---- compute ----

  Status execBinary(Operation& op) {
    const std::string& n = op.name();
    BinaryFunction f = binaryFunction(n);
    if (!f) return opError(op, fmt::format("{} is not supported", n));
    Expected<MatrixPtr> a = block(op, 0);
    if (!a) return a.error();
    Expected<MatrixPtr> b = block(op, 1);
    if (!b) return b.error();
    if ((*a)->rows != (*b)->rows || (*a)->cols != (*b)->cols)
      return opError(op, fmt::format("{} of a {} x {} and a {} x {} block", n, (*a)->rows,
                                     (*a)->cols, (*b)->rows, (*b)->cols));
    auto out = std::make_shared<Matrix>((*a)->rows, (*a)->cols);
    for (size_t i = 0; i < out->data.size(); ++i)
      out->data[i] = f((*a)->data[i], (*b)->data[i]);
    set(op.result(0), out);
    return Status::success();
  }

  Status execUnary(Operation& op) {
    UnaryFunction f = unaryFunction(op.name());
    if (!f) return opError(op, fmt::format("{} is not supported", op.name()));
    Expected<MatrixPtr> a = block(op, 0);
    if (!a) return a.error();
    auto out = std::make_shared<Matrix>((*a)->rows, (*a)->cols);
    for (size_t i = 0; i < out->data.size(); ++i)
      out->data[i] = f((*a)->data[i]);
    set(op.result(0), out);
    return Status::success();
  }

  Status execMatmul(Operation& op) {
    Expected<MatrixPtr> a = block(op, 0);
    if (!a) return a.error();
    Expected<MatrixPtr> b = block(op, 1);
    if (!b) return b.error();
    Expected<std::pair<int64_t, int64_t>> shape = blockShape(op, op.result(0)->type());
    if (!shape) return shape.error();
    const Matrix &l = **a, &r = **b;
    if (l.cols != r.rows || l.rows != shape->first || r.cols != shape->second)
      return opError(op, fmt::format("matmul of a {} x {} and a {} x {} block into {} x {}", l.rows,
                                     l.cols, r.rows, r.cols, shape->first, shape->second));
    auto out = std::make_shared<Matrix>(l.rows, r.cols);
    for (int64_t i = 0; i < l.rows; ++i)
      for (int64_t k = 0; k < l.cols; ++k) {
        double aik = l.at(i, k);
        const double* rk = &r.data[static_cast<size_t>(k * r.cols)];
        double* oi = &out->data[static_cast<size_t>(i * r.cols)];
        for (int64_t j = 0; j < r.cols; ++j)
          oi[j] += aik * rk[j];
      }
    set(op.result(0), out);
    return Status::success();
  }

  Status execFill(Operation& op) {
    Expected<std::pair<int64_t, int64_t>> shape = blockShape(op, op.result(0)->type());
    if (!shape) return shape.error();
    auto out = std::make_shared<Matrix>(shape->first, shape->second);
    std::fill(out->data.begin(), out->data.end(), op.attribute("value").floatValue());
    set(op.result(0), out);
    return Status::success();
  }

  /// Element (r, c) of the result is element (c, r) of the operand: the tile grid and each tile
  /// swap their rows and columns together.
  Status execTranspose(Operation& op) {
    Expected<MatrixPtr> in = block(op, 0);
    if (!in) return in.error();
    const Matrix& x = **in;
    auto out = std::make_shared<Matrix>(x.cols, x.rows);
    for (int64_t r = 0; r < out->rows; ++r)
      for (int64_t c = 0; c < out->cols; ++c)
        out->at(r, c) = x.at(c, r);
    set(op.result(0), out);
    return Status::success();
  }

  Status execReduceOrBcast(Operation& op) {
    ir::ReduceOrBcastOp view(&op);
    std::vector<int64_t> dims = view.dims();
    std::sort(dims.begin(), dims.end());
    bool rows = dims == std::vector<int64_t>{1}, cols = dims == std::vector<int64_t>{0},
         all = dims == std::vector<int64_t>{0, 1};
    if (!rows && !cols && !all)
      return opError(op, fmt::format("{} with dims {} is not supported (only [0], [1], [0, 1])",
                                     op.name(), op.attribute("dims").str()));
    Expected<MatrixPtr> in = block(op, 0);
    if (!in) return in.error();
    Expected<std::pair<int64_t, int64_t>> shape = blockShape(op, op.result(0)->type());
    if (!shape) return shape.error();
    const Matrix& x = **in;
    auto out = std::make_shared<Matrix>(shape->first, shape->second);
    // dims [1] keeps the rows, dims [0] the columns; [0, 1] works on element (0, 0) alone.
    if ((rows && x.rows != out->rows) || (cols && x.cols != out->cols))
      return opError(op,
                     fmt::format("{} {} of a {} x {} block into {} x {}", op.name(),
                                 op.attribute("dims").str(), x.rows, x.cols, out->rows, out->cols));
    if (view.isBroadcast()) {
      for (int64_t r = 0; r < out->rows; ++r)
        for (int64_t c = 0; c < out->cols; ++c)
          out->at(r, c) = x.at(rows ? r : 0, cols ? c : 0); // [0, 1]: element (0, 0)
      set(op.result(0), out);
      return Status::success();
    }
    bool isMax = op.isa("ttl.reduce_max");
    auto combine = [isMax](double acc, double v) { return isMax ? std::max(acc, v) : acc + v; };
    auto reduce = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
      double acc = isMax ? -INFINITY : 0.0;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c)
          acc = combine(acc, x.at(r, c));
      return acc;
    };
    if (rows)
      for (int64_t r = 0; r < x.rows; ++r)
        out->at(r, 0) = reduce(r, r + 1, 0, x.cols);
    else if (cols)
      for (int64_t c = 0; c < x.cols; ++c)
        out->at(0, c) = reduce(0, x.rows, c, c + 1);
    else
      out->at(0, 0) = reduce(0, x.rows, 0, x.cols);
    set(op.result(0), out);
    return Status::success();
  }

  Status execStore(Operation& op) {
    Expected<MatrixPtr> value = block(op, 0);
    if (!value) return value.error();
    Expected<MatrixPtr> view = block(op, 1);
    if (!view) return view.error();
    bool isReserved = std::any_of(reserved_.begin(), reserved_.end(),
                                  [&](const auto& e) { return e.second == *view; });
    if (!isReserved)
      return opError(
          op, fmt::format("ttl.store into {}, which is not a reserved view", name(op.operand(1))));
    Matrix& dst = **view;
    const Matrix& src = **value;
    if (src.rows != dst.rows || src.cols != dst.cols)
      return opError(op, fmt::format("stores a {} x {} block into a {} x {} view", src.rows,
                                     src.cols, dst.rows, dst.cols));
    if (ir::StoreOp(&op).accumulate())
      for (size_t i = 0; i < dst.data.size(); ++i)
        dst.data[i] += src.data[i];
    else
      dst.data = src.data;
    return Status::success();
  }
};

// ---- static checks before any thread starts ----------------------------------------------------

const std::set<std::string, std::less<>>& supportedOps() {
  static const std::set<std::string, std::less<>> ops = {"ttl.create_cb",
                                                         "ttl.create_semaphore",
                                                         "ttl.param_value",
                                                         "ttl.require",
                                                         "ttl.datamovement_thread",
                                                         "ttl.compute_thread",
                                                         "ttl.work_loop",
                                                         "ttl.core_x",
                                                         "ttl.core_y",
                                                         "ttl.grid_size",
                                                         "ttl.cb_reserve",
                                                         "ttl.cb_push",
                                                         "ttl.cb_wait",
                                                         "ttl.cb_pop",
                                                         "ttl.tensor_slice",
                                                         "ttl.copy",
                                                         "ttl.wait",
                                                         "ttl.dma_barrier",
                                                         "ttl.create_pipe",
                                                         "ttl.if_src",
                                                         "ttl.if_dst",
                                                         "ttl.semaphore_wait",
                                                         "ttl.semaphore_set",
                                                         "ttl.semaphore_inc",
                                                         "ttl.matmul",
                                                         "ttl.reduce_sum",
                                                         "ttl.reduce_max",
                                                         "ttl.bcast",
                                                         "ttl.fill",
                                                         "ttl.transpose",
                                                         "ttl.store",
                                                         "scf.for",
                                                         "scf.if",
                                                         "scf.yield",
                                                         "arith.constant",
                                                         "arith.addi",
                                                         "arith.subi",
                                                         "arith.muli",
                                                         "arith.divui",
                                                         "arith.remui",
                                                         "arith.divsi",
                                                         "arith.remsi",
                                                         "arith.minui",
                                                         "arith.maxui",
                                                         "arith.andi",
                                                         "arith.ori",
                                                         "arith.xori",
                                                         "arith.cmpi"};
  return ops;
}

/// The first op (in program order) the interpreter cannot run, reported before anything runs so
/// that the error is the same however the threads would have interleaved.
Status checkSupported(Operation* kernel) {
  std::optional<Error> error;
  for (auto& top : ir::KernelOp(kernel).body().operations()) {
    top->walk([&](Operation* op) {
      if (error) return;
      if (!supportsOp(op->name())) {
        error = opError(*op, fmt::format("{} is not supported", op->name()));
        return;
      }
      if (op->isa("arith.constant")) {
        ir::Attribute v = op->attribute("value");
        if (!v.is(ir::AttrKind::Integer) && !v.is(ir::AttrKind::Bool))
          error = opError(*op, "arith.constant of a non-integer is not supported");
      }
    });
    if (error) return *error;
  }
  return Status::success();
}

Status readArguments(KernelInfo& info) {
  Expected<std::vector<ArgumentInfo>> args = kernelArguments(info.kernel, info.binding);
  if (!args) return args.error();
  std::vector<Value*> values = ir::KernelOp(info.kernel).arguments();
  for (size_t i = 0; i < args->size(); ++i) {
    info.argumentIndex[values[i]] = i;
    info.arguments.push_back({(*args)[i].name, (*args)[i].shape});
  }
  return Status::success();
}

Expected<std::map<std::string, HostTensor>>
interpretUnchecked(Operation* kernel, const std::map<std::string, HostTensor>& inputs,
                   const ir::Device& device, const ReferenceOptions& options) {
  if (!kernel || !kernel->isa(ir::KernelOp::kName) || kernel->numRegions() != 1 ||
      kernel->region(0).empty())
    return Error{"reference: interpretKernel needs a ttl.kernel op"};
  KernelInfo info;
  info.kernel = kernel;
  info.binding = options.binding;
  if (Status s = checkSupported(kernel); !s) return s.error();

  // Requires at kernel scope reject the binding before anything runs.
  for (auto& op : ir::KernelOp(kernel).body().operations())
    if (op->isa(ir::RequireOp::kName)) {
      std::optional<bool> holds = ir::foldRequire(*op, info.binding);
      if (!holds) return opError(*op, "ttl.require does not fold under the binding");
      if (!*holds) return opError(*op, "ttl.require does not hold under the binding");
    }

  Expected<lower::CoresInfo> cores = lower::extractCores(kernel, info.binding, device);
  if (!cores) return cores.error();
  info.rows = cores->grid.rows;
  info.cols = cores->grid.cols;
  if (cores->autoGrid && (options.gridRows > 0 || options.gridCols > 0)) {
    if (options.gridRows < 1 || options.gridCols < 1 || options.gridRows > 1024 ||
        options.gridCols > 1024)
      return opError(*kernel, fmt::format("grid {} x {} for grid = \"auto\" is not valid",
                                          options.gridRows, options.gridCols));
    info.rows = options.gridRows;
    info.cols = options.gridCols;
  }
  if (info.rows < 1 || info.cols < 1)
    return opError(*kernel, fmt::format("empty grid {} x {}", info.rows, info.cols));
  info.workDims = cores->workDims;
  info.workItems = cores->problem ? cores->problem->items : 0;

  if (Status s = readArguments(info); !s) return s.error();
  // A tensor that is not whole tiles is held padded to them, with the value ir/Padding.h derives
  // (as the host program pads it), and cropped when the run ends.
  Expected<std::vector<ir::TensorPadding>> padding = ir::derivePadding(*kernel, info.binding);
  if (!padding) return padding.error();
  std::vector<HostTensor> tensors;
  for (const Argument& a : info.arguments) {
    HostTensor t{a.shape, {}};
    auto it = inputs.find(a.name);
    if (it == inputs.end()) {
      t.data.assign(static_cast<size_t>(elementCount(a.shape)), 0.0);
    } else {
      if (it->second.shape != a.shape ||
          static_cast<int64_t>(it->second.data.size()) != elementCount(a.shape))
        return opError(*kernel, fmt::format("input '{}' has shape [{}] with {} elements; the "
                                            "argument is [{}]",
                                            a.name, fmt::join(it->second.shape, ", "),
                                            it->second.data.size(), fmt::join(a.shape, ", ")));
      t.data = it->second.data;
    }
    tensors.push_back(std::move(t));
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ir::TensorPadding& p = (*padding)[i];
    if (!p.padded()) continue;
    double value = p.pad == ir::PadValue::NegInf ? -INFINITY : 0.0;
    HostTensor padded{{p.paddedRows, p.paddedCols},
                      std::vector<double>(static_cast<size_t>(p.paddedRows * p.paddedCols), value)};
    for (int64_t r = 0; r < p.rows; ++r)
      std::copy_n(tensors[i].data.begin() + r * p.cols, p.cols,
                  padded.data.begin() + r * p.paddedCols);
    tensors[i] = std::move(padded);
    info.arguments[i].shape = tensors[i].shape;
  }
  for (const auto& input : inputs) {
    const std::string& inputName = input.first; // not a structured binding: clang < 16 cannot
                                                // capture one in the lambda below
    if (std::none_of(info.arguments.begin(), info.arguments.end(),
                     [&](const Argument& a) { return a.name == inputName; }))
      return opError(*kernel, fmt::format("input '{}' is not an argument of @{}", inputName,
                                          ir::KernelOp(kernel).symbolName()));
  }

  for (auto& op : ir::KernelOp(kernel).body().operations())
    (ir::ThreadOp::dyn(op.get()) ? info.threads : info.kernelScope).push_back(op.get());

  size_t perCore = info.threads.size();
  size_t total = static_cast<size_t>(info.rows) * static_cast<size_t>(info.cols) * perCore;
  constexpr size_t kMaxThreads = 8192;
  if (total > kMaxThreads)
    return opError(*kernel, fmt::format("{} cores x {} threads is more than the {} threads the "
                                        "reference runs",
                                        info.rows * info.cols, perCore, kMaxThreads));
  Machine machine(info, std::move(tensors), total, options.timeLimitSeconds);
  std::vector<std::unique_ptr<ThreadRun>> runs;
  for (int y = 0; y < info.rows; ++y)
    for (int x = 0; x < info.cols; ++x)
      for (Operation* thread : info.threads) {
        size_t self = runs.size();
        machine.slots[self].label =
            fmt::format("core ({}, {}) {} at {}", x, y, thread->name(), where(*thread));
        runs.push_back(std::make_unique<ThreadRun>(machine, self, x, y, thread));
      }

  std::vector<std::thread> workers;
  workers.reserve(total);
  std::optional<Error> startError;
  for (size_t i = 0; i < total; ++i) {
    auto body = [&machine, &runs, i] {
      std::optional<Error> error;
      try {
        Status s = runs[i]->run();
        if (!s && !runs[i]->wasAborted()) error = s.error();
      } catch (const std::exception& e) {
        error = Error{fmt::format("reference: {} failed: {}", machine.slots[i].label, e.what())};
      }
      machine.finish(i, std::move(error));
    };
    try {
      workers.emplace_back(body);
    } catch (const std::exception& e) {
      // The threads already started may wait for these: end them all as failed so that the
      // started ones end too (by finishing or in a deadlock) and can be joined.
      startError =
          opError(*kernel, fmt::format("cannot start thread {} of {}: {}", i + 1, total, e.what()));
      for (size_t j = i; j < total; ++j)
        machine.finish(j, *startError);
      break;
    }
  }
  for (std::thread& w : workers)
    w.join();

  if (startError) return *startError;
  // The first failing thread in (core, thread) order: the same whatever the interleaving was.
  for (const ThreadSlot& s : machine.slots)
    if (s.error) return *s.error;
  if (machine.stopped) return Error{*machine.stopped};

  std::map<std::string, HostTensor> out;
  for (size_t i = 0; i < info.arguments.size(); ++i) {
    HostTensor& t = machine.tensors[i];
    const ir::TensorPadding& p = (*padding)[i];
    if (p.padded()) {
      HostTensor cropped{{p.rows, p.cols},
                         std::vector<double>(static_cast<size_t>(p.rows * p.cols))};
      for (int64_t r = 0; r < p.rows; ++r)
        std::copy_n(t.data.begin() + r * p.paddedCols, p.cols, cropped.data.begin() + r * p.cols);
      t = std::move(cropped);
    }
    out[info.arguments[i].name] = std::move(t);
  }
  return out;
}

} // namespace

Expected<std::vector<ArgumentInfo>> kernelArguments(ir::Operation* kernel,
                                                    const ir::Binding& binding) {
  if (!kernel || !kernel->isa(ir::KernelOp::kName) || kernel->numRegions() != 1 ||
      kernel->region(0).empty())
    return Error{"reference: kernelArguments needs a ttl.kernel op"};
  std::vector<ArgumentInfo> out;
  std::vector<Value*> args = ir::KernelOp(kernel).arguments();
  for (size_t i = 0; i < args.size(); ++i) {
    Value* v = args[i];
    ir::Type t = v->type();
    std::string argName = v->nameHint().empty() ? fmt::format("arg{}", i) : v->nameHint();
    if (!t.is(ir::TypeKind::Tensor) || t.isTileBlock() || t.shape().size() != 2)
      return opError(*kernel, fmt::format("argument %{} of type {} is not supported (only 2-D "
                                          "tensors of elements)",
                                          argName, t.str()));
    // Any layout: the reference works on the logical tensor; the layout only says where its
    // pages live.
    ir::Attribute layout = t.encoding();
    if (layout && !layout.is(ir::AttrKind::Layout))
      return opError(*kernel, fmt::format("argument %{} has layout {}, which is not supported",
                                          argName, layout.str()));
    ArgumentInfo a{argName, {}, std::nullopt};
    for (const ir::Dim& d : t.shape()) {
      std::optional<int64_t> n = ir::resolveDim(d, binding);
      if (!n || *n < 1)
        return opError(*kernel, fmt::format("argument %{} has dimension {} with no value under "
                                            "the binding",
                                            argName, d.str()));
      a.shape.push_back(*n);
    }
    if (elementCount(a.shape) < 0 || elementCount(a.shape) > (int64_t{1} << 31))
      return opError(*kernel, fmt::format("argument %{} is too large", argName));
    ir::Type element = t.elementType();
    if (element.is(ir::TypeKind::Float)) {
      switch (element.floatKind()) {
      case ir::FloatKind::BF16:
        a.dataType = ir::DataType::BF16;
        break;
      case ir::FloatKind::F16:
        a.dataType = ir::DataType::F16;
        break;
      case ir::FloatKind::F32:
        a.dataType = ir::DataType::F32;
        break;
      case ir::FloatKind::F64:
        break;
      }
    } else if (element.is(ir::TypeKind::Knob)) { // `tensor<@Mx@Kx@DTYPE>`: the bound symbol
      auto it = binding.find(element.knobName());
      if (it != binding.end() && it->second.isSymbol())
        a.dataType = ir::parseDataType(it->second.symbol());
    } else if (element.is(ir::TypeKind::Integer) && element.integerWidth() == 32) {
      a.dataType =
          element.signedness() == ir::Signedness::Unsigned ? ir::DataType::U32 : ir::DataType::I32;
    }
    out.push_back(std::move(a));
  }
  return out;
}

Expected<std::map<std::string, HostTensor>>
interpretKernel(ir::Operation* kernel, const std::map<std::string, HostTensor>& inputs,
                const ir::Device& device, const ReferenceOptions& options) {
  try {
    return interpretUnchecked(kernel, inputs, device, options);
  } catch (const std::exception& e) {
    return Error{fmt::format("reference: {}", e.what())};
  }
}

UnaryFunction unaryFunction(std::string_view op) {
  static const std::map<std::string_view, UnaryFunction> functions = {
      {"ttl.identity", [](double x) { return x; }},
      {"ttl.exp", [](double x) { return std::exp(x); }},
      {"ttl.log", [](double x) { return std::log(x); }},
      {"ttl.sqrt", [](double x) { return std::sqrt(x); }},
      {"ttl.rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"ttl.recip", [](double x) { return 1.0 / x; }},
      {"ttl.relu", [](double x) { return x > 0 ? x : 0.0; }},
      {"ttl.gelu", [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }},
      {"ttl.sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {"ttl.tanh", [](double x) { return std::tanh(x); }},
      {"ttl.neg", [](double x) { return -x; }},
      {"ttl.abs", [](double x) { return std::fabs(x); }},
      {"ttl.sin", [](double x) { return std::sin(x); }},
  };
  auto it = functions.find(op);
  return it == functions.end() ? nullptr : it->second;
}

BinaryFunction binaryFunction(std::string_view op) {
  static const std::map<std::string_view, BinaryFunction> functions = {
      {"ttl.add", [](double a, double b) { return a + b; }},
      {"ttl.sub", [](double a, double b) { return a - b; }},
      {"ttl.div", [](double a, double b) { return a / b; }},
      {"ttl.mul", [](double a, double b) { return a * b; }},
      {"ttl.max", [](double a, double b) { return std::max(a, b); }},
  };
  auto it = functions.find(op);
  return it == functions.end() ? nullptr : it->second;
}

bool supportsOp(std::string_view op) {
  return supportedOps().count(op) || unaryFunction(op) || binaryFunction(op);
}

} // namespace ttlplan::reference
