// PLACEHOLDER while the pass is being written: fails with a clear message.
#include "lower/passes/Passes.h"

namespace ttlplan::lower {

namespace {

class InsertSyncPass : public Pass {
public:
  bool run(PassContext& context) override {
    context.diagnostics.error(ir::Location(), "pass not implemented yet");
    return false;
  }
};

} // namespace

std::unique_ptr<Pass> createInsertSyncPass() {
  return std::make_unique<InsertSyncPass>();
}

} // namespace ttlplan::lower
