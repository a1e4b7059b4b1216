// verify: ir::verify as the first pass of a pipeline.
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/passes/Passes.h"

namespace ttlplan::lower {

namespace {

class VerifyPass : public Pass {
public:
  bool run(PassContext& context) override {
    return ir::verify(context.module, context.diagnostics);
  }
};

} // namespace

std::unique_ptr<Pass> createVerifyPass() {
  return std::make_unique<VerifyPass>();
}

} // namespace ttlplan::lower
