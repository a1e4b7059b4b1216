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
    if (n == "ttl.semaphore_set" && (core || mcast)) {
      reportError(context, op,
                  "ttl.semaphore_set on another core (core = ... or mcast = ...) is not supported "
                  "yet: it needs a scratch L1 word to send from. Signal with ttl.semaphore_inc "
                  "{core = [y, x]} instead, or move the data through a pipe");
      return false;
    }
    if (n == "ttl.semaphore_inc" && (!core || mcast)) {
      reportError(context, op,
                  "ttl.semaphore_inc is supported with one target core only: write core = [y, x] "
                  "(the running core's own NoC coordinates are not known in the kernel)");
      return false;
    }
    std::optional<int64_t> id = semaphoreId(context, func, kernel, op);
    if (!id) return false;
    OpBuilder b = OpBuilder::before(op);
    Value* addr = b.call("get_semaphore", {b.constant(*id)}, Type::index(), {}, "sem_addr");
    if (n == "ttl.semaphore_inc") {
      std::vector<int64_t> yx;
      if (!core.getIntegers(yx) || yx.size() != 2 || yx[0] < 0 || yx[1] < 0 ||
          (grid && (yx[0] >= grid->first || yx[1] >= grid->second))) {
        reportError(context, op,
                    fmt::format("core = {} must be [y, x] inside the {} grid", core.str(),
                                grid ? fmt::format("{} x {}", grid->first, grid->second)
                                     : std::string("planned")));
        return false;
      }
      // The target's NoC coordinates come from the host (worker_core_from_logical_core of its
      // logical x and y, RuntimeArgs::markNocCoordinate), never from a device table.
      RuntimeArgs args = RuntimeArgs::load(func);
      const int64_t cores = grid ? grid->first * grid->second : 1;
      std::string name = fmt::format("sem{}_inc", *id);
      while (args.contains(name + ".noc_x"))
        name += "_";
      const int64_t xArg = args.append(name + ".noc_x", std::vector<int64_t>(cores, yx[1]));
      const int64_t yArg = args.append(name + ".noc_y", std::vector<int64_t>(cores, yx[0]));
      args.markNocCoordinate(name + ".noc_x", 'x');
      args.markNocCoordinate(name + ".noc_y", 'y');
      args.store(func);
      Value* target =
          b.call("get_noc_addr",
                 {getArgVal(b, xArg, name + ".noc_x"), getArgVal(b, yArg, name + ".noc_y"), addr},
                 Type::integer(64), {}, "sem_noc_addr");
      b.call("noc_semaphore_inc", {target, b.constant(value.intValue())});
    } else {
      Value* ptr = b.call("l1_ptr", {addr}, Type::opaque("!ttkernel.l1_ptr"), {}, "sem_ptr");
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
};

} // namespace

std::unique_ptr<Pass> createLowerSyncPass() {
  return std::make_unique<LowerSyncPass>();
}

} // namespace ttlplan::lower
