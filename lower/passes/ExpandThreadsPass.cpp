// expand-threads: each thread of a kernel becomes a `func.func` next to it (docs/lowering.md,
// "After expand-threads"). The function takes the kernel's tensors, CBs and semaphores it uses as
// arguments; the kernel (the driver) keeps its kernel-scope ops and launches each function, so
// `cb_index` stays a driver-only fact that reaches a thread as a compile-time argument. Work loops
// become scf.for over the range the core plan gives each core, read from runtime arguments.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/ThreadRoles.h"
#include "ttlplan/lower/passes/DataMovementSupport.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"
#include "ttlplan/support/Checked.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>

namespace ttlplan::lower {

namespace {

using ir::Attribute;
using ir::Operation;
using ir::Value;

/// Values defined outside `thread` that ops inside it use, in first-use order.
std::vector<Value*> capturedValues(Operation* thread) {
  std::vector<Value*> out;
  std::set<Value*> seen;
  thread->walk([&](Operation* op) {
    for (Value* v : op->operands()) {
      Operation* def = v->definingOp();
      bool inside = def ? thread->isAncestorOf(def)
                        : (v->ownerBlock() && v->ownerBlock()->parentOp() &&
                           (v->ownerBlock()->parentOp() == thread ||
                            thread->isAncestorOf(v->ownerBlock()->parentOp())));
      if (!inside && seen.insert(v).second) out.push_back(v);
    }
  });
  return out;
}

class ExpandThreadsPass : public Pass {
public:
  bool run(PassContext& context) override {
    for (Operation* kernel : kernelsOf(context.module))
      if (!expandKernel(context, kernel)) return false;
    return true;
  }

private:
  bool expandKernel(PassContext& context, Operation* kernel) {
    auto grid = plannedGrid(kernel);
    if (!grid) {
      reportError(context, kernel,
                  fmt::format("expand-threads needs the planned grid (ttl.grid_planned = "
                              "[rows, cols], sides in [1, {}]): run `plan` and `apply-plan` "
                              "before it",
                              kMaxGridSide));
      return false;
    }
    Operation* insertAfter = kernel;
    for (const ThreadRole& role : threadRoles(kernel)) {
      Operation* func = expandThread(context, kernel, role.thread, role, *grid);
      if (!func) return false;
      std::unique_ptr<Operation> owned = context.module.body().remove(func);
      insertAfter =
          context.module.body().insert(std::next(ir::iteratorOf(insertAfter)), std::move(owned));
      statistic("threads-expanded", "threads turned into functions") += 1;
    }
    return true;
  }

  /// Builds the function of one thread (appended to the module) and replaces the thread by a
  /// `ttl.launch`; null after reporting an error.
  Operation* expandThread(PassContext& context, Operation* kernel, Operation* thread,
                          const ThreadRole& role, std::pair<int64_t, int64_t> grid) {
    std::string kernelName = kernel->attribute("sym_name").stringValue();
    std::string funcName = kernelName + "_" + role.suffix;

    // Arguments: tensors (kernel order), then CBs, then semaphores (creation order). Other
    // kernel-scope values (constants, arith on them) are cloned into the function.
    std::vector<Value*> captured = capturedValues(thread);
    std::vector<Value*> tensors, cbs, semaphores, cloned;
    for (Value* v : kernel->body().arguments())
      if (std::find(captured.begin(), captured.end(), v) != captured.end()) tensors.push_back(v);
    for (auto& op : kernel->body().operations()) {
      if (op->numResults() != 1) continue;
      Value* r = op->result(0);
      if (std::find(captured.begin(), captured.end(), r) == captured.end()) continue;
      if (op->isa(ir::CreateCBOp::kName))
        cbs.push_back(r);
      else if (op->isa("ttl.create_semaphore"))
        semaphores.push_back(r);
    }
    std::vector<Value*> arguments = tensors;
    arguments.insert(arguments.end(), cbs.begin(), cbs.end());
    arguments.insert(arguments.end(), semaphores.begin(), semaphores.end());

    auto func = Operation::create("func.func", thread->location(), {}, {},
                                  {{"sym_name", Attribute::string(funcName)}}, 1);
    ir::Block& body = func->region(0).addBlock();
    std::map<const Value*, Value*> mapping;
    for (Value* v : arguments)
      mapping[v] = body.addArgument(v->type(), v->nameHint(), v->location());

    // Clone the kernel-scope ops the thread uses that are not arguments (and their operands).
    ir::OpBuilder prologue = ir::OpBuilder::atEnd(body);
    std::function<bool(Value*)> cloneDef = [&](Value* v) -> bool {
      if (mapping.count(v)) return true;
      Operation* def = v->definingOp();
      if (!def || def->numRegions() != 0 || def->parentOp() != kernel) {
        reportError(context, thread,
                    fmt::format("expand-threads: the thread uses {} from the kernel, which is "
                                "neither a tensor, a CB, a semaphore nor a constant expression",
                                valueName(v)));
        return false;
      }
      for (Value* operand : def->operands())
        if (!cloneDef(operand)) return false;
      prologue.insert(ir::cloneOp(def, mapping));
      return true;
    };
    for (Value* v : captured)
      if (!cloneDef(v)) return nullptr;

    // Move the thread's ops into the function and point them at its arguments and clones.
    auto& ops = thread->body().operations();
    while (!ops.empty())
      body.push_back(thread->body().remove(ops.front().get()));
    body.push_back(Operation::create("func.return", thread->location()));
    std::vector<ir::Type> argTypes;
    for (Value* v : arguments)
      argTypes.push_back(v->type());
    func->setAttribute("function_type", Attribute::type(ir::Type::function(argTypes, {})));
    for (auto& [from, to] : mapping)
      ir::replaceAllUsesWith(func.get(), const_cast<Value*>(from), to);

    std::vector<Attribute> runtimeArgs;
    for (Value* t : tensors)
      runtimeArgs.push_back(Attribute::string(t->nameHint()));
    std::vector<ir::NamedAttribute> coreValues;
    if (!lowerWorkLoops(context, kernel, func.get(), grid, runtimeArgs, coreValues)) return nullptr;

    func->setAttribute("ttl.kernel", Attribute::symbolRef(kernelName));
    func->setAttribute("ttl.kernel_thread", Attribute::string(role.noc));
    func->setAttribute("ttl.runtime_args", Attribute::array(std::move(runtimeArgs)));
    func->setAttribute("ttl.core_values", Attribute::dictionary(std::move(coreValues)));

    // The driver launches the function with the same values.
    ir::OpBuilder launch = ir::OpBuilder::before(thread);
    launch.create("ttl.launch", arguments, {},
                  {{"callee", Attribute::symbolRef(funcName)},
                   {"ttl.kernel_thread", Attribute::string(role.noc)}});
    ir::eraseOp(thread);
    return context.module.body().push_back(std::move(func));
  }

