// Knob bindings for `ttlplan plan`: --bind, or the first binding every ttl.require accepts.
#include "ttlplan/ir/DomainReads.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/support/Deadline.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <set>

namespace ttlplan::lower {

namespace {

std::vector<ir::Operation*> requires_Of(const ir::Module& module) {
  std::vector<ir::Operation*> out;
  module.op->walk([&](ir::Operation* op) {
    if (op->isa(ir::RequireOp::kName)) out.push_back(op);
  });
  return out;
}

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool isSymbol(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// A knob expression and the op that uses it (in a type or an attribute).
struct KnobUse {
  ir::KnobExpr expr;
  ir::Operation* op = nullptr;
};

void typeExprs(const ir::Type& t, ir::Operation* op, std::vector<KnobUse>& out) {
  if (!t || !t.hasParams()) return;
  for (const ir::Dim& d : t.shape())
    if (d.kind == ir::Dim::Kind::Expr) out.push_back({d.expr, op});
  if (t.is(ir::TypeKind::CircularBuffer) && t.depth().kind == ir::Dim::Kind::Expr)
    out.push_back({t.depth().expr, op});
  typeExprs(t.elementType(), op, out);
  if (t.is(ir::TypeKind::Function)) {
    for (const ir::Type& i : t.inputs())
      typeExprs(i, op, out);
    for (const ir::Type& r : t.results())
      typeExprs(r, op, out);
  }
}

void attributeExprs(const ir::Attribute& a, ir::Operation* op, std::vector<KnobUse>& out) {
  if (a.is(ir::AttrKind::KnobExpr)) out.push_back({a.exprValue(), op});
  if (a.is(ir::AttrKind::Array))
    for (const ir::Attribute& e : a.elements())
      attributeExprs(e, op, out);
}

/// Every knob expression in the module: a binding is legal only if they all evaluate (no
/// division by zero, no inexact '/').
std::vector<KnobUse> knobExpressions(const ir::Module& module) {
  std::vector<KnobUse> out;
  module.op->walk([&](ir::Operation* op) {
    for (ir::Value* r : op->results())
      typeExprs(r->type(), op, out);
    for (size_t i = 0; i < op->numRegions(); ++i)
      for (auto& block : op->region(i).blocks())
        for (ir::Value* arg : block->arguments())
          typeExprs(arg->type(), op, out);
    for (const ir::NamedAttribute& a : op->attributes())
      attributeExprs(a.value, op, out);
  });
  return out;
}

} // namespace

namespace {

/// " = [1, 2, 4] under per_core_M=4" for a domain that reads knobs of `binding`, else "".
std::string evaluatedDomain(const ir::Param& p, const ir::Binding& binding) {
  std::set<std::string> reads;
  p.domain.collectKnobs(reads);
  if (reads.empty()) return {};
  ir::Binding used;
  for (const std::string& k : reads)
    if (auto it = binding.find(k); it != binding.end()) used.insert(*it);
  Expected<std::vector<ir::KnobValue>> values = p.domain.values(binding);
  if (!values || values->size() > 16) return fmt::format(" under {}", ir::str(used));
  return fmt::format(" = {} under {}", ir::KnobDomain::list(*values).str(), ir::str(used));
}

} // namespace

Status checkRequested(const std::vector<ir::Param>& params, const ir::Binding& requested) {
  for (const auto& [name, value] : requested) {
    const ir::Param* p = ir::findParam(params, name);
    if (!p) {
      std::string known;
      for (const ir::Param& q : params)
        known += (known.empty() ? "@" : ", @") + q.name;
      return Error{fmt::format("--bind: the module has no knob @{}; its knobs are {}", name,
                               known.empty() ? "none" : known)};
    }
    if (!ir::domainReadsOnly(p->domain, requested))
      continue; // checked with the rest of each binding
    Expected<bool> allowed = p->allows(value, requested);
    if (!allowed)
      return Error{fmt::format("--bind: {}={}: {} ({})", name, value.str(), allowed.error().message,
                               p->op->location().str())};
    if (*allowed) continue;
    std::string kind = value.isSymbol() && !p->isSymbolic()   ? " (a symbol for an integer knob)"
                       : !value.isSymbol() && p->isSymbolic() ? " (an integer for a symbol knob)"
                                                              : "";
    return Error{fmt::format("--bind: {}={} is not a value of @{}{}; its domain is {}{} ({})", name,
                             value.str(), name, kind, p->domain.str(),
                             evaluatedDomain(*p, requested), p->op->location().str())};
  }
  return Status::success();
}

std::string valueName(const ir::Value* value) {
  if (!value) return "%?";
  if (!value->nameHint().empty()) return "%" + value->nameHint();
  if (value->definingOp()) return "%<" + value->definingOp()->name() + ">";
  return "%arg" + std::to_string(value->index());
}

Expected<ir::Binding> parseBindingList(const std::string& text) {
  ir::Binding binding;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item =
        trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) return Error{fmt::format("--bind: '{}' is not NAME=VALUE", item)};
    std::string name = trim(item.substr(0, eq));
    if (!name.empty() && name[0] == '@') name.erase(0, 1);
    std::string text = trim(item.substr(eq + 1));
    if (name.empty() || text.empty())
      return Error{fmt::format("--bind: '{}' is not NAME=VALUE (an integer or a symbol like "
                               "bf16)",
                               item)};
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && ptr == text.data() + text.size()) {
      binding[name] = value;
    } else if (isSymbol(text)) {
      binding[name] = ir::KnobValue::symbol(text);
    } else {
      return Error{fmt::format("--bind: '{}' is not NAME=VALUE with an integer or a symbol "
                               "VALUE",
                               item)};
    }
  }
  return binding;
}

