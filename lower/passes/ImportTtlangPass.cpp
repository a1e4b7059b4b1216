// import-ttlang: ir::importTtlang as the first pass of a pipeline. The driver also imports a
// tt-lang module as it reads a file (plan and cost do not run a pipeline), so a --pipeline that
// leaves the pass out works too; on a module already converted the pass does nothing.
#include "ttlplan/ir/ImportTtlang.h"
#include "ttlplan/lower/passes/Passes.h"

namespace ttlplan::lower {

namespace {

class ImportTtlangPass : public Pass {
public:
  bool run(PassContext& context) override {
    converted_ = ir::isTtlangModule(context.module);
    return ir::importTtlang(context.module, context.diagnostics);
  }
  bool changedModule() const override { return converted_; }

private:
  bool converted_ = true; ///< the last run converted a tt-lang module
};

} // namespace

std::unique_ptr<Pass> createImportTtlangPass() {
  return std::make_unique<ImportTtlangPass>();
}

} // namespace ttlplan::lower
