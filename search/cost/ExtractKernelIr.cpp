#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/search/cost/ExtractDetail.h"

#include <algorithm>
#include <map>
#include <set>

namespace ttlplan::search::cost {

using namespace detail;

namespace {

// Whether `v` is computed from `iv` through arith.
bool dependsOn(const ir::Value* v, const ir::Value* iv, int depth = 0) {
  if (v == iv) return true;
  const ir::Operation* def = v ? v->definingOp() : nullptr;
  if (!def || def->dialect() != "arith" || depth > 64) return false;
  for (const ir::Value* operand : def->operands())
    if (dependsOn(operand, iv, depth + 1)) return true;
  return false;
}

// The scf.if conditions anywhere in `body` that depend on `iv`.
std::vector<const ir::Value*> conditionsOn(ir::Block& body, const ir::Value* iv) {
  std::vector<const ir::Value*> out;
  for (auto& owned : body.operations())
    owned->walk([&](ir::Operation* op) {
      if (op->isa("scf.if") && dependsOn(op->operand(0), iv)) out.push_back(op->operand(0));
    });
  return out;
}

} // namespace

KernelIr::KernelIr(ir::Operation* op) : kernel(op), control(prepareControl(op)) {
  std::vector<std::pair<const ir::Operation*, std::vector<const ir::Value*>>> roots;
  const size_t coreLeaves = lower::coreLeafValues(0, 0, 1, 1).size();
  const std::map<const ir::Operation*, std::string> pipeIds = lower::pipeIds(kernel);
  kernel->walk([&](ir::Operation* o) {
    if (o->isa(ir::CreateCBOp::kName)) createPosition_.emplace(o, cbCount++);
    if (o->isa(ir::CreatePipeOp::kName))
      for (const ir::Value* r : o->results()) {
        std::string id = pipeIds.at(o); // one pipe of every thread's creation
        auto known = std::find(pipes.begin(), pipes.end(), id);
        pipeIndex_.emplace(r, int(known - pipes.begin()));
        if (known == pipes.end()) {
          pipes.push_back(id);
          sourceReceives.push_back(ir::CreatePipeOp(o).sourceReceives());
        }
      }
    if (o->isa("scf.for") && o->numOperands() >= 3) {
      std::vector<const ir::Value*> values = {o->operand(0), o->operand(1), o->operand(2)};
      if (o->body().numArguments() > 0) {
        const ir::Value* iv = o->body().argument(0);
        indexSlot_.emplace(iv, int(coreLeaves + indexSlot_.size()));
        for (const ir::Value* c : conditionsOn(o->body(), iv))
          values.push_back(c);
      }
      roots.push_back({o, values});
    }
    if (o->isa("scf.if") && o->numOperands() >= 1) roots.push_back({o, {o->operand(0)}});
  });
  leaves = coreLeaves + indexSlot_.size();
  auto argumentSlot = [&](const ir::Value& v) {
    auto it = indexSlot_.find(&v);
    return it == indexSlot_.end() ? std::nullopt : std::optional<int>(it->second);
  };
  for (const auto& [o, values] : roots) {
    programOf_.emplace(o, programs.size());
    programs.emplace_back(values, lower::coreLeafSlot, argumentSlot);
  }
  for (auto& owned : kernel->body().operations()) {
    ir::Operation& thread = *owned;
    if (!thread.isa("ttl.datamovement_thread") && !thread.isa("ttl.compute_thread")) continue;
    threads.push_back({thread.isa("ttl.compute_thread"), compile(thread.body())});
  }
}

std::vector<Node> KernelIr::compile(ir::Block& block) {
  static const std::pair<std::string_view, NodeKind> kKinds[] = {
      {"ttl.work_loop", NodeKind::WorkLoop},
      {"scf.for", NodeKind::For},
      {"scf.if", NodeKind::If},
      {"ttl.if_src", NodeKind::IfSrc},
      {"ttl.if_dst", NodeKind::IfDst},
      {"ttl.cb_reserve", NodeKind::Reserve},
      {"ttl.cb_push", NodeKind::Push},
      {"ttl.cb_wait", NodeKind::Wait},
      {"ttl.cb_pop", NodeKind::Pop},
      {"ttl.copy", NodeKind::Copy},
      {"ttl.wait", NodeKind::WaitTransfers},
      {"ttl.dma_barrier", NodeKind::WaitTransfers},
      {"ttl.store", NodeKind::Store}};
  std::vector<Node> nodes;
  for (auto& owned : block.operations())
    for (const auto& [name, kind] : kKinds)
      if (owned->name() == name) {
        nodes.push_back(compile(*owned, kind));
        break;
      }
  return nodes;
}

Node KernelIr::compile(ir::Operation& op, NodeKind kind) {
  Node n;
  n.kind = kind;
  n.origin = originOf(op);
  if (auto it = programOf_.find(&op); it != programOf_.end()) n.program = int(it->second);
  switch (kind) {
  case NodeKind::WorkLoop:
    n.body = compile(op.body());
    break;
  case NodeKind::For:
    if (op.body().numArguments() > 0)
      if (auto it = indexSlot_.find(op.body().argument(0)); it != indexSlot_.end())
        n.indexSlot = it->second;
    if (n.program >= 0 && n.indexSlot >= 0) {
      // Slots 63 and up share mask bit 63: a superset of what the index changes, still exact.
      std::vector<uint64_t> masks = programs[size_t(n.program)].leafMasks();
      for (size_t i = 0; i < masks.size(); ++i)
        if ((masks[i] >> std::min(n.indexSlot, 63)) & 1) n.onIndex.push_back(int(i));
    }
    n.body = compile(op.body());
    break;
  case NodeKind::If:
    n.body = compile(op.body(0));
    if (op.numRegions() > 1 && !op.region(1).blocks().empty()) n.elseBody = compile(op.body(1));
    break;
  case NodeKind::IfSrc:
  case NodeKind::IfDst:
    n.pipe = pipeOf(op.operand(0));
    n.body = compile(op.body());
    break;
  case NodeKind::Reserve:
  case NodeKind::Push:
  case NodeKind::Wait:
  case NodeKind::Pop:
    n.cb = cbOf(op.operand(0));
    break;
  case NodeKind::Copy: {
    ir::CopyOp copy(&op);
    using D = ir::CopyOp::Direction;
    n.direction = copy.direction();
    bool intoCb = n.direction == D::Read || n.direction == D::Receive;
    n.cb = cbOfView(intoCb ? copy.destination() : copy.source());
    if (n.direction == D::Send) n.pipe = pipeOf(copy.destination());
    if (n.direction == D::Receive) n.pipe = pipeOf(copy.source());
    break;
  }
  case NodeKind::WaitTransfers:
    break;
  case NodeKind::Store: {
    Chain chain;
    chain.origin = n.origin;
    for (ir::Operation* chainOp : lower::computeChainOps({ir::StoreOp(&op).value()}, order_)) {
      ChainOp c;
      for (ir::Value* v : chainOp->operands())
        if (int cb = cbOfView(v); cb >= 0) c.cbInputs.push_back(cb);
      c.matmul = chainOp->def()->compute.kind == ir::ComputeKind::Matmul; // a chain op has a def
      if (c.matmul) c.lhsCb = cbOfView(ir::MatmulOp(chainOp).lhs());
      chain.ops.push_back(std::move(c));
    }
    n.cb = cbOfView(ir::StoreOp(&op).view());
    n.chain = int(chains.size());
    chains.push_back(std::move(chain));
    break;
  }
  }
  return n;
}

} // namespace ttlplan::search::cost
