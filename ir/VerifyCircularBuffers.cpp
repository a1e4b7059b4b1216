// The circular-buffer protocol. Within a thread, on every control path: cb_reserve is followed
// by cb_push and cb_wait by cb_pop, loop bodies and if branches leave every CB as they found it,
// views are not used after their block was released, stores go into reserved views, copies do not
// write into waited views, and DRAM reads into a reserved view are waited for before the push.
// Across threads: each CB has one producer thread and one consumer thread, and pushes and pops per
// work item agree where they are statically known.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/VerifierDetail.h"
#include "ttlplan/support/Checked.h"

#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>

namespace ttlplan::ir::detail {

namespace {

/// What a thread holds of one CB at a program point.
struct Held {
  Operation* reserve = nullptr; ///< the outstanding cb_reserve, if any
  Operation* wait = nullptr;    ///< the outstanding cb_wait, if any
  bool operator==(const Held& o) const { return (!reserve == !o.reserve) && (!wait == !o.wait); }
};

/// The protocol state of one thread at a program point.
struct State {
  std::map<const Value*, Held> cbs;
  std::map<const Value*, const Operation*> released; ///< view -> the push/pop that ended it
  std::map<const Value*, std::set<const Operation*>> unwaitedReads; ///< cb -> DRAM read copies
};

const Value* cbOf(const Operation& op) {
  return op.numOperands() == 1 ? op.operand(0) : nullptr;
}

// A CB op whose operand is not a CB is reported by the type checks; the protocol ignores it.
bool isCbOp(const Operation& op) {
  const Value* cb = cbOf(op);
  return cb && isKind(cb->type(), TypeKind::CircularBuffer);
}

// Checks one thread's ops in program order. Each CB is reported at most once per module, so that
// one mistake does not cascade into a diagnostic at every later use.
class ThreadChecker {
public:
  ThreadChecker(DiagnosticEngine& diags, std::set<const Value*>& reported)
      : diags_(diags), reported_(reported) {}

  void run(Operation& thread) {
    State state;
    if (Block* body = regionBlock(thread, 0)) walkBlock(*body, state);
    for (auto& [cb, held] : state.cbs) {
      if (held.reserve)
        report(cb, *held.reserve,
               fmt::format("{} is reserved but never pushed in this thread; add ttl.cb_push {} "
                           "after filling the block",
                           describe(cb), describe(cb)));
      if (held.wait)
        report(cb, *held.wait,
               fmt::format("{} is waited on but never popped in this thread; add ttl.cb_pop {} "
                           "after the last use of the block",
                           describe(cb), describe(cb)));
    }
  }

private:
  DiagnosticEngine& diags_;
  std::set<const Value*>& reported_;

  // Emits the error unless `cb` already has one; returns a builder only when emitted.
  std::optional<DiagnosticEngine::Builder> report(const Value* cb, const Operation& at,
                                                  std::string message) {
    if (!reported_.insert(cb).second) return std::nullopt;
    return diags_.error(at.location(), std::move(message));
  }

  void walkBlock(Block& block, State& state) {
    for (auto& op : block.operations())
      walkOp(*op, state);
  }

  void walkOp(Operation& op, State& state) {
    if (!hasValidCounts(op)) return;
    checkReleasedUses(op, state);
    const std::string& n = op.name();
    bool cbOp =
        n == "ttl.cb_reserve" || n == "ttl.cb_wait" || n == "ttl.cb_push" || n == "ttl.cb_pop";
    if (cbOp && !isCbOp(op)) return;
    if (n == "ttl.cb_reserve") return acquire(op, state, true);
    if (n == "ttl.cb_wait") return acquire(op, state, false);
    if (n == "ttl.cb_push") return release(op, state, true);
    if (n == "ttl.cb_pop") return release(op, state, false);
    if (n == "ttl.copy") return copy(op, state);
    if (n == "ttl.store") return store(op);
    if (n == "ttl.wait") return waitHandle(op, state);
    if (n == "ttl.dma_barrier") return state.unwaitedReads.clear();
    if (n == "scf.for" || n == "ttl.work_loop") return loop(op, state);
    if (n == "scf.if" || n == "ttl.if_src" || n == "ttl.if_dst") return branches(op, state);
    // An unknown op with regions (a scope or wrapper): its bodies run once, in order.
    if (!op.def())
      for (size_t i = 0; i < op.numRegions(); ++i)
        if (Block* b = regionBlock(op, i)) walkBlock(*b, state);
  }

