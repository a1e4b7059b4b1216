// Knobs: `ttl.param` declarations, every `@name` used in a type, a ttl attribute or
// `ttl.param_value`, and `ttl.require`: its condition is i1, and some binding of the knobs it
// depends on (searched exhaustively up to kMaxBindings) satisfies it, alone and together with the
// kernel's other requirements.
#include "ttlplan/ir/Attributes.h"
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/VerifierDetail.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace ttlplan::ir::detail {

namespace {

// Larger spaces are not searched: the check is skipped rather than made slow.
constexpr uint64_t kMaxBindings = 100000;

// ---- declarations -------------------------------------------------------------------------

void checkListValues(const Operation& op, const std::string& name, DiagnosticEngine& diags) {
  Attribute values = op.attribute("values");
  if (!values.is(AttrKind::Array) || values.elements().empty())
    return (void)diags.error(op.location(), fmt::format("knob @{} needs a non-empty list of "
                                                        "values, like [1, 2, 4] or [bf16, bfp8_b]",
                                                        name));
  std::set<std::string> seen;
  bool symbols = values.elements().front().is(AttrKind::String);
  for (const Attribute& v : values.elements()) {
    if (v.is(AttrKind::String) != symbols)
      return (void)diags.error(op.location(), fmt::format("knob @{} mixes integers and symbols; "
                                                          "its values must all be integers or all "
                                                          "symbols",
                                                          name));
    if (!symbols && (!v.is(AttrKind::Integer) || v.intValue() < 0))
      return (void)diags.error(op.location(), fmt::format("knob @{} values must be integers >= 0 "
                                                          "or symbols, got {}",
                                                          name, v.str()));
    std::string text = symbols ? v.stringValue() : std::to_string(v.intValue());
    if (!seen.insert(text).second)
      return (void)diags.error(op.location(), fmt::format("knob @{} lists the value {} twice; "
                                                          "values must be distinct",
                                                          name, text));
  }
}

/// A computed domain (range, divisors) reads knobs declared before it; when it reads none it is
/// evaluated here: it must evaluate, and a searched knob's must be small enough to list and not
/// empty.
void checkComputedDomain(const Param& p, const std::vector<Param>& params, size_t index,
                         DiagnosticEngine& diags) {
  std::set<std::string> reads;
  p.domain.collectKnobs(reads);
  // An unknown or symbol knob is reported where references are checked.
  for (const std::string& k : reads) {
    const Param* q = findParam(params, k);
    size_t at = q ? size_t(q - params.data()) : 0;
    if (!q || at < index) continue;
    diags
        .error(p.op->location(),
               fmt::format("the domain of @{}, {}, reads @{}, which is {}; a domain may read "
                           "only knobs declared before it (declare @{} first)",
                           p.name, p.domain.str(), k, at == index ? "itself" : "declared after it",
                           k))
        .note(q->op->location(), fmt::format("@{} is declared here", k));
  }
  if (!reads.empty()) return;
  // Nothing to bind: evaluate it now. A problem knob is never listed, so its size is free.
  if (p.problem) {
    if (Expected<bool> ok = p.domain.contains(KnobValue(int64_t(0)), {}); !ok)
      diags.error(p.op->location(), fmt::format("knob @{}: {}", p.name, ok.error().message));
    return;
  }
  Expected<std::vector<KnobValue>> values = p.domain.values({});
  if (!values)
    diags.error(p.op->location(), fmt::format("knob @{}: {}", p.name, values.error().message));
  else if (values->empty())
    diags.error(p.op->location(), fmt::format("the domain of @{}, {}, is empty; give it at least "
                                              "one value",
                                              p.name, p.domain.str()));
}

void checkProblemAttribute(const Param& p, DiagnosticEngine& diags) {
  Attribute a = p.op->attribute("problem");
  if (a && !a.is(AttrKind::Unit) && !a.is(AttrKind::Bool))
    diags.error(p.op->location(), fmt::format("the problem attribute of @{} takes no value: "
                                              "write {{problem}}",
                                              p.name));
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
    checkProblemAttribute(p, diags);
    Expected<KnobDomain> domain = KnobDomain::fromAttributes(
        p.op->attribute("values"), p.op->attribute("range"), p.op->attribute("divisors"));
    if (!domain)
      diags.error(p.op->location(), fmt::format("knob @{}: {}", p.name, domain.error().message));
    else if (domain->kind() == KnobDomain::Kind::List)
      checkListValues(*p.op, p.name, diags);
    else
      checkComputedDomain(p, params, i, diags);
  }
}

// ---- references ---------------------------------------------------------------------------

/// What a use of a knob needs its values to be.
enum class Need { Integer, DataType, Fidelity, ZeroOrOne };

using Uses = std::map<std::string, std::set<Need>>;

void typeKnobs(const Type& type, Uses& out) {
  if (!type || !type.hasParams()) return;
  std::set<std::string> ints;
  for (const Dim& d : type.shape())
    d.collectKnobs(ints);
  if (type.is(TypeKind::CircularBuffer)) type.depth().collectKnobs(ints);
  for (const std::string& k : ints)
    out[k].insert(Need::Integer);
  if (type.is(TypeKind::Tile) && !type.tileDataTypeKnob().empty())
    out[type.tileDataTypeKnob()].insert(Need::DataType);
  if (type.is(TypeKind::Knob)) out[type.knobName()].insert(Need::DataType);
  typeKnobs(type.elementType(), out);
  if (type.is(TypeKind::Function)) {
    for (const Type& t : type.inputs())
      typeKnobs(t, out);
    for (const Type& t : type.results())
      typeKnobs(t, out);
  }
}

void attributeKnobs(const Attribute& attr, Need need, Uses& out) {
  if (attr.is(AttrKind::SymbolRef)) out[attr.stringValue()].insert(need);
  if (attr.is(AttrKind::KnobExpr)) {
    std::set<std::string> ints;
    attr.exprValue().collectKnobs(ints);
    for (const std::string& k : ints)
      out[k].insert(Need::Integer);
  }
  if (attr.is(AttrKind::Array))
    for (const Attribute& e : attr.elements())
      attributeKnobs(e, need, out);
}

// Knob names an op refers to and what each use needs: in the types it defines and, for ttl ops,
// in its attributes (symbol references in other dialects may name functions, not knobs).
Uses referencedKnobs(Operation& op) {
  Uses out;
  for (const Value* r : op.results())
    typeKnobs(r->type(), out);
  for (size_t i = 0; i < op.numRegions(); ++i)
    for (auto& block : op.region(i).blocks())
      for (const Value* a : block->arguments())
        typeKnobs(a->type(), out);
  if (op.dialect() == "ttl")
    for (const NamedAttribute& a : op.attributes()) {
      if (a.name == "sym_name" || a.name == "callee") continue;
      Need need = a.name == "math_fidelity"   ? Need::Fidelity
                  : a.name == "fp32_dest_acc" ? Need::ZeroOrOne
                                              : Need::Integer;
      attributeKnobs(a.value, need, out);
    }
  return out;
}

/// The first value of `p` that `need` rejects, or empty when all fit.
std::string misfit(const Param& p, Need need) {
  if (p.domain.kind() != KnobDomain::Kind::List) {
    if (need == Need::Integer) return {};
    // A computed domain holds integers: 0 or 1 only where it evaluates to a subset of them.
    Expected<std::vector<KnobValue>> values = p.domain.values({});
    if (need == Need::ZeroOrOne && values &&
        std::all_of(values->begin(), values->end(),
                    [](const KnobValue& v) { return v.integer() == 0 || v.integer() == 1; }))
      return {};
    return p.domain.str();
  }
  for (const KnobValue& v : p.domain.listValues()) {
    bool ok = need == Need::Integer     ? v.isInteger()
              : need == Need::ZeroOrOne ? v.isInteger() && (v.integer() == 0 || v.integer() == 1)
              : need == Need::DataType  ? v.isSymbol() && parseDataType(v.symbol()).has_value()
                                        : v.isSymbol() && isMathFidelity(v.symbol());
    if (!ok) return v.str();
  }
  return {};
}

const char* needText(Need need) {
  switch (need) {
  case Need::Integer:
    return "an integer";
  case Need::ZeroOrOne:
    return "0 or 1 (fp32_dest_acc)";
  case Need::DataType:
    return "a data type (bf16, f32, f16, bfp8_b, bfp4_b, i32, u32)";
  case Need::Fidelity:
    return "a math fidelity (LoFi, HiFi2, HiFi3, HiFi4)";
  }
  return "?";
}

void checkReferences(Module& module, const std::vector<Param>& params, DiagnosticEngine& diags) {
  module.op->walk([&](Operation* op) {
    for (const auto& [name, needs] : referencedKnobs(*op)) {
      const Param* p = findParam(params, name);
      if (!p) {
        diags.error(op->location(), fmt::format("unknown knob @{}; declare it in the module with "
                                                "ttl.param @{} = [...]",
                                                name, name));
        continue;
      }
      for (Need need : needs)
        if (std::string bad = misfit(*p, need); !bad.empty()) {
          diags
              .error(op->location(),
                     fmt::format("knob @{} is used here where {} is needed, but its value {} is "
                                 "not; use a knob whose values fit",
                                 name, needText(need), bad))
              .note(p->op->location(),
                    fmt::format("@{} = {} is declared here", name, p->domain.str()));
          break;
        }
    }
  });
}

/// `math_fidelity` and `fp32_dest_acc` of a kernel: a fixed valid value or a @knob.
void checkKernelMath(Operation& kernel, DiagnosticEngine& diags) {
  Attribute f = kernel.attribute("math_fidelity");
  if (f && !f.is(AttrKind::SymbolRef) &&
      !(f.is(AttrKind::String) && isMathFidelity(f.stringValue())))
    diags.error(kernel.location(), fmt::format("math_fidelity must be \"LoFi\", \"HiFi2\", "
                                               "\"HiFi3\", \"HiFi4\" or a @knob, got {}",
                                               f.str()));
  Attribute a = kernel.attribute("fp32_dest_acc");
  bool ok = !a || a.is(AttrKind::SymbolRef) || a.is(AttrKind::Bool) ||
            (a.is(AttrKind::Integer) && (a.intValue() == 0 || a.intValue() == 1));
  if (!ok)
    diags.error(kernel.location(),
                fmt::format("fp32_dest_acc must be 0, 1 or a @knob, got {}", a.str()));
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
  forEachBinding(knobs, {}, [&](const Binding& binding) {
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
  // Only list domains are searched here (a computed one may be large or read other knobs).
  std::optional<uint64_t> count = countListBindings(knobs, kMaxBindings);
  if (!count || *count == 0 || *count > kMaxBindings) return true; // bad ones reported already
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
  std::optional<uint64_t> count = countListBindings(knobs, kMaxBindings);
  if (!count || *count == 0 || *count > kMaxBindings || satisfiable(conditions, knobs)) return;
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
  for (Operation* kernel : kernelsOf(module)) {
    checkKernelMath(*kernel, diags);
    checkKernelRequires(*kernel, params, diags);
  }
}

} // namespace ttlplan::ir::detail
