#pragma once
// import-ttlang: a module in tenstorrent/tt-lang's form (`ttl.launch_grid`, one `func.func` per
// thread marked `ttl.kernel_thread`, CBs bound per thread by `cb_index`) becomes one `ttl.kernel`
// in ttlplan's form, so that the verifier, the planner and the lowering work on it
// (docs/ttlang-interop.md says what is converted and what is refused).
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Operation.h"

namespace ttlplan::ir {

/// True when the module holds tt-lang thread functions and no `ttl.kernel`.
bool isTtlangModule(const Module& module);

/// Why `kernel` cannot be costed, compiled or run when one of its CBs has an end outside the file
/// (`outside = "producer" | "consumer"`, a tt-lang thread planned on its own), naming the CB;
/// empty when every CB has both ends in the kernel. `what` is the refused step ("cost").
std::string outsideEndRefusal(Operation& kernel, std::string_view what);

/// Converts a tt-lang module in place; false, with one located error per construct it cannot
/// convert, when it refuses (the module is then left part converted and must not be used).
bool importTtlang(Module& module, DiagnosticEngine& diags);

} // namespace ttlplan::ir
