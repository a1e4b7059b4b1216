#pragma once
// The TTL verifier: op placement, circular-buffer protocol, types and shapes, knobs and
// `ttl.require`. Every problem is reported with the op's location and notes at related ops.
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Operation.h"

namespace ttlplan::ir {

/// The most elements a tensor type may have: 2^48, far beyond any device's DRAM, so that its bytes
/// and tile ids in any data type fit in 64 bits wherever they are computed (lowering, codegen,
/// the host program). A larger static tensor is a verifier error naming the type.
constexpr int64_t kMaxTensorElements = int64_t{1} << 48;

/// Checks the whole module; returns true when it emitted no error.
bool verify(Module& module, DiagnosticEngine& diagnostics);

} // namespace ttlplan::ir
