#pragma once
// Small helpers the passes share: reporting pre-formatted planner errors as diagnostics at their
// location.
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/Pass.h"

#include <optional>
#include <string>
#include <string_view>

namespace ttlplan::lower {

/// Emits `text` ("file:line:col: error: what", possibly with more lines) as an error diagnostic
/// at that location; text without a location prefix gets an unknown location.
void reportError(PassContext& context, const std::string& text);

/// Emits an error at `op`'s location.
void reportError(PassContext& context, const ir::Operation* op, std::string message);

/// The `ttl.kernel` ops of the module, in order.
std::vector<ir::Operation*> kernelsOf(ir::Module& module);

/// `arith.cmpi ne, %v, 0`: the condition of a per-core flag.
ir::Value* isNonZero(ir::OpBuilder& b, ir::Value* v);

} // namespace ttlplan::lower
