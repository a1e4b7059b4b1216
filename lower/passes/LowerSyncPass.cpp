// lower-sync: the last pass. In every thread function, the CB protocol (`ttl.cb_reserve/push/
// wait/pop` -> cb_reserve_back / cb_push_back / cb_wait_front / cb_pop_front with the tiles of one
// block), the remaining `ttl.wait` and `ttl.dma_barrier` (NoC barriers), core coordinates
// (get_absolute_logical_x/y), `ttl.grid_size` (a constant of the planned grid) and the user's
// semaphore ops become `ttkernel.*` calls. Afterwards no `ttl.*` op may remain in a thread
// function: one that does was missed by an earlier pass, and is reported as that bug.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/passes/DataMovementSupport.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"
#include "ttlplan/support/Checked.h"

#include <array>
#include <fmt/format.h>
#include <map>

namespace ttlplan::lower {

namespace {

using ir::Attribute;
using ir::OpBuilder;
using ir::Operation;
using ir::Type;
using ir::Value;

class LowerSyncPass : public Pass {
public:
  bool run(PassContext& context) override {
    bool ok = true;
    for (Operation* func : threadFunctions(context.module, false))
      ok = lowerFunction(context, func) && ok;
    if (!ok) return false;
    for (Operation* func : threadFunctions(context.module, false))
      func->walk([&](Operation* op) {
        if (op == func || op->dialect() != "ttl") return;
        ok = false;
        reportError(context, op,
                    fmt::format("'{}' is left in thread function @{} after lower-sync: an earlier "
                                "pass (lower-compute or lower-data-movement) did not lower it; "
                                "this is a bug in ttlplan",
                                op->name(), func->attribute("sym_name").stringValue()));
      });
    return ok;
  }

private:
  bool lowerFunction(PassContext& context, Operation* func) {
    Operation* kernel = kernelOfFunction(context.module, func);
    auto grid = plannedGrid(kernel);
    std::vector<Operation*> ops;
    func->walk([&](Operation* op) {
      if (op != func && op->dialect() == "ttl") ops.push_back(op);
    });
    bool ok = true;
    for (Operation* op : ops) {
      const std::string& n = op->name();
      if (n == ir::CBReserveOp::kName || n == ir::CBPushOp::kName || n == ir::CBWaitOp::kName ||
          n == ir::CBPopOp::kName)
        ok = lowerCbOp(context, func, op) && ok;
      else if (n == ir::WaitOp::kName)
        ok = lowerWait(context, op) && ok;
      else if (n == "ttl.dma_barrier") {
        OpBuilder b = OpBuilder::before(op);
        b.call("noc_async_read_barrier", {});
        b.call("noc_async_write_barrier", {});
        ir::eraseOp(op);
      } else if (n == "ttl.core_x" || n == "ttl.core_y") {
        OpBuilder b = OpBuilder::before(op);
        Value* v = b.call(n == "ttl.core_x" ? "get_absolute_logical_x" : "get_absolute_logical_y",
                          {}, Type::index(), {}, op->result(0)->nameHint());
        replace(func, op, v);
        statistic("core-coordinates", "core coordinates lowered") += 1;
      } else if (n == "ttl.grid_size") {
        Attribute dim = op->attribute("dim");
        if (!grid || !dim.is(ir::AttrKind::Integer) || dim.intValue() < 0 || dim.intValue() > 1) {
          ok = false;
          reportError(context, op,
                      !grid ? "ttl.grid_size needs the kernel's ttl.grid_planned: run "
                              "`apply-plan` first"
                            : "ttl.grid_size needs dim = 0 (rows) or dim = 1 (columns)");
          continue;
        }
        OpBuilder b = OpBuilder::before(op);
        Value* v = b.constant(dim.intValue() == 0 ? grid->first : grid->second, Type::index(),
                              op->result(0)->nameHint());
        replace(func, op, v);
      } else if (n == "ttl.semaphore_wait" || n == "ttl.semaphore_set" || n == "ttl.semaphore_inc")
        ok = lowerSemaphoreOp(context, func, kernel, grid, op) && ok;
    }
    return ok;
  }

