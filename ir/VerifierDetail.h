#pragma once
// Internal to the verifier: the checks (one file each) and small helpers they share.
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Operation.h"

#include <string>
#include <vector>

namespace ttlplan::ir::detail {

/// TTL's tile edge (32x32 tiles); a tensor dimension counts ceil(n / 32) tiles, padded.
inline constexpr int64_t kTileSize = 32;
inline int64_t tilesOf(int64_t elements) { return (elements + kTileSize - 1) / kTileSize; }

/// Op placement, thread counts, pipe regions, operand/result/region counts (VerifyStructure.cpp).
void verifyStructure(Module& module, DiagnosticEngine& diags);
/// Circular-buffer protocol within and across threads (VerifyCircularBuffers.cpp).
void verifyCircularBuffers(Module& module, DiagnosticEngine& diags);
/// Types and shapes of views, copies, compute ops, slices, kernels (VerifyTypes.cpp).
void verifyTypes(Module& module, DiagnosticEngine& diags);
/// Knob declarations, `@name` references and `ttl.require` satisfiability (VerifyParams.cpp).
void verifyParams(Module& module, DiagnosticEngine& diags);
/// Slices out of bounds on some core and loop iteration of a static grid (VerifySliceRanges.cpp).
void verifySliceRanges(Module& module, DiagnosticEngine& diags);

/// True when the op's operand/result/region counts match its registry entry and each region has
/// at most one block (always true for unknown ops). Detailed checks skip ops failing this: the
/// count problem is reported once by verifyStructure.
bool hasValidCounts(const Operation& op);
/// `scf.for` has its bounds and step, then one loop-carried value per result.
bool scfForCountsMatch(const Operation& op);

/// "%name" for a value with a name hint, otherwise "this value".
std::string describe(const Value* value);

/// The nearest enclosing compute or datamovement thread, or null.
Operation* enclosingThread(const Operation& op);

/// The ops of the single block of region `i`, or null when the region has no block.
Block* regionBlock(Operation& op, size_t i);

/// Kernels directly in the module body.
std::vector<Operation*> kernelsOf(Module& module);

/// The compute and datamovement threads directly in a kernel body, in order.
std::vector<Operation*> threadsOf(Operation& kernel);

/// True when `value` is defined by an op named `name`.
bool definedBy(const Value* value, std::string_view name);

/// True when the type is non-null and of the given kind.
bool isKind(const Type& type, TypeKind kind);

} // namespace ttlplan::ir::detail