  void checkReleasedUses(const Operation& op, State& state) {
    for (const Value* v : op.operands()) {
      auto it = state.released.find(v);
      if (it == state.released.end()) continue;
      const Operation* end = it->second;
      const Value* cb = cbOf(*end);
      bool push = end->isa("ttl.cb_push");
      if (auto d = report(cb, op,
                          fmt::format("view {} is used after {} was {}; use the view before ttl.{}",
                                      describe(v), describe(cb), push ? "pushed" : "popped",
                                      push ? "cb_push" : "cb_pop")))
        d->note(end->location(), push ? "the block is pushed here" : "the block is popped here");
    }
  }

  void acquire(Operation& op, State& state, bool reserve) {
    const Value* cb = cbOf(op);
    Held& held = state.cbs[cb];
    Operation*& slot = reserve ? held.reserve : held.wait;
    if (slot) {
      if (auto d = report(cb, op,
                          fmt::format("{} is {} again before the previous block was {}; add "
                                      "ttl.{} {} first",
                                      describe(cb), reserve ? "reserved" : "waited on",
                                      reserve ? "pushed" : "popped", reserve ? "cb_push" : "cb_pop",
                                      describe(cb))))
        d->note(slot->location(),
                reserve ? "the previous reserve is here" : "the previous wait is here");
    }
    slot = &op;
  }

  void release(Operation& op, State& state, bool push) {
    const Value* cb = cbOf(op);
    Held& held = state.cbs[cb];
    Operation*& slot = push ? held.reserve : held.wait;
    if (!slot) {
      report(cb, op,
             fmt::format("ttl.{} {} without a ttl.{} before it in this thread; {}",
                         push ? "cb_push" : "cb_pop", describe(cb), push ? "cb_reserve" : "cb_wait",
                         push ? "reserve a block, fill it, then push it"
                              : "wait for a block, use it, then pop it"));
      return;
    }
    if (push) checkReadsWaited(op, cb, state);
    state.released[slot->result(0)] = &op;
    slot = nullptr;
  }

  void checkReadsWaited(const Operation& push, const Value* cb, State& state) {
    auto it = state.unwaitedReads.find(cb);
    if (it == state.unwaitedReads.end() || it->second.empty()) return;
    const Operation* read = *it->second.begin();
    if (auto d = report(cb, push,
                        fmt::format("{} is pushed before the DRAM read into its block completed; "
                                    "add ttl.wait {} (or ttl.dma_barrier) before the push",
                                    describe(cb), describe(read->result(0)))))
      d->note(read->location(), "the read is issued here");
    state.unwaitedReads.erase(it);
  }

  void copy(const Operation& op, State& state) {
    const Value* dst = op.operand(1);
    if (definedBy(dst, "ttl.cb_wait")) {
      const Operation* wait = dst->definingOp();
      if (auto d = report(cbOf(*wait), op,
                          fmt::format("ttl.copy writes into {}, a view from ttl.cb_wait: that "
                                      "block belongs to the consumer; copy into a view from "
                                      "ttl.cb_reserve",
                                      describe(dst))))
        d->note(wait->location(), "the view comes from this ttl.cb_wait");
      return;
    }
    if (definedBy(op.operand(0), "ttl.tensor_slice") && definedBy(dst, "ttl.cb_reserve"))
      state.unwaitedReads[cbOf(*dst->definingOp())].insert(&op);
  }