  void replace(Operation* func, Operation* op, Value* with) {
    ir::replaceAllUsesWith(func, op->result(0), with);
    ir::eraseOp(op);
  }

  /// Tiles of one block of the CB `cb` (the product of its block shape), or nullopt when a
  /// dimension is not a number or the block is larger than extraction allows.
  static std::optional<int64_t> blockTiles(const Value* cb) {
    Type t = cb->type();
    if (!t.is(ir::TypeKind::CircularBuffer)) return std::nullopt;
    std::vector<int64_t> dims;
    for (const ir::Dim& d : t.shape()) {
      if (!d.isStatic()) return std::nullopt;
      dims.push_back(d.value);
    }
    return checkedProduct(dims, lower::kMaxCbBytes);
  }

  bool lowerCbOp(PassContext& context, Operation* func, Operation* op) {
    Value* cb = op->operand(0);
    std::optional<int64_t> tiles = blockTiles(cb);
    if (!tiles) {
      reportError(context, op,
                  fmt::format("the block shape of {} is not known or too large ({}): run "
                              "`apply-plan` first",
                              valueName(cb), cb->type().str()));
      return false;
    }
    if (op->numResults() == 1 && ir::hasUses(func, op->result(0))) {
      reportError(context, op,
                  fmt::format("the view {} is still used after lowering (by a ttl op an earlier "
                              "pass did not lower): a bug in ttlplan",
                              valueName(op->result(0))));
      return false;
    }
    static const std::map<std::string, std::string> calls = {{"ttl.cb_reserve", "cb_reserve_back"},
                                                             {"ttl.cb_push", "cb_push_back"},
                                                             {"ttl.cb_wait", "cb_wait_front"},
                                                             {"ttl.cb_pop", "cb_pop_front"}};
    OpBuilder b = OpBuilder::before(op);
    b.call(calls.at(op->name()), {cb, b.constant(*tiles)});
    ir::eraseOp(op);
    statistic("cb-ops", "CB protocol ops lowered") += 1;
    return true;
  }

  bool lowerWait(PassContext& context, Operation* op) {
    Type t = op->operand(0)->type();
    if (!t.is(ir::TypeKind::TransferHandle)) {
      reportError(context, op, "ttl.wait needs a transfer handle");
      return false;
    }
    if (ir::Operation* def = op->operand(0)->definingOp(); def && def->isa(ir::CopyOp::kName)) {
      // Its copy is still here: lower-data-movement did not run (it lowers copies and their
      // waits together, since a pipe copy's wait depends on the direction).
      reportError(context, op,
                  "this ttl.wait's copy was not lowered: run `lower-data-movement` before "
                  "`lower-sync`");
      return false;
    }
    OpBuilder b = OpBuilder::before(op);
    b.call(t.transferKind() == ir::TransferKind::Read ? "noc_async_read_barrier"
                                                      : "noc_async_write_barrier",
           {});
    ir::eraseOp(op);
    return true;
  }

  // ---- user semaphores ----------------------------------------------------------------------

