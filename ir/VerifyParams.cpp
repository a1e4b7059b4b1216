// Knobs: `ttl.param` declarations, every `@name` used in a type, a ttl attribute or
// `ttl.param_value`, and `ttl.require`: its condition is i1, and some binding of the knobs it
// depends on (searched exhaustively up to kMaxBindings) satisfies it, alone and together with the
// kernel's other requirements.
#include "ir/Attributes.h"
#include "ir/Params.h"
#include "ir/VerifierDetail.h"

#include <fmt/format.h>
#include <set>

namespace ttlplan::ir::detail {

namespace {

// Larger spaces are not searched: the check is skipped rather than made slow.
constexpr uint64_t kMaxBindings = 100000;

// ---- declarations -------------------------------------------------------------------------

void checkParamValues(const Operation& op, const std::string& name, DiagnosticEngine& diags) {
  Attribute values = op.attribute("values");
  if (!values.is(AttrKind::Array) || values.elements().empty())
    return (void)diags.error(op.location(), fmt::format("knob @{} needs a non-empty list of "
                                                        "values, like [1, 2, 4]",
                                                        name));
  std::set<int64_t> seen;
  for (const Attribute& v : values.elements()) {
    if (!v.is(AttrKind::Integer) || v.intValue() <= 0)
      return (void)diags.error(op.location(), fmt::format("knob @{} values must be positive "
                                                          "integers, got {}",
                                                          name, v.str()));
    if (!seen.insert(v.intValue()).second)
      return (void)diags.error(op.location(), fmt::format("knob @{} lists the value {} twice; "
                                                          "values must be distinct",
                                                          name, v.intValue()));
  }
}

void checkDeclarations(const std::vector<Param>& params, DiagnosticEngine& diags) {
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (p.name.empty()) {
      diags.error(p.op->location(), "ttl.param needs a name like @BM");
      continue;
    }
    const Param* first = findParam(params, p.name);
    if (first != &p) {
      diags
          .error(p.op->location(), fmt::format("knob @{} is declared twice; rename or remove "
                                               "one",
                                               p.name))
          .note(first->op->location(), "the first declaration is here");
      continue;
    }
    checkParamValues(*p.op, p.name, diags);
  }
}

// ---- references ---------------------------------------------------------------------------

void typeKnobs(const Type& type, std::set<std::string>& out) {
  if (!type || !type.hasParams()) return;
  for (const Dim& d : type.shape())
    if (d.kind == Dim::Kind::Param) out.insert(d.param);
  if (type.is(TypeKind::CircularBuffer) && type.depth().kind == Dim::Kind::Param)
    out.insert(type.depth().param);
  typeKnobs(type.elementType(), out);
  if (type.is(TypeKind::Function)) {
    for (const Type& t : type.inputs())
      typeKnobs(t, out);
    for (const Type& t : type.results())
      typeKnobs(t, out);
  }
}

void attributeKnobs(const Attribute& attr, std::set<std::string>& out) {
  if (attr.is(AttrKind::SymbolRef)) out.insert(attr.stringValue());
  if (attr.is(AttrKind::Array))
    for (const Attribute& e : attr.elements())
      attributeKnobs(e, out);
}

// Knob names an op refers to: in the types it defines and, for ttl ops, in its attributes
// (symbol references in other dialects may name functions, not knobs).
std::set<std::string> referencedKnobs(Operation& op) {
  std::set<std::string> out;
  for (const Value* r : op.results())
    typeKnobs(r->type(), out);
  for (size_t i = 0; i < op.numRegions(); ++i)
    for (auto& block : op.region(i).blocks())
      for (const Value* a : block->arguments())
        typeKnobs(a->type(), out);
  if (op.dialect() == "ttl")
    for (const NamedAttribute& a : op.attributes())
      if (a.name != "sym_name" && a.name != "callee") attributeKnobs(a.value, out);
  return out;
}

void checkReferences(Module& module, const std::vector<Param>& params, DiagnosticEngine& diags) {
  module.op->walk([&](Operation* op) {
    for (const std::string& name : referencedKnobs(*op))
      if (!findParam(params, name))
        diags.error(op->location(), fmt::format("unknown knob @{}; declare it in the module with "
                                                "ttl.param @{} = [...]",
                                                name, name));
  });
}

// ---- requirements -------------------------------------------------------------------------

bool hasI1Condition(const Operation& require, DiagnosticEngine& diags) {
  Type t = require.operand(0)->type();
  if (t.is(TypeKind::Integer) && t.integerWidth() == 1) return true;
  diags.error(require.location(), fmt::format("ttl.require needs an i1 condition (from "
                                              "arith.cmpi), got {}",
                                              t ? t.str() : "<no type>"));
  return false;
}

// The knobs `conditions` depend on, in declaration order; false when one is undeclared.
bool knobsOf(const std::vector<Operation*>& conditions, const std::vector<Param>& params,
             std::vector<const Param*>& out) {
  std::set<std::string> names;
  for (const Operation* r : conditions)
    collectKnobs(r->operand(0), names);
  for (const std::string& n : names)
    if (!findParam(params, n)) return false;
  for (const Param& p : params)
    if (names.count(p.name) && findParam(params, p.name) == &p) out.push_back(&p);
  return true;
}

std::string knobList(const std::vector<const Param*>& knobs) {
  std::string out;
  for (const Param* p : knobs)
    out += (out.empty() ? "@" : ", @") + p->name;
  return out;
}

// True when some binding may satisfy every requirement (one that does not fold counts as maybe).
bool satisfiable(const std::vector<Operation*>& conditions,
                 const std::vector<const Param*>& knobs) {
  bool found = false;
  forEachBinding(knobs, [&](const Binding& binding) {
    for (const Operation* r : conditions)
      if (foldRequire(*r, binding) == std::optional<bool>(false)) return true;
    found = true;
    return false;
  });
  return found;
}

bool checkRequire(Operation& require, const std::vector<Param>& params, DiagnosticEngine& diags) {
  std::vector<const Param*> knobs;
  if (!knobsOf({&require}, params, knobs)) return false;
  if (knobs.empty()) {
    if (foldRequire(require, {}) != std::optional<bool>(false)) return true;
    diags.error(require.location(), "this requirement is always false; fix the condition or "
                                    "remove the ttl.require");
    return false;
  }
  uint64_t count = countBindings(knobs, kMaxBindings);
  if (count == 0 || count > kMaxBindings) return true; // bad declarations are reported already
  if (satisfiable({&require}, knobs)) return true;
  auto d = diags.error(require.location(), fmt::format("no binding of {} satisfies this "
                                                       "requirement",
                                                       knobList(knobs)));
  for (const Param* p : knobs)
    d.note(p->op->location(), fmt::format("@{} is declared here", p->name));
  return false;
}

void checkKernelRequires(Operation& kernel, const std::vector<Param>& params,
                         DiagnosticEngine& diags) {
  std::vector<Operation*> conditions;
  bool allOk = true;
  kernel.walk([&](Operation* op) {
    if (!op->isa("ttl.require") || !hasValidCounts(*op) || !hasI1Condition(*op, diags)) return;
    conditions.push_back(op);
    allOk = checkRequire(*op, params, diags) && allOk;
  });
  // Each requirement alone can hold; check that they can hold together.
  std::vector<const Param*> knobs;
  if (!allOk || conditions.size() < 2 || !knobsOf(conditions, params, knobs) || knobs.empty())
    return;
  uint64_t count = countBindings(knobs, kMaxBindings);
  if (count == 0 || count > kMaxBindings || satisfiable(conditions, knobs)) return;
  auto d = diags.error(kernel.location(),
                       fmt::format("no binding of {} satisfies all ttl.require of this kernel "
                                   "together",
                                   knobList(knobs)));
  for (const Operation* r : conditions)
    d.note(r->location(), "this requirement is part of the conflict");
}

} // namespace

void verifyParams(Module& module, DiagnosticEngine& diags) {
  std::vector<Param> params = collectParams(module);
  checkDeclarations(params, diags);
  checkReferences(module, params, diags);
  for (Operation* kernel : kernelsOf(module))
    checkKernelRequires(*kernel, params, diags);
}

} // namespace ttlplan::ir::detail
