// infer-dst: writes the planner's DST plan (context.plan, one planner::dst::Solution per chain)
// onto the IR, so that lower-compute reads it from the ops after expand-threads moved them:
//   - each op of a chain: `dst_idx = S`, the DST slot of its result;
//   - the chain's `ttl.store`: `ttl.dst_subblock = [h, w]` and `ttl.dst_inputs = [S0, S1, ...]`,
//     the slots of the chain inputs in the order of lower/passes/ComputeChain.h (-1: the input
//     takes no DST, e.g. it is read only by matmuls, reductions or broadcasts).
// Tile t (row-major in the h x w sub-block) of a value in slot S sits at DST index S*h*w + t.
// Chain inputs get their slot on the store, not on their ttl.cb_wait: one view may feed several
// chains, each with its own plan.
//
// A chain the planner split into segments is materialised here as TTL: after the last op of each
// segment but the last, every value a later segment reads goes through its intermediate CB
// (created by apply-plan, `ttl.dst_split = {chain, value}`):
//     %r = ttl.cb_reserve %split ; ttl.store %v, %r ; ttl.cb_push %split ; %w = ttl.cb_wait %split
// (reserves, stores, pushes, waits each grouped, in value order), the later segments read %w
// instead of %v, and every intermediate CB is popped right after the chain's own store. Each
// segment is then an ordinary chain (its stores carry that segment's plan; several stores of one
// segment share `ttl.dst_group = G`), so expand-threads passes the CBs to the compute func and
// lower-compute and lower-sync need nothing special.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/ApplyPlan.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/passes/ComputeChain.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"

#include <fmt/format.h>
#include <map>
#include <set>

namespace ttlplan::lower {

namespace {

using ir::Attribute;
namespace dst = planner::dst;

bool sameChain(const dst::Chain& a, const dst::Chain& b) {
  if (a.ops.size() != b.ops.size() || a.blockRows != b.blockRows || a.blockCols != b.blockCols ||
      a.results != b.results)
    return false;
  for (size_t i = 0; i < a.ops.size(); ++i)
    if (a.ops[i].name != b.ops[i].name || a.ops[i].inputs != b.ops[i].inputs ||
        a.ops[i].output != b.ops[i].output || a.ops[i].cbOperands != b.ops[i].cbOperands ||
        a.ops[i].rows != b.ops[i].rows || a.ops[i].cols != b.ops[i].cols)
      return false;
  return true;
}

Attribute intArray(const std::vector<int64_t>& values) {
  std::vector<Attribute> out;
  for (int64_t v : values)
    out.push_back(Attribute::integer(v));
  return Attribute::array(std::move(out));
}

class InferDstPass : public Pass {
public:
  bool run(PassContext& context) override {
    if (!context.plan) {
      context.diagnostics.error(ir::Location(),
                                "infer-dst needs the plan: put `plan` (and `apply-plan`) before it "
                                "in the pipeline");
      return false;
    }
    bool ok = true;
    for (ir::Operation* kernel : kernelsOf(context.module)) {
      std::string name = fmt::format("@{}", ir::KernelOp(kernel).symbolName());
      const KernelPlan* plan = nullptr;
      for (const KernelPlan& k : context.plan->kernels)
        if (k.name == name) plan = &k;
      if (!plan) {
        reportError(context, kernel,
                    fmt::format("infer-dst: the plan has no kernel {}: run `plan` again", name));
        ok = false;
        continue;
      }
      ok = annotateKernel(context, kernel, *plan) && ok;
    }
    return ok;
  }

private:
  int64_t nextGroup_ = 0; ///< the next `ttl.dst_group` id in the kernel being annotated

  bool annotateKernel(PassContext& context, ir::Operation* kernel, const KernelPlan& plan) {
    // Extract the chains again, as the planner did: this finds the ops of each chain and their
    // value numbering without keeping pointers across passes, and proves the plan still matches.
    Expected<std::vector<ChainInfo>> chains =
        extractChains(kernel, context.plan->binding.binding, context.device);
    if (!chains) {
      reportError(context, chains.error().message);
      return false;
    }
    if (chains->size() != plan.chains.size()) {
      reportError(context, kernel,
                  fmt::format("infer-dst: the kernel has {} compute chains but its plan has {}: "
                              "the IR changed after `plan`; run `plan` again",
                              chains->size(), plan.chains.size()));
      return false;
    }
    // extractChains gives one chain per store of a compute thread, in program order.
    std::vector<ir::Operation*> stores;
    kernel->walk([&](ir::Operation* op) {
      if (ir::StoreOp::dyn(op) && op->ancestor("ttl.compute_thread")) stores.push_back(op);
    });
    std::map<ir::Operation*, std::string> chainOfOp;
    // The intermediate CBs apply-plan created, by (chain, value).
    std::map<std::pair<int64_t, int64_t>, ir::Value*> splitCbs;
    for (auto& op : kernel->body().operations())
      if (op->isa(ir::CreateCBOp::kName))
        if (auto key = splitKey(op->attribute("ttl.dst_split"))) splitCbs[*key] = op->result(0);
    bool ok = true;
    nextGroup_ = 0;
    for (size_t c = 0; c < chains->size(); ++c) {
      const ChainInfo& info = (*chains)[c];
      const ChainPlan& chainPlan = plan.chains[c];
      ir::Operation* store = c < stores.size() ? stores[c] : nullptr;
      if (!sameChain(info.problem.chain, chainPlan.problem.chain) || !store ||
          info.ops.size() != info.problem.chain.ops.size()) {
        reportError(context, store ? store : kernel,
                    fmt::format("infer-dst: chain {} no longer matches its DST plan: the IR "
                                "changed after `plan`; run `plan` again",
                                info.id));
        ok = false;
        continue;
      }
      for (ir::Operation* op : info.ops) {
        auto [it, inserted] = chainOfOp.emplace(op, info.id);
        if (!inserted) {
          reportError(context, op,
                      fmt::format("{} feeds two stores ({} and {}); a compute op may feed only "
                                  "one ttl.store (its tiles live in DST for that store's chain): "
                                  "store it once and read the stored view back",
                                  op->name(), it->second, info.id));
          ok = false;
        }
      }
      if (ok)
        ok = annotateChain(context, info, chainPlan, store, static_cast<int64_t>(c), splitCbs);
    }
    return ok;
  }