  /// The id of the kernel's semaphore that `value` (a function argument) stands for. User
  /// semaphores take the ids after the planner's pipe semaphores (`ttl.semaphore_count`), in
  /// creation order; the id is written on the create_semaphore as `ttl.semaphore_id` so that the
  /// host creates them in that order.
  std::optional<int64_t> semaphoreId(PassContext& context, Operation* func, Operation* kernel,
                                     Operation* op) {
    Value* value = op->operand(0);
    Operation* create = nullptr;
    if (kernel && value->isBlockArgument() && value->ownerBlock() == &func->body()) {
      std::string callee = func->attribute("sym_name").stringValue();
      kernel->walk([&](Operation* launch) {
        if (create || !launch->isa("ttl.launch")) return;
        Attribute c = launch->attribute("callee");
        if (c.stringValue() != callee || value->index() >= launch->numOperands()) return;
        create = launch->operand(value->index())->definingOp();
      });
    } else if (value->definingOp()) {
      create = value->definingOp();
    }
    if (!kernel || !create || !create->isa(ir::CreateSemaphoreOp::kName)) {
      reportError(context, op,
                  "cannot find the ttl.create_semaphore of this semaphore (through the "
                  "ttl.launch of its thread function)");
      return std::nullopt;
    }
    if (Attribute id = create->attribute("ttl.semaphore_id"); id.is(ir::AttrKind::Integer))
      return id.intValue();
    int64_t pipeIds = 0;
    if (Attribute count = kernel->attribute("ttl.semaphore_count"); count.is(ir::AttrKind::Integer))
      pipeIds = count.intValue();
    int64_t next = pipeIds;
    // Number every semaphore of the kernel at once, so the ids do not depend on which thread
    // function is lowered first.
    for (auto& other : kernel->body().operations())
      if (other->isa(ir::CreateSemaphoreOp::kName) && !other->hasAttribute("ttl.semaphore_id"))
        other->setAttribute("ttl.semaphore_id", Attribute::integer(next++));
    int64_t id = create->attribute("ttl.semaphore_id").intValue();
    if (id >= context.device.kernel.semaphoresPerCore) {
      reportError(context, create,
                  fmt::format("semaphore id {} is beyond the {} semaphores per core of {} (the "
                              "pipes use {}): use fewer semaphores or pipes",
                              id, context.device.kernel.semaphoresPerCore, context.device.name,
                              pipeIds));
      return std::nullopt;
    }
    return id;
  }

  bool lowerSemaphoreOp(PassContext& context, Operation* func, Operation* kernel,
                        std::optional<std::pair<int64_t, int64_t>> grid, Operation* op) {
    const std::string& n = op->name();
    Attribute value = op->attribute("value");
    if (!value.is(ir::AttrKind::Integer) || value.intValue() < 0) {
      reportError(context, op, fmt::format("'{}' needs value = N (N >= 0)", n));
      return false;
    }
    Attribute core = op->attribute("core"), mcast = op->attribute("mcast");
    if (n == "ttl.semaphore_inc" && (!core || mcast)) {
      reportError(context, op,
                  "ttl.semaphore_inc is supported with one target core only: write core = [y, x] "
                  "(the running core's own NoC coordinates are not known in the kernel)");
      return false;
    }
    if (core && mcast) {
      reportError(
          context, op,
          fmt::format("'{}' takes core = [y, x] or mcast = [[y0, x0], [y1, x1]], not both", n));
      return false;
    }
    std::optional<int64_t> id = semaphoreId(context, func, kernel, op);
    if (!id) return false;
    OpBuilder b = OpBuilder::before(op);
    Value* addr = b.call("get_semaphore", {b.constant(*id)}, Type::index(), {}, "sem_addr");
    if (n == "ttl.semaphore_set" && (core || mcast)) {
      if (!lowerRemoteSet(context, func, kernel, grid, op, b, *id, addr)) return false;
    } else if (n == "ttl.semaphore_inc") {
      std::optional<std::array<int64_t, 2>> yx = targetCore(context, grid, op);
      if (!yx) return false;
      Value* target = remoteAddr(b, func, grid, fmt::format("sem{}_inc", *id), *yx, addr);
      b.call("noc_semaphore_inc", {target, b.constant(value.intValue())});
    } else {
      Value* ptr = b.call("l1_ptr", {addr}, l1PtrType(), {}, "sem_ptr");
      if (n == "ttl.semaphore_set") {
        b.call("noc_semaphore_set", {ptr, b.constant(value.intValue())});
      } else {
        Attribute cmp = op->attribute("cmp");
        bool ge = cmp.is(ir::AttrKind::String) && cmp.stringValue() == "ge";
        b.call(ge ? "noc_semaphore_wait_min" : "noc_semaphore_wait",
               {ptr, b.constant(value.intValue())});
        // Not atomic with the wait (as on hardware): an increment that lands in between is lost.
        if (Attribute reset = op->attribute("reset"); reset.is(ir::AttrKind::Integer))
          b.call("noc_semaphore_set", {ptr, b.constant(reset.intValue())});
      }
    }
    ir::eraseOp(op);
    statistic("semaphore-ops", "user semaphore ops lowered") += 1;
    return true;
  }

