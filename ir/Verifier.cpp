#include "ttlplan/ir/Verifier.h"

#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Padding.h"
#include "ttlplan/ir/VerifierDetail.h"

namespace ttlplan::ir {

namespace detail {

bool scfForCountsMatch(const Operation& op) {
  return !op.isa("scf.for") || (op.numOperands() >= 3 && op.numOperands() - 3 == op.numResults());
}

bool hasValidCounts(const Operation& op) {
  const OpDef* def = op.def();
  if (!def) return true;
  if (def->numOperands >= 0 && op.numOperands() != static_cast<size_t>(def->numOperands))
    return false;
  if (def->numResults >= 0 && op.numResults() != static_cast<size_t>(def->numResults)) return false;
  if (op.numRegions() != static_cast<size_t>(def->numRegions)) return false;
  if (!scfForCountsMatch(op)) return false;
  for (size_t i = 0; i < op.numRegions(); ++i)
    if (op.region(i).numBlocks() > 1) return false;
  return true;
}

std::string describe(const Value* value) {
  if (value && !value->nameHint().empty()) return "%" + value->nameHint();
  return "this value";
}

Operation* enclosingThread(const Operation& op) {
  for (Operation* p = op.parentOp(); p; p = p->parentOp())
    if (p->isa("ttl.compute_thread") || p->isa("ttl.datamovement_thread")) return p;
  return nullptr;
}

Block* regionBlock(Operation& op, size_t i) {
  if (i >= op.numRegions() || op.region(i).empty()) return nullptr;
  return &op.region(i).front();
}

std::vector<Operation*> kernelsOf(Module& module) {
  std::vector<Operation*> out;
  Block* body = module.op ? regionBlock(*module.op, 0) : nullptr;
  if (!body) return out;
  for (auto& op : body->operations())
    if (op->isa("ttl.kernel")) out.push_back(op.get());
  return out;
}

std::vector<Operation*> threadsOf(Operation& kernel) {
  std::vector<Operation*> out;
  Block* body = regionBlock(kernel, 0);
  if (!body) return out;
  for (auto& op : body->operations())
    if (op->isa("ttl.compute_thread") || op->isa("ttl.datamovement_thread"))
      out.push_back(op.get());
  return out;
}

bool definedBy(const Value* value, std::string_view name) {
  return value && value->definingOp() && value->definingOp()->name() == name;
}

bool isKind(const Type& type, TypeKind kind) {
  return type.is(kind);
}

} // namespace detail

namespace {

/// A kernel of fixed shapes whose tensors that are not whole tiles have no pad value that keeps
/// its reductions exact (ir/Padding.h; a template is checked by apply-plan, once bound).
void verifyPadding(Module& module, DiagnosticEngine& diagnostics) {
  for (Operation* kernel : detail::kernelsOf(module)) {
    std::string problem = paddingProblem(*kernel);
    if (problem.empty()) continue;
    size_t end = problem.find('\n');
    auto report = diagnostics.error(kernel->location(), problem.substr(0, end));
    while (end != std::string::npos) {
      size_t next = problem.find('\n', end + 1);
      report.note(kernel->location(), problem.substr(end + 1, next - end - 1));
      end = next;
    }
  }
}

} // namespace

bool verify(Module& module, DiagnosticEngine& diagnostics) {
  size_t before = diagnostics.errorCount();
  if (!module.op) return false;
  // Structure first: the other checks rely on well-formed ops and skip the malformed ones.
  detail::verifyStructure(module, diagnostics);
  detail::verifyParams(module, diagnostics);
  detail::verifyTypes(module, diagnostics);
  detail::verifyCircularBuffers(module, diagnostics);
  if (diagnostics.errorCount() == before) detail::verifySliceRanges(module, diagnostics);
  if (diagnostics.errorCount() == before) verifyPadding(module, diagnostics);
  return diagnostics.errorCount() == before;
}

} // namespace ttlplan::ir