  bool annotateChain(PassContext& context, const ChainInfo& info, const ChainPlan& chainPlan,
                     ir::Operation* store, int64_t chainIndex,
                     const std::map<std::pair<int64_t, int64_t>, ir::Value*>& splitCbs) {
    const dst::Chain& chain = info.problem.chain;
    const dst::Solution& solution = chainPlan.solution;
    // The planner's value id of every IR value of the chain (ops in order, operands, result).
    std::map<const ir::Value*, dst::ValueId> idOf;
    std::vector<ir::Operation*> defOf; // value id -> defining op (null for chain inputs)
    for (size_t i = 0; i < info.ops.size(); ++i) {
      const dst::Op& op = chain.ops[i];
      for (size_t k = 0; k < op.inputs.size() && k < info.ops[i]->numOperands(); ++k)
        idOf[info.ops[i]->operand(k)] = op.inputs[k];
      idOf[info.ops[i]->result(0)] = op.output;
      if (defOf.size() <= static_cast<size_t>(op.output))
        defOf.resize(static_cast<size_t>(op.output) + 1, nullptr);
      defOf[static_cast<size_t>(op.output)] = info.ops[i];
    }
    auto segmentIndexOf = [&](size_t opIndex) -> size_t {
      for (size_t s = 0; s < solution.segments.size(); ++s)
        if (opIndex >= solution.segments[s].firstOp && opIndex < solution.segments[s].endOp)
          return s;
      return solution.segments.size() - 1;
    };
    auto slot = [](const dst::Segment& s, dst::ValueId v) -> int64_t {
      return v >= 0 && static_cast<size_t>(v) < s.slots.size() ? s.slots[static_cast<size_t>(v)]
                                                               : -1;
    };
    for (size_t i = 0; i < info.ops.size(); ++i) {
      info.ops[i]->setAttribute(
          "dst_idx",
          Attribute::integer(slot(solution.segments[segmentIndexOf(i)], chain.ops[i].output)));
      statistic("ops-annotated", "compute ops given a dst_idx") += 1;
    }

    // The stores of each segment: the cut stores materialised below, and the chain's own.
    std::vector<std::vector<ir::Operation*>> segmentStores(solution.segments.size());
    segmentStores.back().push_back(store);
    if (solution.segments.size() > 1 && !materialise(context, info, solution, store, chainIndex,
                                                     splitCbs, idOf, defOf, segmentStores))
      return false;

    // Each segment's plan on its stores; its inputs in ComputeChain's order.
    ir::Operation* thread = store->ancestor("ttl.compute_thread");
    std::vector<ComputeChain> chains = findComputeChains(thread ? thread : store->parentOp());
    for (size_t s = 0; s < solution.segments.size(); ++s) {
      const dst::Segment& segment = solution.segments[s];
      const ComputeChain* found = nullptr;
      for (const ComputeChain& cc : chains)
        if (cc.store == segmentStores[s].back()) found = &cc;
      std::vector<ir::Operation*> expectOps(info.ops.begin() + static_cast<long>(segment.firstOp),
                                            info.ops.begin() + static_cast<long>(segment.endOp));
      if (!found || found->ops != expectOps || found->stores != segmentStores[s]) {
        reportError(context, store,
                    fmt::format("internal error: infer-dst: segment {} of chain {} is not one "
                                "compute chain after the split",
                                s, info.id));
        return false;
      }
      std::vector<int64_t> inputs;
      for (ir::Value* in : found->inputs) {
        auto it = idOf.find(in);
        inputs.push_back(it == idOf.end() ? -1 : slot(segment, it->second));
      }
      for (ir::Operation* st : segmentStores[s]) {
        st->setAttribute("ttl.dst_inputs", intArray(inputs));
        st->setAttribute("ttl.dst_subblock",
                         intArray({segment.subblockRows, segment.subblockCols}));
        st->removeAttribute("ttl.dst_segments");
      }
      statistic("stores-annotated", "stores given their chain's (segment's) DST plan") +=
          static_cast<int64_t>(segmentStores[s].size());
    }
    return true;
  }

