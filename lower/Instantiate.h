#pragma once
// Substitutes a knob binding into a kernel: every `@P` in a type or an attribute becomes its
// value, `ttl.param_value @P` becomes `arith.constant`, and `ttl.require` ops (already checked
// by the binding choice) are dropped. `?` CB depths stay (ttl.bind_cb carries the count).
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/support/Expected.h"

namespace ttlplan::lower {

/// Instantiates `kernel` under `binding`; an error names an unbound knob and where it is used.
Status instantiateBinding(ir::Operation* kernel, const ir::Binding& binding);

} // namespace ttlplan::lower
