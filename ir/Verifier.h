#pragma once
// The TTL verifier: op placement, circular-buffer protocol, types and shapes, knobs and
// `ttl.require`. Every problem is reported with the op's location and notes at related ops.
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Operation.h"

namespace ttlplan::ir {

/// Checks the whole module; returns true when it emitted no error.
bool verify(Module& module, DiagnosticEngine& diagnostics);

} // namespace ttlplan::ir