  /// `core = [y, x]` of a semaphore op, checked against the grid.
  std::optional<std::array<int64_t, 2>>
  targetCore(PassContext& context, std::optional<std::pair<int64_t, int64_t>> grid, Operation* op) {
    Attribute core = op->attribute("core");
    std::vector<int64_t> yx;
    if (!core.getIntegers(yx) || yx.size() != 2 || yx[0] < 0 || yx[1] < 0 ||
        (grid && (yx[0] >= grid->first || yx[1] >= grid->second))) {
      reportError(context, op,
                  fmt::format("core = {} must be [y, x] inside the {} grid", core.str(),
                              grid ? fmt::format("{} x {}", grid->first, grid->second)
                                   : std::string("planned")));
      return std::nullopt;
    }
    return std::array<int64_t, 2>{yx[0], yx[1]};
  }

  /// A runtime argument of `func` with one value per core (`name` made unique).
  static Value* perCoreArg(OpBuilder& b, Operation* func, std::string name,
                           std::vector<int64_t> values, char nocAxis = 0) {
    RuntimeArgs args = RuntimeArgs::load(func);
    std::string unique = name;
    while (args.contains(unique))
      unique += "_";
    const int64_t index = args.append(unique, std::move(values));
    if (nocAxis) args.markNocCoordinate(unique, nocAxis);
    args.store(func);
    return getArgVal(b, index, unique);
  }

  /// The NoC address of `addr` on logical core `yx`. The target's NoC coordinates come from the
  /// host (worker_core_from_logical_core of its logical x and y, RuntimeArgs::markNocCoordinate),
  /// never from a device table.
  static Value* remoteAddr(OpBuilder& b, Operation* func,
                           std::optional<std::pair<int64_t, int64_t>> grid, const std::string& name,
                           std::array<int64_t, 2> yx, Value* addr) {
    const size_t cores = static_cast<size_t>(grid ? grid->first * grid->second : 1);
    Value* x = perCoreArg(b, func, name + ".noc_x", std::vector<int64_t>(cores, yx[1]), 'x');
    Value* y = perCoreArg(b, func, name + ".noc_y", std::vector<int64_t>(cores, yx[0]), 'y');
    return b.call("get_noc_addr", {x, y, addr}, Type::integer(64), {}, "sem_noc_addr");
  }

  /// `ttl.semaphore_set {core = [y, x]}` or `{mcast = [[y0, x0], [y1, x1]]}`: the value goes out
  /// from a semaphore of the thread function's own (`ttl.scratch_semaphore`, taken on first use),
  /// and the write barrier keeps that word until the NoC has read it. A multicast skips the sender
  /// (the plain variant), so a sender inside the rectangle sets its own semaphore locally, as a set
  /// of every node of the rectangle means (reference/Interpret.cpp, semaphoreTargets).
  bool lowerRemoteSet(PassContext& context, Operation* func, Operation* kernel,
                      std::optional<std::pair<int64_t, int64_t>> grid, Operation* op, OpBuilder& b,
                      int64_t id, Value* addr) {
    const int64_t value = op->attribute("value").intValue();
    // Two threads of a core may set at once: each thread function sends from its own word.
    Attribute scratch = func->attribute("ttl.scratch_semaphore");
    if (!scratch.is(ir::AttrKind::Integer)) {
      std::optional<int64_t> taken =
          takeSemaphoreId(context, *kernel, op, "ttl.semaphore_set on another core");
      if (!taken) return false;
      scratch = Attribute::integer(*taken);
      func->setAttribute("ttl.scratch_semaphore", scratch);
    }
    Value* source = b.call("get_semaphore", {b.constant(scratch.intValue())}, Type::index(), {},
                           "sem_value_word");
    Value* sourcePtr = b.call("l1_ptr", {source}, l1PtrType(), {}, "value_ptr");
    b.call("noc_semaphore_set", {sourcePtr, b.constant(value)});
    const std::string name = fmt::format("sem{}_set", id);
    if (op->attribute("core")) {
      std::optional<std::array<int64_t, 2>> yx = targetCore(context, grid, op);
      if (!yx) return false;
      b.call("noc_semaphore_set_remote", {source, remoteAddr(b, func, grid, name, *yx, addr)});
    } else if (!lowerSetMulticast(context, func, grid, op, b, addr, source, name, value)) {
      return false;
    }
    b.call("noc_async_write_barrier", {});
    return true;
  }