  void store(const Operation& op) {
    const Value* view = op.operand(1);
    const Operation* def = view->definingOp();
    // A reserved view is right; a value from an unknown op is opaque.
    if (def && (def->isa("ttl.cb_reserve") || !def->def())) return;
    bool waited = def && def->isa("ttl.cb_wait");
    const Value* cb = waited ? cbOf(*def) : view;
    auto d = report(
        cb, op,
        fmt::format("ttl.store target {} must be a view from ttl.cb_reserve{}", describe(view),
                    waited ? " (a view from ttl.cb_wait is the consumer's input)" : ""));
    if (d && def) d->note(def->location(), fmt::format("{} is defined here", describe(view)));
  }

  void waitHandle(const Operation& op, State& state) {
    const Operation* copyOp = op.operand(0)->definingOp();
    for (auto& [cb, reads] : state.unwaitedReads)
      reads.erase(copyOp);
  }

  static void mergeInto(State& into, const State& from) {
    for (const auto& [view, end] : from.released)
      into.released.emplace(view, end);
    for (const auto& [cb, reads] : from.unwaitedReads)
      into.unwaitedReads[cb].insert(reads.begin(), reads.end());
  }

  void loop(Operation& op, State& state) {
    Block* body = regionBlock(op, 0);
    if (!body) return;
    State inner = state;
    walkBlock(*body, inner);
    for (auto& [cb, after] : inner.cbs) {
      Held before = state.cbs.count(cb) ? state.cbs.at(cb) : Held{};
      if (!(before == after)) reportUnbalancedLoop(op, cb, before, after);
    }
    mergeInto(state, inner);
  }

  /// The words for the two halves of the protocol, for messages.
  struct Words {
    const char* acquire;  ///< "reserve" / "wait"
    const char* acquired; ///< "reserved" / "waited on"
    const char* release;  ///< "push" / "pop"
    const char* released; ///< "pushed" / "popped"
  };

  void reportUnbalancedLoop(const Operation& loop, const Value* cb, const Held& before,
                            const Held& after) {
    bool reserveDiffers = !before.reserve != !after.reserve;
    Words w = reserveDiffers ? Words{"reserve", "reserved", "push", "pushed"}
                             : Words{"wait", "waited on", "pop", "popped"};
    Operation* inLoop = reserveDiffers ? after.reserve : after.wait;
    Operation* outside = reserveDiffers ? before.reserve : before.wait;
    // Acquired in the body but not released there, or released in the body but acquired outside.
    std::string message =
        inLoop ? fmt::format("loop body is not balanced: {} is {} in each iteration but not {}; "
                             "add ttl.cb_{} {} inside the loop",
                             describe(cb), w.acquired, w.released, w.release, describe(cb))
               : fmt::format("loop body is not balanced: {} is {} in each iteration but its {} "
                             "is outside the loop; move both into the loop or both out of it",
                             describe(cb), w.released, w.acquire);
    if (auto d = report(cb, loop, message))
      d->note((inLoop ? inLoop : outside)->location(), fmt::format("the {} is here", w.acquire));
  }

  void branches(Operation& op, State& state) {
    State first = state, second = state;
    if (Block* b = regionBlock(op, 0)) walkBlock(*b, first);
    if (Block* b = regionBlock(op, 1)) walkBlock(*b, second);
    std::set<const Value*> cbs;
    for (auto& [cb, held] : first.cbs)
      cbs.insert(cb);
    for (auto& [cb, held] : second.cbs)
      cbs.insert(cb);
    for (const Value* cb : cbs) {
      Held a = first.cbs.count(cb) ? first.cbs.at(cb) : Held{};
      Held b = second.cbs.count(cb) ? second.cbs.at(cb) : Held{};
      if (!(a == b)) reportUnbalancedBranches(op, cb, a, b);
    }
    mergeInto(first, second);
    state = first;
  }

