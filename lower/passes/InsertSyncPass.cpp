// insert-sync: a `ttl.copy` whose handle nobody waits for gets a `ttl.wait`, so that every copy
// completes before its bytes are handed on. The wait goes before the first later op of the copy's
// block that pushes or pops the copied view's CB (the CB protocol hands the bytes to another
// thread there), or that starts another copy of the same view where one of the two writes it (a
// read into a view that is then sent must have landed first; a send must have left before the view
// is overwritten), or at the end of the block when there is none.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"

#include <set>

namespace ttlplan::lower {

namespace {

/// Whether `op` (or an op nested in it) hands on the bytes a copy moves through `view` of `cb`:
/// a push or pop of `cb`, or another copy of `view` where one of the two writes the view (a read
/// into a view that is then sent, or a send from a view that is then overwritten). Two copies
/// that only read the view may overlap.
bool handsOn(ir::Operation* op, const ir::Value* cb, const ir::Value* view,
             const ir::Operation* copy, bool copyWritesView) {
  bool found = false;
  op->walk([&](ir::Operation* inner) {
    if (found) return;
    if ((inner->isa(ir::CBPushOp::kName) || inner->isa(ir::CBPopOp::kName)) &&
        inner->numOperands() == 1 && inner->operand(0) == cb)
      found = true;
    else if (inner != copy && inner->isa(ir::CopyOp::kName) && inner->numOperands() == 2)
      found = (inner->operand(0) == view && copyWritesView) || inner->operand(1) == view;
  });
  return found;
}

class InsertSyncPass : public Pass {
public:
  bool run(PassContext& context) override {
    for (ir::Operation* kernel : kernelsOf(context.module)) {
      std::vector<ir::Operation*> copies;
      std::set<const ir::Value*> waited;
      kernel->walk([&](ir::Operation* op) {
        if (op->isa(ir::CopyOp::kName) && op->numResults() == 1 && op->numOperands() == 2)
          copies.push_back(op);
        if (op->isa(ir::WaitOp::kName) && op->numOperands() == 1) waited.insert(op->operand(0));
      });
      for (ir::Operation* op : copies) {
        ir::CopyOp copy(op);
        if (waited.count(copy.handle())) continue;
        // The view is the non-slice, non-pipe end: the destination of a read or receive, the
        // source of a write or send.
        auto direction = copy.direction();
        bool into =
            direction == ir::CopyOp::Direction::Read || direction == ir::CopyOp::Direction::Receive;
        if (direction == ir::CopyOp::Direction::Invalid) continue; // verify reports it
        ir::Value* view = into ? copy.destination() : copy.source();
        ir::Operation* acquire = view->definingOp();
        const ir::Value* cb =
            acquire && acquire->numOperands() == 1 ? acquire->operand(0) : nullptr;
        ir::Block* block = op->parentBlock();
        ir::Operation* before = nullptr;
        for (auto it = std::next(ir::iteratorOf(op)); it != block->operations().end(); ++it)
          if (handsOn(it->get(), cb, view, op, into)) {
            before = it->get();
            break;
          }
        // At the end of the block, but before its terminator (scf.yield).
        if (!before && block->back() && block->back()->isa("scf.yield")) before = block->back();
        ir::OpBuilder b = before ? ir::OpBuilder::before(before) : ir::OpBuilder::atEnd(*block);
        b.setLocation(op->location());
        b.create(std::string(ir::WaitOp::kName), {copy.handle()});
        waited.insert(copy.handle());
        statistic("waits-inserted", "ttl.wait ops inserted") += 1;
      }
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createInsertSyncPass() {
  return std::make_unique<InsertSyncPass>();
}

} // namespace ttlplan::lower