  /// Replaces each `ttl.work_loop` of `func` by an scf.for over [work_start, work_start +
  /// work_count), two runtime args whose per-core values come from the kernel's work ranges.
  bool lowerWorkLoops(PassContext& context, Operation* kernel, Operation* func,
                      std::pair<int64_t, int64_t> grid, std::vector<Attribute>& runtimeArgs,
                      std::vector<ir::NamedAttribute>& coreValues) {
    std::vector<Operation*> loops;
    func->walk([&](Operation* op) {
      if (op->isa(ir::WorkLoopOp::kName)) loops.push_back(op);
    });
    if (loops.empty()) return true;
    std::vector<int64_t> dims;
    Attribute work = kernel->attribute("work");
    if (!work || !work.getIntegers(dims) || dims.empty()) {
      reportError(context, loops.front(),
                  "ttl.work_loop needs the kernel's `work` dims as integers after apply-plan");
      return false;
    }
    if (std::ranges::any_of(dims, [](int64_t d) { return d <= 0; }) || !checkedProduct(dims)) {
      reportError(context, loops.front(),
                  fmt::format("the kernel's work {} has a dimension below 1 or more items than "
                              "fit in 64 bits",
                              work.str()));
      return false;
    }
    Attribute ranges = kernel->attribute("ttl.work_ranges");
    std::vector<Attribute> starts(static_cast<size_t>(grid.first * grid.second),
                                  Attribute::integer(0));
    std::vector<Attribute> counts = starts;
    if (ranges && ranges.is(ir::AttrKind::Array))
      for (const Attribute& r : ranges.elements()) {
        std::vector<int64_t> v; // [x, y, start, count]
        if (!r.getIntegers(v) || v.size() != 4 || v[0] < 0 || v[1] < 0 || v[0] >= grid.second ||
            v[1] >= grid.first)
          continue;
        size_t core = static_cast<size_t>(v[1] * grid.second + v[0]);
        starts[core] = Attribute::integer(v[2]);
        counts[core] = Attribute::integer(v[3]);
      }
    int64_t startIndex = static_cast<int64_t>(runtimeArgs.size());
    runtimeArgs.push_back(Attribute::string("work_start"));
    runtimeArgs.push_back(Attribute::string("work_count"));
    coreValues.push_back({"work_start", Attribute::array(std::move(starts))});
    coreValues.push_back({"work_count", Attribute::array(std::move(counts))});

    ir::Block& body = func->body();
    ir::OpBuilder prologue = body.empty() ? ir::OpBuilder::atEnd(body)
                                          : ir::OpBuilder::before(body.operations().front().get());
    prologue.setLocation(loops.front()->location());
    Value* first = prologue.call("get_arg_val", {prologue.constant(startIndex)}, ir::Type::index(),
                                 {}, "work_start");
    Value* count = prologue.call("get_arg_val", {prologue.constant(startIndex + 1)},
                                 ir::Type::index(), {}, "work_count");
    Value* end = prologue.arith("addi", first, count, "work_end");
    for (Operation* loop : loops) {
      ir::OpBuilder b = ir::OpBuilder::before(loop);
      Operation* forOp = b.forLoop(first, end, b.constant(1), "w");
      Value* item = forOp->body().argument(0);
      ir::OpBuilder inner = ir::OpBuilder::bodyBuilder(forOp);
      // Row-major: the last dim varies fastest, as the planner numbers items.
      std::vector<Value*> ivs = ir::WorkLoopOp(loop).inductionVars();
      int64_t stride = 1;
      std::vector<Value*> indices(ivs.size());
      for (size_t d = ivs.size(); d-- > 0;) {
        Value* q = stride == 1 ? item : inner.arith("divui", item, inner.constant(stride));
        indices[d] = d == 0 ? q : inner.arith("remui", q, inner.constant(dims[d]));
        indices[d]->setNameHint(ivs[d]->nameHint());
        stride *= dims[d];
      }
      for (size_t d = 0; d < ivs.size(); ++d)
        ir::replaceAllUsesWith(func, ivs[d], indices[d]);
      auto& loopOps = loop->body().operations();
      ir::Operation* yield = forOp->body().back();
      while (!loopOps.empty()) {
        std::unique_ptr<Operation> op = loop->body().remove(loopOps.front().get());
        forOp->body().insert(ir::iteratorOf(yield), std::move(op));
      }
      ir::eraseOp(loop);
      statistic("work-loops", "work loops lowered to runtime ranges") += 1;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createExpandThreadsPass() {
  return std::make_unique<ExpandThreadsPass>();
}

} // namespace ttlplan::lower