  bool lowerSetMulticast(PassContext& context, Operation* func,
                         std::optional<std::pair<int64_t, int64_t>> grid, Operation* op,
                         OpBuilder& b, Value* addr, Value* source, const std::string& name,
                         int64_t value) {
    Attribute mcast = op->attribute("mcast");
    std::vector<int64_t> flat;
    bool shaped = mcast.is(ir::AttrKind::Array) && mcast.elements().size() == 2;
    for (size_t i = 0; shaped && i < 2; ++i) {
      std::vector<int64_t> yx;
      shaped = mcast.elements()[i].getIntegers(yx) && yx.size() == 2;
      flat.insert(flat.end(), yx.begin(), yx.end());
    }
    if (!grid || !shaped || flat[0] < 0 || flat[1] < 0 || flat[0] > flat[2] || flat[1] > flat[3] ||
        flat[2] >= grid->first || flat[3] >= grid->second) {
      reportError(context, op,
                  fmt::format("mcast = {} must be [[y0, x0], [y1, x1]] with y0 <= y1 and x0 <= "
                              "x1 inside the {} grid",
                              mcast.str(),
                              grid ? fmt::format("{} x {}", grid->first, grid->second)
                                   : std::string("planned")));
      return false;
    }
    const int64_t y0 = flat[0], x0 = flat[1], y1 = flat[2], x1 = flat[3];
    // NOC1 routes -x/-y: its multicast starts at the far corner (docs/hardware-facts.md).
    Attribute thread = func->attribute("ttl.kernel_thread");
    const bool noc1 = thread.is(ir::AttrKind::String) && thread.stringValue() == "noc1";
    const size_t cores = static_cast<size_t>(grid->first * grid->second);
    std::vector<int64_t> dests(cores), inside(cores);
    for (int64_t y = 0; y < grid->first; ++y)
      for (int64_t x = 0; x < grid->second; ++x) {
        const bool in = y >= y0 && y <= y1 && x >= x0 && x <= x1;
        inside[static_cast<size_t>(y * grid->second + x)] = in;
        dests[static_cast<size_t>(y * grid->second + x)] = (y1 - y0 + 1) * (x1 - x0 + 1) - in;
      }
    auto coord = [&](const char* what, int64_t v, char axis) {
      return perCoreArg(b, func, name + "." + what, std::vector<int64_t>(cores, v), axis);
    };
    Value* sx = coord("start_x", noc1 ? x1 : x0, 'x');
    Value* sy = coord("start_y", noc1 ? y1 : y0, 'y');
    Value* ex = coord("end_x", noc1 ? x0 : x1, 'x');
    Value* ey = coord("end_y", noc1 ? y0 : y1, 'y');
    Value* numDests = perCoreArg(b, func, name + ".num_dests", dests);
    Value* target = b.call("get_noc_multicast_addr", {sx, sy, ex, ey, addr}, Type::integer(64), {},
                           "sem_mcast_addr");
    Operation* any = b.ifOp(isNonZero(b, numDests), false);
    OpBuilder send = OpBuilder::bodyBuilder(any);
    send.setLocation(b.location());
    send.call("noc_semaphore_set_multicast", {source, target, numDests});
    Value* self = perCoreArg(b, func, name + ".self_inside", inside);
    Operation* own = b.ifOp(isNonZero(b, self), false);
    OpBuilder local = OpBuilder::bodyBuilder(own);
    local.setLocation(b.location());
    Value* ptr = local.call("l1_ptr", {addr}, l1PtrType(), {}, "sem_ptr");
    local.call("noc_semaphore_set", {ptr, local.constant(value)});
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createLowerSyncPass() {
  return std::make_unique<LowerSyncPass>();
}

} // namespace ttlplan::lower