  /// Routes every value that crosses a cut of a split chain through its intermediate CB (see the
  /// file comment); fills segmentStores[s] for every segment but the last.
  bool materialise(PassContext& context, const ChainInfo& info, const dst::Solution& solution,
                   ir::Operation* store, int64_t chainIndex,
                   const std::map<std::pair<int64_t, int64_t>, ir::Value*>& splitCbs,
                   std::map<const ir::Value*, dst::ValueId>& idOf,
                   const std::vector<ir::Operation*>& defOf,
                   std::vector<std::vector<ir::Operation*>>& segmentStores) {
    int64_t& nextGroup = nextGroup_; // per kernel: groups are compared within one block
    for (ir::Operation* op : info.ops)
      if (op->parentBlock() != store->parentBlock()) {
        reportError(context, op,
                    fmt::format("{} is in another block than the ttl.store at {} of its chain, "
                                "which the DST plan splits into {} segments through intermediate "
                                "CBs: a split chain must be in one block (move the op next to "
                                "the store)",
                                op->name(), store->location().str(), solution.segments.size()));
        return false;
      }
    for (const dst::IntermediateCb& ic : solution.intermediates)
      if (!splitCbs.count({chainIndex, ic.value}) ||
          static_cast<size_t>(ic.value) >= defOf.size() || !defOf[static_cast<size_t>(ic.value)]) {
        reportError(context, store,
                    fmt::format("infer-dst: chain {} needs the intermediate CB of its value {}, "
                                "which is not in the kernel: run `apply-plan` before `infer-dst`",
                                info.id, ic.value));
        return false;
      }
    for (size_t s = 0; s + 1 < solution.segments.size(); ++s) {
      const dst::Segment& segment = solution.segments[s];
      std::vector<const dst::IntermediateCb*> crossing;
      for (const dst::IntermediateCb& ic : solution.intermediates)
        if (ic.afterOp + 1 == segment.endOp) crossing.push_back(&ic);
      ir::Operation* last = info.ops[segment.endOp - 1];
      // Reserves, then stores (the chain runs at its last store: every view must be reserved
      // before it and pushed after it), then pushes, then waits.
      std::vector<ir::Value*> views, values, cbs;
      ir::OpBuilder b = ir::OpBuilder::after(last);
      for (const dst::IntermediateCb* ic : crossing) {
        ir::Operation* def = defOf[static_cast<size_t>(ic->value)];
        ir::Value* cb = splitCbs.at({chainIndex, ic->value});
        b.setLocation(def->location());
        ir::Operation* reserve =
            b.create(std::string(ir::CBReserveOp::kName), {cb}, {def->result(0)->type()});
        reserve->result(0)->setNameHint(def->result(0)->nameHint() + "_out");
        views.push_back(reserve->result(0));
        values.push_back(def->result(0));
        cbs.push_back(cb);
      }
      for (size_t k = 0; k < crossing.size(); ++k) {
        b.setLocation(defOf[static_cast<size_t>(crossing[k]->value)]->location());
        ir::Operation* cut = b.create(std::string(ir::StoreOp::kName), {values[k], views[k]});
        if (crossing.size() > 1) cut->setAttribute("ttl.dst_group", Attribute::integer(nextGroup));
        segmentStores[s].push_back(cut);
      }
      if (crossing.size() > 1) ++nextGroup;
      for (size_t k = 0; k < crossing.size(); ++k) {
        b.setLocation(defOf[static_cast<size_t>(crossing[k]->value)]->location());
        b.create(std::string(ir::CBPushOp::kName), {cbs[k]});
      }
      for (size_t k = 0; k < crossing.size(); ++k) {
        b.setLocation(defOf[static_cast<size_t>(crossing[k]->value)]->location());
        ir::Operation* wait =
            b.create(std::string(ir::CBWaitOp::kName), {cbs[k]}, {values[k]->type()});
        wait->result(0)->setNameHint(values[k]->nameHint() + "_in");
        idOf[wait->result(0)] = crossing[k]->value;
        // Later segments read the CB.
        for (size_t j = segment.endOp; j < info.ops.size(); ++j)
          for (size_t o = 0; o < info.ops[j]->numOperands(); ++o)
            if (info.ops[j]->operand(o) == values[k]) info.ops[j]->setOperand(o, wait->result(0));
      }
      statistic("cuts-materialised", "values routed through intermediate CBs") +=
          static_cast<int64_t>(crossing.size());
    }
    // Every intermediate CB is popped once the chain is done (its last reader is at or before
    // the chain's store).
    ir::OpBuilder pops = ir::OpBuilder::after(store);
    for (const dst::IntermediateCb& ic : solution.intermediates) {
      pops.setLocation(defOf[static_cast<size_t>(ic.value)]->location());
      pops.create(std::string(ir::CBPopOp::kName), {splitCbs.at({chainIndex, ic.value})});
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createInferDstPass() {
  return std::make_unique<InferDstPass>();
}

} // namespace ttlplan::lower
