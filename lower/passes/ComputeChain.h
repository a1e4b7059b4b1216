#pragma once
// Compute chains as infer-dst and lower-compute see them: the compute ops feeding one `ttl.store`
// of a compute thread, in program order, and the chain's inputs (the values it reads that no op of
// the chain computes: CB views). The ops are lower::computeChainOps', as for lower::extractChains
// (lower/ExtractDst.cpp), so that the DST plan's value numbering can be found again after
// expand-threads moved the ops: value ids are given in order of first appearance, walking the ops
// in program order, operands left to right, then the op's result. `inputs` is therefore in the
// order of the chain inputs' value ids, and that is the order of the store's `ttl.dst_inputs`
// (docs/lowering.md, "Compute lowering").
//
// One segment of a split chain may pack several values (each into an intermediate CB): infer-dst
// then writes the same `ttl.dst_group = G` on the stores of that segment, and they form one chain
// here: the union of their ops, one DST plan, several packs (`stores`, in program order).
#include "ttlplan/ir/Operation.h"
#include "ttlplan/lower/Extract.h" // computeChainOps

#include <vector>

namespace ttlplan::lower {

struct ComputeChain {
  ir::Operation* store = nullptr;     ///< the last ttl.store of the chain (where it runs)
  std::vector<ir::Operation*> stores; ///< every ttl.store of the chain, in program order
  std::vector<ir::Operation*> ops;    ///< compute ops feeding them, in program order
  std::vector<ir::Value*> inputs;     ///< values read by `ops` that no op of `ops` computes
};

/// The chain of every `ttl.store` (or `ttl.dst_group` of stores in one block) nested in `scope`,
/// in program order of their last stores. A store whose value is not computed by a compute op
/// gets a chain with no ops (and the value as its only input).
std::vector<ComputeChain> findComputeChains(ir::Operation* scope);

} // namespace ttlplan::lower
