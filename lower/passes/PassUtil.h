#pragma once
// Small helpers the passes share: reporting pre-formatted planner errors as diagnostics at their
// location, per-core flags, and kernel semaphore ids the passes take for themselves.
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

/// `!ttkernel.l1_ptr`, the type of `"ttkernel.l1_ptr"(%addr)`.
ir::Type l1PtrType();

/// One more semaphore id of `kernel` for a pass's own use (initial value 0): the next id after
/// the planner's (`ttl.semaphore_count`) and the user semaphores numbered so far, which
/// `ttl.semaphore_count` then covers (the host creates ids below it). An error at `at` naming
/// `what` when the device has no id left.
std::optional<int64_t> takeSemaphoreId(PassContext& context, ir::Operation& kernel,
                                       const ir::Operation* at, std::string_view what);

} // namespace ttlplan::lower
