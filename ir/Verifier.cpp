#include "ir/Verifier.h"

namespace ttlplan::ir {

bool verify(Module& module, DiagnosticEngine& diagnostics) {
  (void)module;
  return !diagnostics.hasErrors();
}

} // namespace ttlplan::ir