  void reportUnbalancedBranches(const Operation& op, const Value* cb, const Held& a,
                                const Held& b) {
    Operation* at = (!a.reserve != !b.reserve) ? (a.reserve ? a.reserve : b.reserve)
                                               : (a.wait ? a.wait : b.wait);
    std::string message =
        op.isa("scf.if")
            ? fmt::format("the branches of this scf.if leave {} in different states; reserve and "
                          "push (or wait and pop) it the same way in both branches",
                          describe(cb))
            : fmt::format("this '{}' region changes the state of {}: the region runs on some "
                          "cores only; reserve/push (wait/pop) outside it or balance them inside",
                          op.name(), describe(cb));
    if (auto d = report(cb, op, message))
      d->note(at->location(), "the unmatched operation is here");
  }
};

// ---- across threads -----------------------------------------------------------------------

/// How many blocks a thread pushes (or pops): per work item and outside the work loop.
struct Count {
  int64_t outside = 0;
  int64_t perItem = 0;
  bool known = true;
  bool operator==(const Count&) const = default;
};

std::string describeCount(const Count& c) {
  if (c.outside == 0) return fmt::format("{} per work item", c.perItem);
  if (c.perItem == 0) return fmt::format("{} in total", c.outside);
  return fmt::format("{} per work item and {} outside the work loop", c.perItem, c.outside);
}

std::optional<int64_t> tripCount(const Operation& loop) {
  if (loop.numOperands() != 3) return std::nullopt;
  auto lb = evaluate(loop.operand(0), {}), ub = evaluate(loop.operand(1), {}),
       step = evaluate(loop.operand(2), {});
  if (!lb || !ub || !step) return std::nullopt;
  return ttlplan::tripCount(*lb, *ub, *step);
}

// Cap on multipliers: beyond it the count is treated as unknown rather than risking overflow.
constexpr int64_t kMaxCount = int64_t(1) << 40;

class Counter {
public:
  /// `atMost`: count an upper bound (a branch counts as its larger side, a pipe-role region as
  /// if it ran) rather than the exact number.
  Counter(const Value* cb, std::string_view name, bool atMost = false)
      : cb_(cb), name_(name), atMost_(atMost) {}

  Count count(Operation& thread) {
    Count c;
    if (Block* body = regionBlock(thread, 0)) countBlock(*body, 1, false, c);
    return c;
  }

private:
  const Value* cb_;
  std::string_view name_;
  bool atMost_;

  bool mentions(Operation& op) {
    bool found = false;
    op.walk([&](Operation* o) { found |= o->isa(name_) && cbOf(*o) == cb_; });
    return found;
  }

  void countBlock(Block& block, int64_t times, bool inItem, Count& c) {
    for (auto& op : block.operations())
      countOp(*op, times, inItem, c);
  }

