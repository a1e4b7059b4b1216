#include "ttlplan/lower/passes/ComputeChain.h"

#include "ttlplan/ir/Ops.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace ttlplan::lower {

std::vector<ComputeChain> findComputeChains(ir::Operation* scope) {
  const ProgramOrder order(scope);
  std::vector<std::vector<ir::Operation*>> groups; // stores of each chain, in program order
  std::map<std::pair<const ir::Block*, int64_t>, size_t> groupOf;
  scope->walk([&](ir::Operation* op) {
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
                   [&](const auto& a, const auto& b) { return order(a.back()) < order(b.back()); });
  std::vector<ComputeChain> out;
  for (std::vector<ir::Operation*>& stores : groups) {
    ComputeChain chain;
    chain.store = stores.back();
    chain.stores = stores;
    std::vector<ir::Value*> stored;
    for (ir::Operation* s : stores)
      stored.push_back(ir::StoreOp(s).value());
    chain.ops = computeChainOps(stored, order);
    const std::set<ir::Operation*> members(chain.ops.begin(), chain.ops.end());
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
