// verify: ir::verify as the first pass of a pipeline (not again on a module the caller verified,
// PassContext::verified).
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/passes/Passes.h"

namespace ttlplan::lower {

namespace {

class VerifyPass : public Pass {
public:
  bool run(PassContext& context) override {
    if (context.verified) {
      statistic("already-verified", "modules the caller verified, not verified again") += 1;
      return true;
    }
    context.verified = ir::verify(context.module, context.diagnostics);
    return context.verified;
  }
  bool changedModule() const override { return false; }
};

} // namespace

std::unique_ptr<Pass> createVerifyPass() {
  return std::make_unique<VerifyPass>();
}

} // namespace ttlplan::lower