  void countOp(Operation& op, int64_t times, bool inItem, Count& c) {
    if (op.isa(name_) && cbOf(op) == cb_) (inItem ? c.perItem : c.outside) += times;
    if (op.numRegions() == 0 || !mentions(op)) return;
    Block* body = regionBlock(op, 0);
    if (op.isa("scf.for") && body) {
      std::optional<int64_t> trips = tripCount(op);
      if (!trips || *trips > kMaxCount / std::max<int64_t>(times, 1))
        c.known = false;
      else
        countBlock(*body, times * *trips, inItem, c);
      return;
    }
    if (op.isa("ttl.work_loop") && body && !inItem) return countBlock(*body, times, true, c);
    // Conditional regions: known only when every path counts the same.
    if (op.isa("scf.if")) {
      Count a, b;
      if (body) countBlock(*body, times, inItem, a);
      if (Block* e = regionBlock(op, 1)) countBlock(*e, times, inItem, b);
      if (a == b && a.known) {
        c.outside += a.outside;
        c.perItem += a.perItem;
        return;
      }
      if (atMost_ && a.known && b.known) {
        c.outside += std::max(a.outside, b.outside);
        c.perItem += std::max(a.perItem, b.perItem);
        return;
      }
    }
    if (atMost_ && (op.isa("ttl.if_src") || op.isa("ttl.if_dst")) && body)
      return countBlock(*body, times, inItem, c);
    c.known = false;
  }
};

/// The threads that reserve/push and wait/pop one CB, with the first such op in each.
struct Roles {
  std::vector<std::pair<Operation*, Operation*>> producers; ///< (thread, first op)
  std::vector<std::pair<Operation*, Operation*>> consumers;
};

void addRole(std::vector<std::pair<Operation*, Operation*>>& list, Operation* thread,
             Operation* op) {
  for (auto& [t, first] : list)
    if (t == thread) return;
  list.emplace_back(thread, op);
}

std::map<const Value*, Roles> collectRoles(Operation& kernel) {
  std::map<const Value*, Roles> roles;
  for (Operation* thread : threadsOf(kernel))
    thread->walk([&](Operation* op) {
      if (!hasValidCounts(*op) || !isCbOp(*op)) return;
      CbEnd end = cbEndOf(*op);
      if (end == CbEnd::Producer) addRole(roles[cbOf(*op)].producers, thread, op);
      if (end == CbEnd::Consumer) addRole(roles[cbOf(*op)].consumers, thread, op);
    });
  return roles;
}

bool checkSingleThread(const Value* cb, const std::vector<std::pair<Operation*, Operation*>>& list,
                       bool producer, DiagnosticEngine& diags) {
  if (list.size() <= 1) return true;
  diags
      .error(list[1].second->location(),
             fmt::format("{} is {} by a second thread; a CB has exactly one {} thread",
                         describe(cb), producer ? "produced" : "consumed",
                         producer ? "producer" : "consumer"))
      .note(list[0].second->location(),
            fmt::format("the first {} thread uses it here", producer ? "producer" : "consumer"));
  return false;
}

/// The blocks `cb` holds: its depth, or 1 where the planner chooses it (the fewest it may).
int64_t slotsOf(const Value* cb) {
  const Dim& depth = cb->type().depth();
  return depth.isStatic() ? depth.value : 1;
}

void checkCounts(const Value* cb, const Roles& r, DiagnosticEngine& diags) {
  Count pushes = Counter(cb, "ttl.cb_push").count(*r.producers[0].first);
  Count pops = Counter(cb, "ttl.cb_pop").count(*r.consumers[0].first);
  if (!pushes.known || !pops.known || pushes == pops) return;
  // Blocks left in the CB when the kernel ends are harmless while they fit its slots (tt-lang's
  // test_fa_simple.py pushes a running maximum once more than it pops): the producer never
  // waits for a slot its consumer would have to free after its last pop.
  if (pushes.perItem == pops.perItem && pushes.outside > pops.outside &&
      pushes.outside - pops.outside <= slotsOf(cb))
    return;
  const Operation* at = cb->definingOp() ? cb->definingOp() : r.producers[0].second;
  diags
      .error(at->location(),
             fmt::format("pushes and pops of {} do not agree: the producer thread pushes {} but "
                         "the consumer thread pops {}",
                         describe(cb), describeCount(pushes), describeCount(pops)))
      .note(r.producers[0].second->location(), "the producer thread uses it here")
      .note(r.consumers[0].second->location(), "the consumer thread uses it here");
}

// `outside = "producer"` / "consumer": that end is a thread the file does not hold (a tt-lang
// thread planned on its own), so it must be absent here; the other end is checked as usual.
void checkOutsideEnd(const Value* cb, const Location& at, const Attribute& outside, const Roles& r,
                     DiagnosticEngine& diags) {
  std::string end = outside.is(AttrKind::String) ? outside.stringValue() : "";
  if (end != "producer" && end != "consumer")
    return (void)diags.error(at, "`outside` names the CB's end that runs elsewhere: \"producer\" "
                                 "or \"consumer\"");
  const auto& here = end == "producer" ? r.producers : r.consumers;
  const auto& other = end == "producer" ? r.consumers : r.producers;
  if (!here.empty())
    return (void)diags
        .error(at, fmt::format("{} has outside = \"{}\", but a thread here is its {}; remove "
                               "the attribute",
                               describe(cb), end, end))
        .note(here[0].second->location(), fmt::format("it is the {} here", end));
  if (other.empty())
    diags.error(at, fmt::format("circular buffer {} is never used here; remove it", describe(cb)));
  else
    checkSingleThread(cb, other, end == "consumer", diags);
}

// A CB no thread consumes is scratch space: its producer reserves blocks, fills and reads them,
// and pushes them into slots nobody drains (tt-lang's test_broadcast_2d.py keeps the tile it
// multicasts so; the spec's pipe examples receive into one and write it out). That holds while
// the pushes fit the CB's blocks; the next reserve would wait forever.
void checkScratch(const Value* cb, const Location& at, const Roles& r, DiagnosticEngine& diags) {
  if (!checkSingleThread(cb, r.producers, true, diags)) return;
  Count pushes = Counter(cb, "ttl.cb_push", /*atMost=*/true).count(*r.producers[0].first);
  const int64_t slots = slotsOf(cb);
  if (pushes.known && pushes.perItem == 0 && pushes.outside <= slots) return;
  std::string many = pushes.known ? fmt::format("pushes up to {}", describeCount(pushes))
                                  : std::string("pushes a number of blocks not known here");
  diags
      .error(at, fmt::format("{} is produced but never consumed: no thread waits on and pops "
                             "it, and its producer {}, more than its {} block{} hold (the next "
                             "reserve would wait forever)",
                             describe(cb), many, slots, slots == 1 ? "" : "s"))
      .note(r.producers[0].second->location(), "it is produced here");
}

// Producer/consumer existence and uniqueness, then the push/pop balance.
void checkCb(const Value* cb, const Operation* create, const Roles& r, DiagnosticEngine& diags) {
  Location at = create ? create->location() : cb->location();
  if (Attribute outside = create ? create->attribute("outside") : Attribute()) {
    checkOutsideEnd(cb, at, outside, r, diags);
    return;
  }
  if (r.producers.empty() && r.consumers.empty())
    return (void)diags.error(at, fmt::format("circular buffer {} is never used; remove it or "
                                             "produce and consume it",
                                             describe(cb)));
  if (r.producers.empty())
    return (void)diags
        .error(at, fmt::format("{} is consumed but never produced: no thread reserves and pushes "
                               "it",
                               describe(cb)))
        .note(r.consumers[0].second->location(), "it is consumed here");
  if (r.consumers.empty()) return checkScratch(cb, at, r, diags);
  bool single = checkSingleThread(cb, r.producers, true, diags);
  single = checkSingleThread(cb, r.consumers, false, diags) && single;
  if (single) checkCounts(cb, r, diags);
}

void checkKernel(Operation& kernel, DiagnosticEngine& diags) {
  std::set<const Value*> reported;
  for (Operation* thread : threadsOf(kernel))
    if (hasValidCounts(*thread)) ThreadChecker(diags, reported).run(*thread);
  std::map<const Value*, Roles> roles = collectRoles(kernel);
  Block* body = regionBlock(kernel, 0);
  if (!body) return;
  // CBs created in this kernel, in order; a CB with a protocol error is not checked further.
  for (auto& op : body->operations()) {
    if (!op->isa("ttl.create_cb") || !hasValidCounts(*op)) continue;
    const Value* cb = op->result(0);
    if (!reported.count(cb)) checkCb(cb, op.get(), roles[cb], diags);
  }
}

} // namespace

void verifyCircularBuffers(Module& module, DiagnosticEngine& diags) {
  for (Operation* kernel : kernelsOf(module))
    if (hasValidCounts(*kernel)) checkKernel(*kernel, diags);
}

} // namespace ttlplan::ir::detail