BindingChecker::BindingChecker(const ir::Module& module) : requires_(requires_Of(module)) {
  for (ir::Param& p : ir::collectParams(module))
    if (p.domain.isDependent()) dependent_.push_back(std::move(p));
  // The conditions compiled once: the tuner checks every point of a space against them.
  std::vector<const ir::Value*> conditions;
  for (ir::Operation* r : requires_)
    conditions.push_back(r->numOperands() == 1 ? r->operand(0) : nullptr);
  conditions_ = ir::CompiledValues(conditions, nullptr);
  for (KnobUse& use : knobExpressions(module))
    exprs_.push_back({std::move(use.expr), use.op});
}

void BindingChecker::trustDomainsOf(const std::set<std::string>& knobs) {
  for (const ir::Param& p : dependent_)
    trusted_.push_back(knobs.count(p.name) != 0);
}

std::optional<BindingFailure> BindingChecker::checkDomains(const ir::Binding& binding) const {
  for (size_t i = 0; i < dependent_.size(); ++i) {
    const ir::Param& p = dependent_[i];
    auto it = binding.find(p.name);
    std::string problem;
    if (it != binding.end() && i < trusted_.size() && trusted_[i]) continue;
    if (it != binding.end()) {
      Expected<bool> allowed = p.allows(it->second, binding);
      if (!allowed)
        problem = allowed.error().message;
      else if (!*allowed)
        problem = fmt::format("{}={} is not in the domain of @{}, {}{}", p.name, it->second.str(),
                              p.name, p.domain.str(), evaluatedDomain(p, binding));
    } else {
      Expected<std::vector<ir::KnobValue>> values = p.values(binding);
      if (!values)
        problem = values.error().message;
      else if (values->empty())
        problem = fmt::format("the domain of @{}, {}, is empty{}", p.name, p.domain.str(),
                              evaluatedDomain(p, binding));
    }
    if (problem.empty()) continue;
    BindingFailure f;
    f.reason = "domain";
    f.location = p.op->location().str();
    f.message = fmt::format("{}: error: {}", f.location, problem);
    std::set<std::string> knobs{p.name};
    p.domain.collectKnobs(knobs);
    f.knobs.assign(knobs.begin(), knobs.end());
    return f;
  }
  return std::nullopt;
}

