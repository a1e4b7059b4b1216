#include "ttlplan/lower/passes/ComputeChain.h"

#include "ttlplan/ir/Ops.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace ttlplan::lower {

std::vector<ComputeChain> findComputeChains(ir::Operation* scope) {
  std::map<const ir::Operation*, size_t> order;
  std::vector<std::vector<ir::Operation*>> groups; // stores of each chain, in program order
  std::map<std::pair<const ir::Block*, int64_t>, size_t> groupOf;
  scope->walk([&](ir::Operation* op) {
    order[op] = order.size();
    if (!ir::StoreOp::dyn(op)) return;
    ir::Attribute g = op->attribute("ttl.dst_group");
    if (g.is(ir::AttrKind::Integer)) {
      auto [it, inserted] =
          groupOf.emplace(std::pair{op->parentBlock(), g.intValue()}, groups.size());
      if (!inserted) {
        groups[it->second].push_back(op);
        return;
      }
    }
    groups.push_back({op});
  });
  // Program order of the chains: that of their last stores.
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const auto& a, const auto& b) { return order[a.back()] < order[b.back()]; });
  std::vector<ComputeChain> out;
  for (std::vector<ir::Operation*>& stores : groups) {
    ComputeChain chain;
    chain.store = stores.back();
    chain.stores = stores;
    std::set<ir::Operation*> members;
    std::vector<ir::Value*> work;
    for (ir::Operation* s : stores)
      work.push_back(ir::StoreOp(s).value());
    while (!work.empty()) {
      ir::Value* v = work.back();
      work.pop_back();
      ir::Operation* def = v->definingOp();
      if (!isComputeChainOp(def) || !members.insert(def).second) continue;
      for (ir::Value* operand : def->operands())
        work.push_back(operand);
    }
    chain.ops.assign(members.begin(), members.end());
    std::sort(chain.ops.begin(), chain.ops.end(),
              [&](ir::Operation* a, ir::Operation* b) { return order[a] < order[b]; });
    std::set<const ir::Value*> seen;
    for (ir::Operation* op : chain.ops)
      for (ir::Value* operand : op->operands())
        if (!members.count(operand->definingOp()) && seen.insert(operand).second)
          chain.inputs.push_back(operand);
    if (chain.ops.empty())
      for (ir::Operation* s : stores)
        if (seen.insert(ir::StoreOp(s).value()).second)
          chain.inputs.push_back(ir::StoreOp(s).value());
    out.push_back(std::move(chain));
  }
  return out;
}

} // namespace ttlplan::lower
