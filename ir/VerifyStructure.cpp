// Structure: where each op may appear (OpRegistry placement), how many threads a kernel has,
// which pipe region a pipe copy must sit in, and operand/result/region counts of generic-form ops.
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/VerifierDetail.h"

#include <fmt/format.h>
#include <map>

namespace ttlplan::ir::detail {

namespace {

// One message per mismatching count; the detailed checks then skip the op.
void checkCounts(const Operation& op, DiagnosticEngine& diags) {
  const OpDef* def = op.def();
  if (!def) return;
  auto check = [&](int expected, size_t actual, const char* what) {
    if (expected < 0 || actual == static_cast<size_t>(expected)) return;
    diags.error(op.location(), fmt::format("'{}' takes {} {} but has {}; fix the generic form",
                                           op.name(), expected, what, actual));
  };
  check(def->numOperands, op.numOperands(), "operand(s)");
  check(def->numResults, op.numResults(), "result(s)");
  check(def->numRegions, op.numRegions(), "region(s)");
  if (!scfForCountsMatch(op))
    diags.error(op.location(),
                fmt::format("'scf.for' takes its lower bound, upper bound and step, then one "
                            "loop-carried value per result, but has {} operand(s) and {} "
                            "result(s); fix the generic form",
                            op.numOperands(), op.numResults()));
  for (size_t i = 0; i < op.numRegions(); ++i)
    if (op.region(i).numBlocks() > 1)
      diags.error(op.location(),
                  fmt::format("'{}' region #{} has {} blocks; TTL regions have one block",
                              op.name(), i, op.region(i).numBlocks()));
}

std::string placementHint(Placement placement) {
  switch (placement) {
  case Placement::ModuleBody:
    return "move it directly into the module body";
  case Placement::KernelBody:
    return "move it directly into the kernel body, outside threads and loops";
  case Placement::KernelScope:
    return "move it into a ttl.kernel";
  case Placement::AnyThread:
    return "move it into a ttl.compute_thread or ttl.datamovement_thread";
  case Placement::Compute:
    return "move it into the kernel's ttl.compute_thread";
  case Placement::DataMovement:
    return "move it into a ttl.datamovement_thread";
  case Placement::TtLangThread:
    return "it is tt-lang's op: put it in a func.func with ttl.kernel_thread "
           "(docs/ttlang-interop.md)";
  case Placement::Anywhere:
    break;
  }
  return "";
}

bool placedWell(const Operation& op, Placement placement) {
  const Operation* parent = op.parentOp();
  const Operation* thread = enclosingThread(op);
  switch (placement) {
  case Placement::Anywhere:
    return true;
  case Placement::ModuleBody:
    return parent && parent->isa("builtin.module");
  case Placement::KernelBody:
    return parent && parent->isa("ttl.kernel");
  case Placement::KernelScope:
    return op.ancestor("ttl.kernel") != nullptr;
  case Placement::AnyThread:
    return thread != nullptr;
  case Placement::Compute:
    return thread && thread->isa("ttl.compute_thread");
  case Placement::DataMovement:
    return thread && thread->isa("ttl.datamovement_thread");
  case Placement::TtLangThread: {
    const Operation* func = op.ancestor("func.func");
    return func && func->hasAttribute("ttl.kernel_thread");
  }
  }
  return true;
}

void checkPlacement(const Operation& op, DiagnosticEngine& diags) {
  const OpDef* def = op.def();
  if (!def || placedWell(op, def->placement)) return;
  auto d = diags.error(op.location(),
                       fmt::format("'{}' must be in {}; {}", op.name(), toString(def->placement),
                                   placementHint(def->placement)));
  // Point at what the op is in now, when that explains the mistake (the wrong thread kind).
  if (Operation* thread = enclosingThread(op))
    d.note(thread->location(), fmt::format("it is inside this '{}'", thread->name()));
  else if (Operation* parent = op.parentOp(); parent && !parent->isa("builtin.module"))
    d.note(parent->location(), fmt::format("it is inside this '{}'", parent->name()));
}

void checkThreadCounts(Operation& kernel, DiagnosticEngine& diags) {
  Operation* firstCompute = nullptr;
  std::vector<Operation*> movers;
  for (Operation* thread : threadsOf(kernel)) {
    if (thread->isa("ttl.compute_thread")) {
      if (firstCompute)
        diags
            .error(thread->location(), "a kernel has at most one ttl.compute_thread; merge the "
                                       "compute work into the first one")
            .note(firstCompute->location(), "the first ttl.compute_thread is here");
      else
        firstCompute = thread;
      continue;
    }
    movers.push_back(thread);
    if (movers.size() == 3)
      diags
          .error(thread->location(), "a kernel has at most two ttl.datamovement_thread (one per "
                                     "NOC); merge this one into another")
          .note(movers[0]->location(), "the first ttl.datamovement_thread is here");
  }
}

// The closest enclosing ttl.if_src or ttl.if_dst region op whose pipe operand is `pipe`: the role
// the code runs in. A loopback core is both, so an if_src nested in an if_dst (tt-lang's
// test_broadcast_2d.py sends from inside its receive callback) sends.
Operation* pipeRole(const Operation& op, const Value* pipe) {
  for (Operation* p = op.parentOp(); p; p = p->parentOp())
    if ((p->isa("ttl.if_src") || p->isa("ttl.if_dst")) && p->numOperands() == 1 &&
        p->operand(0) == pipe)
      return p;
  return nullptr;
}

void checkPipeCopy(const Operation& copy, DiagnosticEngine& diags) {
  bool sends = isKind(copy.operand(1)->type(), TypeKind::Pipe);
  bool receives = isKind(copy.operand(0)->type(), TypeKind::Pipe);
  if (sends && receives) {
    diags.error(copy.location(), "ttl.copy between two pipes is not supported; receive into a "
                                 "CB view, then send from it");
    return;
  }
  if (!sends && !receives) return;
  const Value* pipe = copy.operand(sends ? 1 : 0);
  std::string_view own = sends ? "ttl.if_src" : "ttl.if_dst";
  std::string_view other = sends ? "ttl.if_dst" : "ttl.if_src";
  Operation* role = pipeRole(copy, pipe);
  if (Operation* wrong = role && role->isa(other) ? role : nullptr) {
    diags
        .error(copy.location(),
               fmt::format("{} on pipe {} inside '{}' of the same pipe; {}",
                           sends ? "send" : "receive", describe(pipe), other,
                           sends ? "only the source core sends: move it into ttl.if_src"
                                 : "only destination cores receive: move it into ttl.if_dst"))
        .note(wrong->location(), fmt::format("the '{}' region is here", other));
    return;
  }
  if (!role) {
    auto d = diags.error(copy.location(),
                         fmt::format("{} on pipe {} must be inside '{} {}' so that it runs only "
                                     "on the pipe's {} core(s)",
                                     sends ? "send" : "receive", describe(pipe), own,
                                     describe(pipe), sends ? "source" : "destination"));
    if (const Operation* def = pipe->definingOp())
      d.note(def->location(), "the pipe is created here");
  }
}

void checkPipeRegionOperand(const Operation& op, DiagnosticEngine& diags) {
  if (isKind(op.operand(0)->type(), TypeKind::Pipe)) return;
  diags.error(op.location(), fmt::format("'{}' needs a !ttl.pipe operand, got {}", op.name(),
                                         op.operand(0)->type() ? op.operand(0)->type().str()
                                                               : "an untyped value"));
}

} // namespace

/// Kernels, functions and other symbols of one block share one namespace, as in an MLIR symbol
/// table (knobs have theirs: VerifyParams.cpp).
void checkSymbolNames(Operation& op, DiagnosticEngine& diags) {
  for (size_t r = 0; r < op.numRegions(); ++r)
    for (const auto& block : op.region(r).blocks()) {
      std::map<std::string, const Operation*> seen;
      for (const auto& inner : block->operations()) {
        Attribute name = inner->attribute("sym_name");
        if (!name.is(AttrKind::String) || inner->isa("ttl.param")) continue;
        auto [it, fresh] = seen.emplace(name.stringValue(), inner.get());
        if (fresh) continue;
        diags
            .error(inner->location(),
                   fmt::format("redefinition of symbol @{}: {} already defines it; rename one",
                               name.stringValue(), it->second->name()))
            .note(it->second->location(), fmt::format("@{} is defined here", name.stringValue()));
      }
    }
}

// tt-lang's loops that carry values, and scf.while, are read and printed; a ttl.kernel's threads
// are planned, costed and emitted from loops that count with their induction variable only.
void checkKernelControlFlow(const Operation& op, DiagnosticEngine& diags) {
  bool carries = (op.isa("scf.for") || op.isa("scf.if")) && op.numResults() > 0;
  if ((!carries && !op.isa("scf.while")) || !op.ancestor("ttl.kernel")) return;
  const char* what = op.isa("scf.while") ? "(a loop of unknown trip count)"
                     : op.isa("scf.for") ? "with loop-carried values (iter_args)"
                                         : "with results";
  diags.error(op.location(),
              fmt::format("'{}' {} is not planned in a ttl.kernel: ttlplan plans loops that count "
                          "with their induction variable and conditionals without results; "
                          "compute the value from the induction variable, or store it in a CB",
                          op.name(), what));
}

void verifyStructure(Module& module, DiagnosticEngine& diags) {
  module.op->walk([&](Operation* op) {
    checkSymbolNames(*op, diags);
    checkCounts(*op, diags);
    checkPlacement(*op, diags);
    if (!hasValidCounts(*op)) return;
    checkKernelControlFlow(*op, diags);
    if (op->isa("ttl.copy")) checkPipeCopy(*op, diags);
    if (op->isa("ttl.if_src") || op->isa("ttl.if_dst")) checkPipeRegionOperand(*op, diags);
    if (op->isa("ttl.kernel")) {
      checkThreadCounts(*op, diags);
      // The custom form always has a name; a generic one may not (fuzz_plan found one without).
      if (!op->attribute("sym_name").is(AttrKind::String))
        diags.error(op->location(), "ttl.kernel needs a name: sym_name = \"NAME\" (the custom "
                                    "form's `ttl.kernel @NAME`)");
    }
  });
}

} // namespace ttlplan::ir::detail
