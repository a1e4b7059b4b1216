// infer-pipe-semaphores: numbers the pipes of each kernel (`ttl.pipe_id`, program order) and
// marks every copy to or from a pipe with `ttl.pipe_role = "send" | "receive"`, so that later
// passes need not re-derive the direction. The planner derives the semaphores each pipe net
// needs; this pass checks the precondition of that handshake: a send runs only on the pipe's
// source core (inside `ttl.if_src` of that pipe) and a receive only on its destinations (inside
// `ttl.if_dst`). Otherwise a core that is no sender would wait forever for receivers that never
// signal it.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"

#include <fmt/format.h>

namespace ttlplan::lower {

namespace {

/// Whether an enclosing `regionName` op of `op` has `pipe` as its operand.
bool insidePipeRegion(const ir::Operation* op, std::string_view regionName, const ir::Value* pipe) {
  for (ir::Operation* p = op->parentOp(); p; p = p->parentOp())
    if (p->isa(regionName) && p->numOperands() == 1 && p->operand(0) == pipe) return true;
  return false;
}

class InferPipeSemaphoresPass : public Pass {
public:
  bool run(PassContext& context) override {
    bool ok = true;
    for (ir::Operation* kernel : kernelsOf(context.module)) {
      int64_t next = 0;
      kernel->walk([&](ir::Operation* op) {
        if (op->isa(ir::CreatePipeOp::kName)) {
          op->setAttribute("ttl.pipe_id", ir::Attribute::integer(next++));
          statistic("pipes", "pipes numbered") += 1;
          return;
        }
        auto copy = ir::CopyOp::dyn(op);
        if (!copy || op->numOperands() != 2) return;
        auto direction = copy->direction();
        bool send = direction == ir::CopyOp::Direction::Send;
        if (!send && direction != ir::CopyOp::Direction::Receive) return;
        ir::Value* pipe = send ? copy->destination() : copy->source();
        op->setAttribute("ttl.pipe_role", ir::Attribute::string(send ? "send" : "receive"));
        statistic(send ? "sends" : "receives",
                  send ? "pipe copies marked send" : "pipe copies marked receive") += 1;
        std::string_view region = send ? "ttl.if_src" : "ttl.if_dst";
        if (insidePipeRegion(op, region, pipe)) return;
        ok = false;
        auto d = context.diagnostics.error(
            op->location(),
            fmt::format("this {} on pipe {} is not inside '{} {}': only the pipe's {} may {} "
                        "(the semaphore handshake of the other cores would never complete); "
                        "move it into '{} {} {{ ... }}'",
                        send ? "send" : "receive", valueName(pipe), region, valueName(pipe),
                        send ? "source core" : "destination cores", send ? "send" : "receive",
                        region, valueName(pipe)));
        if (ir::Operation* def = pipe->definingOp())
          d.note(def->location(), "the pipe is created here");
      });
    }
    return ok;
  }
};

} // namespace

std::unique_ptr<Pass> createInferPipeSemaphoresPass() {
  return std::make_unique<InferPipeSemaphoresPass>();
}

} // namespace ttlplan::lower