std::optional<BindingFailure> BindingChecker::check(const ir::Binding& binding) const {
  if (!dependent_.empty())
    if (std::optional<BindingFailure> f = checkDomains(binding)) return f;
  std::vector<std::optional<int64_t>> values;
  conditions_.run(conditions_.knobValues(binding), {}, values);
  for (size_t i = 0; i < requires_.size(); ++i) {
    if (values[i] && (*values[i] & 1) != 0) continue; // an i1: as ir::foldRequire reads it
    ir::Operation* r = requires_[i];
    BindingFailure f;
    f.reason = "require";
    f.location = r->location().str();
    f.message = fmt::format("{}: error: ttl.require does not hold", f.location);
    std::set<std::string> knobs;
    for (const ir::Value* operand : r->operands())
      ir::collectKnobs(operand, knobs);
    f.knobs.assign(knobs.begin(), knobs.end());
    return f;
  }
  for (const auto& [expr, op] : exprs_)
    if (Expected<int64_t> v = expr.evaluate(binding); !v) {
      BindingFailure f;
      f.reason = "knob-expression";
      f.location = op->location().str();
      f.message = fmt::format("{}: error: {}", f.location, v.error().message);
      std::set<std::string> knobs;
      expr.collectKnobs(knobs);
      f.knobs.assign(knobs.begin(), knobs.end());
      return f;
    }
  return std::nullopt;
}

Expected<ChosenBinding> chooseBinding(const ir::Module& module,
                                      const std::optional<ir::Binding>& requested,
                                      const planner::SolveLimits& limits) {
  std::vector<ir::Param> params = ir::collectParams(module);
  BindingChecker checker(module);
  // The first reason `b` is not legal (a ttl.require or a knob expression), or empty.
  auto failing = [&](const ir::Binding& b) -> std::string {
    std::optional<BindingFailure> f = checker.check(b);
    return f ? f->message : std::string();
  };
  ir::Binding fixed = requested ? *requested : ir::Binding{};
  if (Status s = checkRequested(params, fixed); !s) return s.error();
  if (Status s = ir::checkProblemKnobsBound(params, fixed); !s) return s.error();
  std::vector<const ir::Param*> knobs;
  for (const ir::Param& p : params)
    if (!fixed.count(p.name) && std::none_of(knobs.begin(), knobs.end(),
                                             [&](const ir::Param* k) { return k->name == p.name; }))
      knobs.push_back(&p);
  if (knobs.empty()) {
    if (std::string bad = failing(fixed); !bad.empty())
      return Error{requested ? bad + " under the --bind binding" : bad};
    if (params.empty()) return ChosenBinding{{}, "none (the module has no knobs)"};
    return ChosenBinding{fixed, "--bind"};
  }
  std::optional<ir::Binding> found;
  int64_t checked = 0;
  bool timeUp = false;
  const Deadline deadline = Deadline::in(limits.timeLimitSeconds);
  (void)ir::forEachBinding(knobs, fixed, [&](const ir::Binding& all) {
    if (failing(all).empty()) {
      found = all;
      return false;
    }
    timeUp = (++checked & 255) == 0 && deadline.passed();
    return checked < kMaxBindingsChecked && !timeUp;
  });
  if (!found && (checked >= kMaxBindingsChecked || timeUp))
    return Error{fmt::format(
        "none of the first {} bindings of the {} {}knobs satisfies every "
        "ttl.require and knob expression{}{}; bind more knobs (--bind) or "
        "search the space with `ttlplan tune`",
        checked, knobs.size(), fixed.empty() ? "" : "free ",
        fixed.empty() ? "" : " with --bind " + ir::str(fixed),
        timeUp ? fmt::format(" (checked in the {} s time limit)", limits.timeLimitSeconds) : "")};
  if (!found)
    return Error{fmt::format("no binding of the {} {}knobs satisfies every ttl.require and knob "
                             "expression{}",
                             knobs.size(), fixed.empty() ? "" : "free ",
                             fixed.empty() ? "" : " with --bind " + ir::str(fixed))};
  if (fixed.empty()) return ChosenBinding{*found, "first binding satisfying every ttl.require"};
  return ChosenBinding{*found, "--bind, then the first binding of the other knobs satisfying "
                               "every ttl.require"};
}

size_t countUnbound(const std::vector<ir::Param>& params, const ir::Binding& fixed) {
  std::set<std::string> names;
  for (const ir::Param& p : params)
    if (!fixed.count(p.name)) names.insert(p.name);
  return names.size();
}

} // namespace ttlplan::lower
