#include "lower/passes/ComputeChain.h"

#include "ir/Ops.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace ttlplan::lower {

bool isComputeChainOp(const ir::Operation* op) {
  // The same test as lower/ExtractDst.cpp's isChainOp: the planner's chains and ours must agree.
  if (!op || op->dialect() != "ttl" || op->numResults() != 1) return false;
  static const std::set<std::string> kNotCompute = {
      "ttl.cb_wait",     "ttl.cb_reserve",  "ttl.tensor_slice",    "ttl.copy",
      "ttl.param_value", "ttl.core_x",      "ttl.core_y",          "ttl.grid_size",
      "ttl.create_cb",   "ttl.create_pipe", "ttl.create_semaphore"};
  return !kNotCompute.count(op->name()) && op->result(0)->type().isTileBlock();
}

std::vector<ComputeChain> findComputeChains(ir::Operation* scope) {
  std::map<const ir::Operation*, size_t> order;
  std::vector<ir::Operation*> stores;
  scope->walk([&](ir::Operation* op) {
    order[op] = order.size();
    if (ir::StoreOp::dyn(op)) stores.push_back(op);
  });
  std::vector<ComputeChain> out;
  for (ir::Operation* storeOp : stores) {
    ComputeChain chain;
    chain.store = storeOp;
    std::set<ir::Operation*> members;
    std::vector<ir::Value*> work{ir::StoreOp(storeOp).value()};
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
    if (chain.ops.empty()) chain.inputs.push_back(ir::StoreOp(storeOp).value());
    out.push_back(std::move(chain));
  }
  return out;
}

} // namespace ttlplan::lower
