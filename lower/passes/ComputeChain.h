#pragma once
// Compute chains as infer-dst and lower-compute see them: the compute ops feeding one `ttl.store`
// of a compute thread, in program order, and the chain's inputs (the values it reads that no op of
// the chain computes: CB views). The rules are those of lower::extractChains
// (lower/ExtractDst.cpp), so that the DST plan's value numbering can be found again after
// expand-threads moved the ops: value ids are given in order of first appearance, walking the ops
// in program order, operands left to right, then the op's result. `inputs` is therefore in the
// order of the chain inputs' value ids, and that is the order of the store's `ttl.dst_inputs`
// (docs/lowering.md, "Compute lowering").
#include "ir/Operation.h"

#include <vector>

namespace ttlplan::lower {

/// A ttl op that computes a block of tiles from blocks (add, exp, matmul, bcast, reduce_*, ...);
/// CB protocol ops, slices and copies are not compute ops.
bool isComputeChainOp(const ir::Operation* op);

struct ComputeChain {
  ir::Operation* store = nullptr;  ///< the ttl.store
  std::vector<ir::Operation*> ops; ///< compute ops feeding it, in program order
  std::vector<ir::Value*> inputs;  ///< values read by `ops` that no op of `ops` computes
};

/// The chain of every `ttl.store` nested in `scope`, in program order. A store whose value is not
/// computed by a compute op gets a chain with no ops (and the value as its only input).
std::vector<ComputeChain> findComputeChains(ir::Operation* scope);

} // namespace ttlplan::lower
