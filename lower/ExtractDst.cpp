// DST chain extraction: the compute ops feeding each ttl.store of a compute thread.
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace ttlplan::lower {

bool isComputeChainOp(const ir::Operation* op) {
  if (!op || op->numResults() != 1) return false;
  const ir::OpDef* def = ir::lookupOp(op->name());
  if (!def || def->compute.kind == ir::ComputeKind::None ||
      def->compute.kind == ir::ComputeKind::Store)
    return false;
  return op->result(0)->type().isTileBlock();
}

size_t ProgramOrder::operator()(const ir::Operation* op) const {
  if (position_.empty())
    scope_->walk([&](ir::Operation* o) { position_.emplace(o, position_.size() + 1); });
  auto it = position_.find(op);
  return it == position_.end() ? 0 : it->second;
}

std::vector<ir::Operation*> computeChainOps(const std::vector<ir::Value*>& values,
                                            const ProgramOrder& order) {
  std::set<ir::Operation*> members;
  std::vector<ir::Value*> work = values;
  while (!work.empty()) {
    ir::Value* v = work.back();
    work.pop_back();
    ir::Operation* def = v->definingOp();
    if (!isComputeChainOp(def) || !members.insert(def).second) continue;
    for (ir::Value* operand : def->operands())
      work.push_back(operand);
  }
  std::vector<ir::Operation*> ops(members.begin(), members.end());
  std::sort(ops.begin(), ops.end(),
            [&](ir::Operation* a, ir::Operation* b) { return order(a) < order(b); });
  return ops;
}

Expected<std::vector<ChainInfo>> extractChains(ir::Operation* kernel, const ir::Binding& binding,
                                               const ir::Device& device) {
  const ProgramOrder order(kernel);
  std::vector<ir::Operation*> stores;
  kernel->walk([&](ir::Operation* op) {
    if (ir::StoreOp::dyn(op) && op->ancestor("ttl.compute_thread")) stores.push_back(op);
  });
  Expected<MathOptions> math = extractMathOptions(kernel, binding);
  if (!math) return math.error();
  std::vector<ChainInfo> out;
  for (ir::Operation* storeOp : stores) {
    ir::StoreOp store(storeOp);
    ChainInfo chain;
    chain.location = storeOp->location().str();
    chain.id = fmt::format("{} -> {}", valueName(store.value()), valueName(store.view()));
    std::vector<ir::Operation*> ops = computeChainOps({store.value()}, order);
    if (ops.empty())
      return Error{fmt::format("{}: error: ttl.store of {} has no compute op to plan DST for",
                               chain.location, valueName(store.value()))};
    std::map<const ir::Value*, planner::dst::ValueId> ids;
    auto id = [&](const ir::Value* v) {
      auto [it, inserted] = ids.emplace(v, static_cast<planner::dst::ValueId>(ids.size()));
      (void)inserted;
      return it->second;
    };
    planner::dst::Chain& c = chain.problem.chain;
    c.id = chain.id;
    for (ir::Operation* op : ops) {
      planner::dst::Op dop;
      dop.name = op->name();
      for (ir::Value* operand : op->operands())
        dop.inputs.push_back(id(operand));
      dop.output = id(op->result(0));
      // matmul, reduce, bcast and transpose read their operands through the unpacker from CBs
      // (the compute API has no DST-to-DST form of them).
      dop.cbOperands = ir::readsOperandsFromCb(op->def()->compute.kind);
      ir::Type result = op->result(0)->type();
      std::optional<int64_t> opRows, opCols;
      if (result.shape().size() == 2) {
        opRows = ir::resolveDim(result.shape()[0], binding);
        opCols = ir::resolveDim(result.shape()[1], binding);
      }
      if (!opRows || !opCols)
        return Error{fmt::format("{}: error: the result of {} is not a 2-D block with a value "
                                 "under the binding",
                                 op->location().str(), op->name())};
      dop.rows = *opRows;
      dop.cols = *opCols;
      c.ops.push_back(std::move(dop));
    }
    c.results = {id(store.value())};
    ir::Type view = store.view()->type();
    if (!view.is(ir::TypeKind::Tensor) || view.shape().size() != 2 ||
        !view.elementType().is(ir::TypeKind::Tile))
      return Error{
          fmt::format("{}: error: the stored view is not a 2-D block of tiles", chain.location)};
    std::optional<int64_t> rows = ir::resolveDim(view.shape()[0], binding);
    std::optional<int64_t> cols = ir::resolveDim(view.shape()[1], binding);
    if (!rows || !cols)
      return Error{fmt::format("{}: error: the stored block shape has no value under the binding",
                               chain.location)};
    c.blockRows = *rows;
    c.blockCols = *cols;
    std::optional<ir::DataType> bound = ir::resolveDataType(view.elementType(), binding);
    if (!bound)
      return Error{fmt::format("{}: error: the stored tile type {} has no data type under the "
                               "binding",
                               chain.location, view.elementType().str())};
    ir::DataType dt = *bound;
    chain.dataType = std::string(ir::toString(dt));
    chain.problem.sync =
        device.dst.defaultFullSync ? planner::dst::SyncMode::Full : planner::dst::SyncMode::Half;
    chain.problem.fp32Accumulation = math->fp32DestAcc || dt == ir::DataType::F32;
    chain.problem.capacityTiles =
        device.dstCapacityTiles(device.dst.defaultFullSync, chain.problem.fp32Accumulation);
    chain.problem.intermediateTileBytes = device.tileBytes(dt);
    chain.ops = std::move(ops);
    out.push_back(std::move(chain));
  }
  return out;
}

Expected<MathOptions> extractMathOptions(ir::Operation* kernel, const ir::Binding& binding) {
  MathOptions out;
  auto bound = [&](const ir::Attribute& a) -> std::optional<ir::KnobValue> {
    if (a.is(ir::AttrKind::SymbolRef)) {
      auto it = binding.find(a.stringValue());
      if (it == binding.end()) return std::nullopt;
      return it->second;
    }
    if (a.is(ir::AttrKind::String)) return ir::KnobValue::symbol(a.stringValue());
    if (a.is(ir::AttrKind::Integer)) return ir::KnobValue(a.intValue());
    if (a.is(ir::AttrKind::Bool)) return ir::KnobValue(a.boolValue() ? 1 : 0);
    return std::nullopt;
  };
  std::string where = kernel->location().str();
  if (ir::Attribute a = kernel->attribute("math_fidelity")) {
    std::optional<ir::KnobValue> v = bound(a);
    if (!v || !v->isSymbol() || !ir::isMathFidelity(v->symbol()))
      return Error{fmt::format("{}: error: math_fidelity = {} has no fidelity (LoFi, HiFi2, "
                               "HiFi3, HiFi4) under the binding",
                               where, a.str())};
    out.mathFidelity = v->symbol();
  }
  if (ir::Attribute a = kernel->attribute("fp32_dest_acc")) {
    std::optional<ir::KnobValue> v = bound(a);
    if (!v || !v->isInteger() || (v->integer() != 0 && v->integer() != 1))
      return Error{fmt::format("{}: error: fp32_dest_acc = {} is not 0 or 1 under the binding",
                               where, a.str())};
    out.fp32DestAcc = v->integer() == 1;
  }
  return out;
}

} // namespace ttlplan::lower
