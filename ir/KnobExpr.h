#pragma once
// Knob expressions: integer arithmetic over `@knobs` and literals that may stand wherever a knob
// may (type dimensions, `work`/`grid` entries): `+ - * / %`, `ceildiv(a, b)`, `min(a, b)`,
// `max(a, b)` and parentheses. `/` is exact division: a remainder is an error, so
// `tensor<(@M / 32)x...>` states that M is a multiple of 32 (use `ceildiv` to round up).
#include "ttlplan/ir/KnobValue.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace ttlplan::ir {

struct KnobExprNode;

class KnobExpr {
public:
  enum class Op : uint8_t { Int, Knob, Add, Sub, Mul, Div, Rem, CeilDiv, Min, Max };

  KnobExpr() = default; ///< the null expression
  static KnobExpr integer(int64_t value);
  static KnobExpr knob(std::string name);
  static KnobExpr binary(Op op, KnobExpr lhs, KnobExpr rhs);

  explicit operator bool() const { return node_ != nullptr; }
  Op op() const;
  bool isInteger() const { return node_ && op() == Op::Int; }
  bool isKnob() const { return node_ && op() == Op::Knob; }
  int64_t value() const;           ///< Int
  const std::string& name() const; ///< Knob (without '@')
  const KnobExpr& lhs() const;     ///< binary ops
  const KnobExpr& rhs() const;     ///< binary ops
  bool operator==(const KnobExpr& other) const;

  /// Every knob the expression names.
  void collectKnobs(std::set<std::string>& out) const;
  /// The value under `binding`. Errors (messages without location): an unbound knob, a symbol
  /// knob, division or remainder by zero, an inexact `/`, overflow.
  Expected<int64_t> evaluate(const Binding& binding) const;
  /// evaluate(), nullopt on any error.
  std::optional<int64_t> tryEvaluate(const Binding& binding) const;
  /// Custom spelling with the fewest parentheses: `ceildiv(@M, 32 * @per_core_M)`.
  std::string str() const;

private:
  explicit KnobExpr(std::shared_ptr<const KnobExprNode> node) : node_(std::move(node)) {}
  std::shared_ptr<const KnobExprNode> node_;
};

/// Parses a knob expression from `text` starting at `pos`; stops before the first character that
/// cannot continue it (`,`, `]`, `)` of an enclosing list, `x` after `)` in a shape, ...) and
/// leaves `pos` there. On failure returns a null expression and sets `error` and `pos` (the
/// offset of the problem).
KnobExpr parseKnobExpr(std::string_view text, size_t& pos, std::string& error);

} // namespace ttlplan::ir
