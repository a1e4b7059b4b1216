#pragma once
// Writes a Module as TTL text: the custom form people write, or the generic MLIR form that
// `mlir-opt-16 --allow-unregistered-dialect` accepts.
#include "ttlplan/ir/Operation.h"

#include <string>

namespace ttlplan::ir {

struct PrintOptions {
  bool generic = false;   ///< generic MLIR form for every op
  bool useAliases = true; ///< print the file's `!name = ...` definitions and use them
};

std::string print(const Module& module, const PrintOptions& options = {});
/// One op (and its regions) in custom form, for messages and debugging.
std::string print(Operation& op, const PrintOptions& options = {});

} // namespace ttlplan::ir
