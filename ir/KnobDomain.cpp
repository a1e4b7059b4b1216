#include "ttlplan/ir/KnobDomain.h"

#include "ttlplan/ir/Attributes.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace ttlplan::ir {

namespace {

/// The evaluated arguments of a computed domain.
struct Arguments {
  int64_t start = 0, stop = 0, step = 1; ///< Range
  int64_t n = 0;                         ///< Divisors
};

/// Number of values of range(start, stop, step) for step >= 1, start >= 0 (no overflow).
uint64_t rangeSize(const Arguments& a) {
  if (a.stop <= a.start) return 0;
  uint64_t span = uint64_t(a.stop) - uint64_t(a.start);
  return (span - 1) / uint64_t(a.step) + 1;
}

std::string valueList(const std::vector<KnobValue>& values) {
  std::string out;
  for (const KnobValue& v : values)
    out += (out.empty() ? "" : ", ") + v.str();
  return "[" + out + "]";
}

/// Reads a knob expression back from an attribute: an integer, a symbol reference (a knob) or a
/// KnobExpr attribute; a null expression otherwise.
KnobExpr exprOf(const Attribute& a) {
  if (a.is(AttrKind::Integer)) return KnobExpr::integer(a.intValue());
  if (a.is(AttrKind::SymbolRef)) return KnobExpr::knob(a.stringValue());
  if (a.is(AttrKind::KnobExpr)) return a.exprValue();
  return KnobExpr();
}

} // namespace

KnobDomain KnobDomain::list(std::vector<KnobValue> values) {
  KnobDomain d;
  d.list_ = std::move(values);
  return d;
}

KnobDomain KnobDomain::range(KnobExpr start, KnobExpr stop, KnobExpr step) {
  KnobDomain d;
  d.kind_ = Kind::Range;
  d.arguments_ = {std::move(start), std::move(stop), std::move(step)};
  return d;
}

KnobDomain KnobDomain::divisors(KnobExpr n) {
  KnobDomain d;
  d.kind_ = Kind::Divisors;
  d.arguments_ = {std::move(n)};
  return d;
}

bool KnobDomain::isSymbolic() const {
  return kind_ == Kind::List && !list_.empty() && list_.front().isSymbol();
}

void KnobDomain::collectKnobs(std::set<std::string>& out) const {
  for (const KnobExpr& e : arguments_)
    e.collectKnobs(out);
}

bool KnobDomain::isDependent() const {
  std::set<std::string> knobs;
  collectKnobs(knobs);
  return !knobs.empty();
}

namespace {

Expected<Arguments> evaluateArguments(const KnobDomain& d, const Binding& binding) {
  Arguments a;
  std::vector<int64_t> v;
  for (const KnobExpr& e : d.arguments()) {
    Expected<int64_t> x = e.evaluate(binding);
    if (!x) return Error{fmt::format("{}: {}", d.str(), x.error().message)};
    v.push_back(*x);
  }
  if (d.kind() == KnobDomain::Kind::Divisors) {
    a.n = v[0];
    if (a.n < 0) return Error{fmt::format("{}: the argument is {}; it must be >= 0", d.str(), a.n)};
    if (a.n > kMaxDivisorsArgument)
      return Error{fmt::format("{}: the argument {} is over the limit of divisors(), 2^40 = {}",
                               d.str(), a.n, kMaxDivisorsArgument)};
    return a;
  }
  a.start = v[0], a.stop = v[1], a.step = v[2];
  if (a.start < 0)
    return Error{fmt::format("{}: the start is {}; knob values must be >= 0", d.str(), a.start)};
  if (a.step < 1) return Error{fmt::format("{}: the step is {}; it must be >= 1", d.str(), a.step)};
  return a;
}

} // namespace

namespace {

/// The divisors of n >= 0 ascending, by trial division up to the square root (n <= 2^40 keeps
/// that to a million steps): the small ones ascending, then their cofactors descending.
std::vector<KnobValue> divisorsOf(int64_t n) {
  std::vector<KnobValue> out, large;
  for (int64_t d = 1; n > 0 && d <= n / d; ++d)
    if (n % d == 0) {
      out.push_back(d);
      if (d != n / d) large.push_back(n / d);
    }
  out.insert(out.end(), large.rbegin(), large.rend());
  return out;
}

} // namespace

Expected<uint64_t> KnobDomain::count(const Binding& binding) const {
  if (kind_ == Kind::List) return uint64_t(list_.size());
  Expected<Arguments> a = evaluateArguments(*this, binding);
  if (!a) return a.error();
  if (kind_ == Kind::Range) return rangeSize(*a);
  return uint64_t(divisorsOf(a->n).size());
}

Expected<std::vector<KnobValue>> KnobDomain::values(const Binding& binding) const {
  if (kind_ == Kind::List) return list_;
  Expected<Arguments> a = evaluateArguments(*this, binding);
  if (!a) return a.error();
  std::vector<KnobValue> out;
  if (kind_ == Kind::Range) {
    uint64_t n = rangeSize(*a);
    if (n > kMaxDomainValues)
      return Error{fmt::format("{} has {} values, more than the {} a searched knob may have; "
                               "narrow it or bind the knob",
                               str(), n, kMaxDomainValues)};
    out.reserve(size_t(n));
    for (uint64_t i = 0; i < n; ++i)
      out.push_back(int64_t(uint64_t(a->start) + i * uint64_t(a->step)));
    return out;
  }
  return divisorsOf(a->n);
}

