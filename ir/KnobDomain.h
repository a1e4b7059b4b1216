#pragma once
// A knob's domain: the values `ttl.param @NAME = DOMAIN` lets a binding give it. A list of
// integers or symbols (`[1, 2, 4]`, `[bf16, bfp8_b]`), or an integer set computed from knob
// expressions, which may read knobs declared before (a dependent domain):
//
//   range(stop)  range(start, stop)  range(start, stop, step)   as Python's range: start, start +
//                                                               step, ... below stop
//   divisors(n)                                                 the positive divisors of n
//
// Domains are evaluated under a binding of the knobs they read. Evaluation never allocates more
// than kMaxDomainValues values and never loops more than about a million times: larger domains
// and arguments are errors that say so (docs/language.md, "Knob domains").
#include "ttlplan/ir/KnobExpr.h"
#include "ttlplan/ir/KnobValue.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir {

class Attribute;
struct NamedAttribute;

/// The most values one evaluated domain may have (a searched knob's domain is listed in memory).
inline constexpr uint64_t kMaxDomainValues = uint64_t(1) << 20;
/// The largest argument of divisors() (its divisors are found by trial division up to the square
/// root, a million steps at most).
inline constexpr int64_t kMaxDivisorsArgument = int64_t(1) << 40;

class KnobDomain {
public:
  enum class Kind : uint8_t {
    List,     ///< the values as written
    Range,    ///< arguments(): start, stop, step
    Divisors, ///< arguments(): n
  };

  /// An empty list (what a malformed declaration reads as; the verifier reports it).
  KnobDomain() = default;
  static KnobDomain list(std::vector<KnobValue> values);
  /// range(start, stop, step).
  static KnobDomain range(KnobExpr start, KnobExpr stop, KnobExpr step);
  /// divisors(n).
  static KnobDomain divisors(KnobExpr n);

  Kind kind() const { return kind_; }
  /// List: the values as written.
  const std::vector<KnobValue>& listValues() const { return list_; }
  /// Range: start, stop, step; Divisors: n.
  const std::vector<KnobExpr>& arguments() const { return arguments_; }

  /// True for a list of symbols (`[bf16, bfp8_b]`); computed domains are integers.
  bool isSymbolic() const;
  /// The knobs the domain's expressions read.
  void collectKnobs(std::set<std::string>& out) const;
  /// True when the domain reads a knob (so its values depend on a binding).
  bool isDependent() const;

  /// The values under `binding` (which binds every knob the domain reads): a list as written,
  /// a range or divisors ascending; possibly empty. Errors (no location; the caller adds it): an
  /// argument that does not evaluate (unbound knob, division by zero, inexact `/`, overflow), a
  /// negative start or divisors argument, a step below 1, divisors() of more than
  /// kMaxDivisorsArgument, more than kMaxDomainValues values.
  Expected<std::vector<KnobValue>> values(const Binding& binding) const;
  /// The number of values under `binding`, without listing them (no kMaxDomainValues limit).
  /// Errors as values() otherwise.
  Expected<uint64_t> count(const Binding& binding) const;
  /// Whether `value` is in the domain under `binding`, without listing it. Errors as values(),
  /// except that a large domain is not one.
  Expected<bool> contains(const KnobValue& value, const Binding& binding) const;

  /// Custom spelling: "[1, 2, 4]", "range(32, 1048577, 32)", "divisors(@K / 32)".
  std::string str() const;
  bool operator==(const KnobDomain& other) const;

  /// The attributes of a `ttl.param` that hold the domain: `values = [..]` for a list,
  /// `range = [start, stop, step]` or `divisors = [n]` (knob expressions) otherwise.
  std::vector<NamedAttribute> toAttributes() const;
  /// The domain a `ttl.param`'s attributes hold, or an Error naming what is malformed.
  static Expected<KnobDomain> fromAttributes(const Attribute& values, const Attribute& range,
                                             const Attribute& divisors);

private:
  Kind kind_ = Kind::List;
  std::vector<KnobValue> list_;
  std::vector<KnobExpr> arguments_;
};

/// The names of the `ttl.param` attributes a domain may be held in.
inline constexpr std::string_view kDomainAttributes[] = {"values", "range", "divisors"};

/// Parses `range(...)` or `divisors(...)` from `text` at `pos` (the function's name), leaving
/// `pos` after the closing parenthesis. On failure returns an empty list domain, sets `error` and
/// leaves `pos` at the problem.
KnobDomain parseKnobDomainCall(std::string_view text, size_t& pos, std::string& error);

/// True when `name` starts a computed domain (`range`, `divisors`).
bool isKnobDomainFunction(std::string_view name);

} // namespace ttlplan::ir
