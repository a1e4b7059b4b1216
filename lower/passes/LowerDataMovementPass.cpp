// PLACEHOLDER while the pass is being written: fails with a clear message.
#include "lower/passes/Passes.h"

namespace ttlplan::lower {

namespace {

class LowerDataMovementPass : public Pass {
public:
  bool run(PassContext& context) override {
    context.diagnostics.error(ir::Location(), "pass not implemented yet");
    return false;
  }
};

} // namespace

std::unique_ptr<Pass> createLowerDataMovementPass() {
  return std::make_unique<LowerDataMovementPass>();
}

} // namespace ttlplan::lower