Expected<bool> KnobDomain::contains(const KnobValue& value, const Binding& binding) const {
  if (kind_ == Kind::List) return std::find(list_.begin(), list_.end(), value) != list_.end();
  Expected<Arguments> a = evaluateArguments(*this, binding);
  if (!a) return a.error();
  if (!value.isInteger()) return false;
  int64_t v = value.integer();
  if (kind_ == Kind::Divisors) return v > 0 && a->n > 0 && a->n % v == 0;
  return v >= a->start && v < a->stop && (v - a->start) % a->step == 0;
}

std::string KnobDomain::str() const {
  switch (kind_) {
  case Kind::List:
    return valueList(list_);
  case Kind::Divisors:
    return "divisors(" + arguments_[0].str() + ")";
  case Kind::Range:
    break;
  }
  const KnobExpr &start = arguments_[0], &stop = arguments_[1], &step = arguments_[2];
  if (step.isInteger() && step.value() == 1) {
    if (start.isInteger() && start.value() == 0) return "range(" + stop.str() + ")";
    return "range(" + start.str() + ", " + stop.str() + ")";
  }
  return "range(" + start.str() + ", " + stop.str() + ", " + step.str() + ")";
}

bool KnobDomain::operator==(const KnobDomain& other) const {
  return kind_ == other.kind_ && list_ == other.list_ && arguments_ == other.arguments_;
}

std::vector<NamedAttribute> KnobDomain::toAttributes() const {
  if (kind_ == Kind::List) {
    std::vector<Attribute> values;
    for (const KnobValue& v : list_)
      values.push_back(v.isSymbol() ? Attribute::string(v.symbol())
                                    : Attribute::integer(v.integer()));
    return {{"values", Attribute::array(std::move(values))}};
  }
  std::vector<Attribute> args;
  for (const KnobExpr& e : arguments_)
    args.push_back(Attribute::knobExpr(e));
  return {{kind_ == Kind::Range ? "range" : "divisors", Attribute::array(std::move(args))}};
}

Expected<KnobDomain> KnobDomain::fromAttributes(const Attribute& values, const Attribute& range,
                                                const Attribute& divisors) {
  if (int(bool(values)) + int(bool(range)) + int(bool(divisors)) != 1)
    return Error{"a knob needs exactly one domain: a list [v0, v1, ...], range(...) or "
                 "divisors(...)"};
  if (values) {
    if (!values.is(AttrKind::Array))
      return Error{"a knob's values must be a list like [1, 2, 4] or [bf16, bfp8_b]"};
    std::vector<KnobValue> items;
    for (const Attribute& v : values.elements()) {
      if (v.is(AttrKind::Integer))
        items.push_back(v.intValue());
      else if (v.is(AttrKind::String))
        items.push_back(KnobValue::symbol(v.stringValue()));
      else
        return Error{fmt::format("knob values must be integers >= 0 or symbols, got {}", v.str())};
    }
    return KnobDomain::list(std::move(items));
  }
  const Attribute& a = range ? range : divisors;
  size_t arity = range ? 3 : 1;
  std::vector<KnobExpr> args;
  if (a.is(AttrKind::Array))
    for (const Attribute& e : a.elements())
      args.push_back(exprOf(e));
  bool ok = args.size() == arity &&
            std::all_of(args.begin(), args.end(), [](const KnobExpr& e) { return bool(e); });
  if (!ok)
    return Error{fmt::format("the {} attribute of a knob must be a list of {} knob expressions",
                             range ? "range" : "divisors", arity)};
  if (range) return KnobDomain::range(args[0], args[1], args[2]);
  return KnobDomain::divisors(args[0]);
}

bool isKnobDomainFunction(std::string_view name) {
  return name == "range" || name == "divisors";
}

KnobDomain parseKnobDomainCall(std::string_view text, size_t& pos, std::string& error) {
  auto skip = [&] {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  };
  auto fail = [&](std::string message) {
    error = std::move(message);
    return KnobDomain();
  };
  size_t begin = pos;
  while (pos < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
    ++pos;
  std::string name(text.substr(begin, pos - begin));
  if (!isKnobDomainFunction(name)) {
    pos = begin;
    return fail("expected range(...) or divisors(...)");
  }
  skip();
  if (pos >= text.size() || text[pos] != '(')
    return fail(fmt::format("expected '(' after {}", name));
  ++pos;
  std::vector<KnobExpr> args;
  for (;;) {
    KnobExpr e = parseKnobExpr(text, pos, error);
    if (!e) return KnobDomain();
    args.push_back(std::move(e));
    skip();
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    break;
  }
  if (pos >= text.size() || text[pos] != ')')
    return fail(fmt::format("expected ',' or ')' in {}(...)", name));
  size_t close = pos;
  if (name == "divisors") {
    if (args.size() != 1) {
      pos = begin;
      return fail(fmt::format("divisors takes one argument (divisors(n)), got {}", args.size()));
    }
    ++pos;
    return KnobDomain::divisors(args[0]);
  }
  if (args.size() > 3) {
    pos = begin;
    return fail(fmt::format("range takes 1 to 3 arguments (range(stop), range(start, stop), "
                            "range(start, stop, step)), got {}",
                            args.size()));
  }
  pos = close + 1;
  if (args.size() == 1)
    return KnobDomain::range(KnobExpr::integer(0), args[0], KnobExpr::integer(1));
  if (args.size() == 2) return KnobDomain::range(args[0], args[1], KnobExpr::integer(1));
  return KnobDomain::range(args[0], args[1], args[2]);
}

} // namespace ttlplan::ir
