// infer-dst: writes the planner's DST plan (context.plan, one planner::dst::Solution per chain)
// onto the IR, so that lower-compute reads it from the ops after expand-threads moved them:
//   - each op of a chain: `dst_idx = S`, the DST slot of its result;
//   - the chain's `ttl.store`: `ttl.dst_subblock = [h, w]` and `ttl.dst_inputs = [S0, S1, ...]`,
//     the slots of the chain inputs in the order of lower/passes/ComputeChain.h (-1: the input
//     takes no DST, e.g. it is read only by matmuls).
// Tile t (row-major in the h x w sub-block) of a value in slot S sits at DST index S*h*w + t.
// Chain inputs get their slot on the store, not on their ttl.cb_wait: one view may feed several
// chains, each with its own plan.
// A chain the planner split into segments (intermediate CBs) gets `ttl.dst_segments = [[first,
// end, h, w], ...]` on its store and per-op slots of the op's segment, but no ttl.dst_subblock:
// lower-compute does not lower split chains yet and says so.
#include "ir/Ops.h"
#include "lower/Extract.h"
#include "lower/passes/PassUtil.h"
#include "lower/passes/Passes.h"

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
        a.ops[i].output != b.ops[i].output || a.ops[i].matmul != b.ops[i].matmul)
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
    bool ok = true;
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
      if (ok) annotateChain(info, chainPlan, store);
    }
    return ok;
  }

  void annotateChain(const ChainInfo& info, const ChainPlan& chainPlan, ir::Operation* store) {
    const dst::Chain& chain = info.problem.chain;
    const dst::Solution& solution = chainPlan.solution;
    // Value ids that an op of the chain computes; the others are chain inputs.
    std::set<dst::ValueId> computed;
    for (const dst::Op& op : chain.ops)
      computed.insert(op.output);
    auto segmentOf = [&](size_t opIndex) -> const dst::Segment& {
      for (const dst::Segment& s : solution.segments)
        if (opIndex >= s.firstOp && opIndex < s.endOp) return s;
      return solution.segments.back();
    };
    auto slot = [](const dst::Segment& s, dst::ValueId v) -> int64_t {
      return v >= 0 && static_cast<size_t>(v) < s.slots.size() ? s.slots[static_cast<size_t>(v)]
                                                               : -1;
    };
    for (size_t i = 0; i < info.ops.size(); ++i) {
      info.ops[i]->setAttribute("dst_idx",
                                Attribute::integer(slot(segmentOf(i), chain.ops[i].output)));
      statistic("ops-annotated", "compute ops given a dst_idx") += 1;
    }
    // Chain inputs in id order (ids are given in first-appearance order), with the slot of the
    // segment that first reads them.
    std::map<dst::ValueId, int64_t> inputSlots;
    for (size_t i = 0; i < chain.ops.size(); ++i)
      for (dst::ValueId v : chain.ops[i].inputs)
        if (!computed.count(v) && !inputSlots.count(v)) inputSlots[v] = slot(segmentOf(i), v);
    std::vector<int64_t> inputs;
    for (const auto& [v, s] : inputSlots)
      inputs.push_back(s);
    store->setAttribute("ttl.dst_inputs", intArray(inputs));
    if (solution.segments.size() == 1) {
      const dst::Segment& s = solution.segments.front();
      store->setAttribute("ttl.dst_subblock", intArray({s.subblockRows, s.subblockCols}));
      store->removeAttribute("ttl.dst_segments");
    } else {
      std::vector<Attribute> segments;
      for (const dst::Segment& s : solution.segments)
        segments.push_back(intArray({static_cast<int64_t>(s.firstOp), static_cast<int64_t>(s.endOp),
                                     s.subblockRows, s.subblockCols}));
      store->setAttribute("ttl.dst_segments", Attribute::array(std::move(segments)));
      store->removeAttribute("ttl.dst_subblock");
    }
    statistic("stores-annotated", "stores given their chain's DST plan") += 1;
  }
};

} // namespace

std::unique_ptr<Pass> createInferDstPass() {
  return std::make_unique<InferDstPass>();
}

} // namespace ttlplan::lower
