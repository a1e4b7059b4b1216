#include "ttlplan/ir/KnobExpr.h"

#include "ttlplan/support/Checked.h"

#include <cctype>
#include <fmt/format.h>

namespace ttlplan::ir {

struct KnobExprNode {
  KnobExpr::Op op = KnobExpr::Op::Int;
  int64_t value = 0;
  std::string name;
  KnobExpr lhs, rhs;
};

namespace {

using Op = KnobExpr::Op;

constexpr int kMaxDepth = 200; // parentheses deeper than this are reported, not recursed into

const char* spelling(Op op) {
  switch (op) {
  case Op::Add:
    return "+";
  case Op::Sub:
    return "-";
  case Op::Mul:
    return "*";
  case Op::Div:
    return "/";
  case Op::Rem:
    return "%";
  case Op::CeilDiv:
    return "ceildiv";
  case Op::Min:
    return "min";
  case Op::Max:
    return "max";
  default:
    return "?";
  }
}

int precedence(Op op) {
  switch (op) {
  case Op::Add:
  case Op::Sub:
    return 1;
  case Op::Mul:
  case Op::Div:
  case Op::Rem:
    return 2;
  default:
    return 3;
  }
}

Expected<int64_t> apply(Op op, int64_t a, int64_t b, const KnobExpr& e) {
  auto overflow = [&] { return Error{fmt::format("{} overflows 64 bits", e.str())}; };
  auto checked = [&](std::optional<int64_t> r) -> Expected<int64_t> {
    if (!r) return overflow();
    return *r;
  };
  switch (op) {
  case Op::Add:
    return checked(checkedAdd(a, b));
  case Op::Sub:
    return checked(checkedSub(a, b));
  case Op::Mul:
    return checked(checkedMul(a, b));
  case Op::Min:
    return std::min(a, b);
  case Op::Max:
    return std::max(a, b);
  default:
    break;
  }
  if (b == 0)
    return Error{
        fmt::format("division by zero in {} (the divisor {} is 0)", e.str(), e.rhs().str())};
  if (a == INT64_MIN && b == -1) return overflow();
  if (op == Op::Rem) return a % b;
  if (op == Op::Div && a % b != 0)
    return Error{fmt::format("{} is not an integer ({} / {}); '/' must divide exactly, use "
                             "ceildiv to round up",
                             e.str(), a, b)};
  int64_t q = a / b;
  if (op == Op::CeilDiv && a % b != 0 && ((a < 0) == (b < 0))) ++q;
  return q;
}

Expected<int64_t> evaluateAt(const KnobExpr& e, const Binding& binding) {
  switch (e.op()) {
  case Op::Int:
    return e.value();
  case Op::Knob: {
    auto it = binding.find(e.name());
    if (it == binding.end()) return Error{fmt::format("knob @{} has no value", e.name())};
    if (!it->second.isInteger())
      return Error{fmt::format("knob @{} is the symbol {} where an integer is needed", e.name(),
                               it->second.symbol())};
    return it->second.integer();
  }
  default:
    break;
  }
  Expected<int64_t> a = evaluateAt(e.lhs(), binding);
  if (!a) return a;
  Expected<int64_t> b = evaluateAt(e.rhs(), binding);
  if (!b) return b;
  return apply(e.op(), *a, *b, e);
}

/// Recursive descent over characters: expr := term (+|- term)*, term := atom (*|/|% atom)*.
class ExprParser {
public:
  ExprParser(std::string_view text, size_t& pos, std::string& error)
      : s_(text), p_(pos), error_(error) {}

  KnobExpr expr(int depth) {
    KnobExpr lhs = term(depth);
    for (;;) {
      if (!lhs) return lhs;
      size_t save = p_;
      skip();
      Op op;
      if (peek('+'))
        op = Op::Add;
      else if (peek('-') && next() != '>')
        op = Op::Sub;
      else
        return restore(save, lhs);
      ++p_;
      KnobExpr rhs = term(depth);
      if (!rhs) return rhs;
      lhs = KnobExpr::binary(op, lhs, rhs);
    }
  }

private:
  KnobExpr term(int depth) {
    KnobExpr lhs = atom(depth);
    for (;;) {
      if (!lhs) return lhs;
      size_t save = p_;
      skip();
      Op op;
      if (peek('*'))
        op = Op::Mul;
      else if (peek('/') && next() != '/')
        op = Op::Div;
      else if (peek('%') && (next() == ' ' || next() == '\t' || next() == '(' || next() == '@'))
        op = Op::Rem; // `%name` is an SSA value, so the remainder needs a space after it
      else
        return restore(save, lhs);
      ++p_;
      KnobExpr rhs = atom(depth);
      if (!rhs) return rhs;
      lhs = KnobExpr::binary(op, lhs, rhs);
    }
  }

  KnobExpr atom(int depth) {
    skip();
    if (depth > kMaxDepth) return fail("knob expression nested too deeply");
    size_t start = p_;
    if (p_ < s_.size() && std::isdigit(uc(s_[p_]))) {
      int64_t v = 0;
      while (p_ < s_.size() && std::isdigit(uc(s_[p_]))) {
        std::optional<int64_t> next = checkedMul(v, 10);
        if (next) next = checkedAdd(*next, s_[p_] - '0');
        if (!next) {
          p_ = start;
          return fail("integer does not fit in 64 bits");
        }
        v = *next;
        ++p_;
      }
      return KnobExpr::integer(v);
    }
    if (peek('@')) {
      ++p_;
      std::string name = identifier();
      if (name.empty()) return fail("expected a knob name after '@'");
      return KnobExpr::knob(std::move(name));
    }
    if (peek('(')) {
      ++p_;
      KnobExpr inner = expr(depth + 1);
      if (!inner) return inner;
      skip();
      if (!peek(')')) return fail("expected ')' to close the parenthesis in a knob expression");
      ++p_;
      return inner;
    }
    return call(depth, start);
  }

  KnobExpr call(int depth, size_t start) {
    std::string word = identifier();
    Op op = word == "ceildiv" ? Op::CeilDiv
            : word == "min"   ? Op::Min
            : word == "max"   ? Op::Max
                              : Op::Int;
    if (op == Op::Int) {
      p_ = start;
      return fail("expected an integer, a @knob, '(' or ceildiv/min/max in a knob expression");
    }
    skip();
    if (!peek('(')) return fail(fmt::format("expected '(' after '{}'", word));
    ++p_;
    KnobExpr a = expr(depth + 1);
    if (!a) return a;
    skip();
    if (!peek(',')) return fail(fmt::format("expected ',' between the arguments of {}", word));
    ++p_;
    KnobExpr b = expr(depth + 1);
    if (!b) return b;
    skip();
    if (!peek(')')) return fail(fmt::format("expected ')' to close {}(...)", word));
    ++p_;
    return KnobExpr::binary(op, a, b);
  }

  static unsigned char uc(char c) { return static_cast<unsigned char>(c); }
  bool peek(char c) const { return p_ < s_.size() && s_[p_] == c; }
  char next() const { return p_ + 1 < s_.size() ? s_[p_ + 1] : '\0'; }
  std::string identifier() {
    size_t b = p_;
    while (p_ < s_.size() && (std::isalnum(uc(s_[p_])) || s_[p_] == '_'))
      ++p_;
    return std::string(s_.substr(b, p_ - b));
  }
  /// Whitespace and `//` comments.
  void skip() {
    for (;;) {
      while (p_ < s_.size() && std::isspace(uc(s_[p_])))
        ++p_;
      if (!(peek('/') && next() == '/')) return;
      while (p_ < s_.size() && s_[p_] != '\n')
        ++p_;
    }
  }
  KnobExpr restore(size_t save, KnobExpr e) {
    p_ = save;
    return e;
  }
  KnobExpr fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return KnobExpr();
  }

  std::string_view s_;
  size_t& p_;
  std::string& error_;
};

void print(std::string& out, const KnobExpr& e) {
  switch (e.op()) {
  case Op::Int:
    out += std::to_string(e.value());
    return;
  case Op::Knob:
    out += "@" + e.name();
    return;
  case Op::CeilDiv:
  case Op::Min:
  case Op::Max:
    out += spelling(e.op());
    out += "(";
    print(out, e.lhs());
    out += ", ";
    print(out, e.rhs());
    out += ")";
    return;
  default:
    break;
  }
  int p = precedence(e.op());
  bool left = precedence(e.lhs().op()) < p, right = precedence(e.rhs().op()) <= p;
  out += left ? "(" : "";
  print(out, e.lhs());
  out += left ? ")" : "";
  out += fmt::format(" {} ", spelling(e.op()));
  out += right ? "(" : "";
  print(out, e.rhs());
  out += right ? ")" : "";
}

} // namespace

KnobExpr KnobExpr::integer(int64_t value) {
  auto n = std::make_shared<KnobExprNode>();
  n->op = Op::Int;
  n->value = value;
  return KnobExpr(std::move(n));
}
KnobExpr KnobExpr::knob(std::string name) {
  auto n = std::make_shared<KnobExprNode>();
  n->op = Op::Knob;
  n->name = std::move(name);
  return KnobExpr(std::move(n));
}
KnobExpr KnobExpr::binary(Op op, KnobExpr lhs, KnobExpr rhs) {
  auto n = std::make_shared<KnobExprNode>();
  n->op = op;
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  return KnobExpr(std::move(n));
}

KnobExpr::Op KnobExpr::op() const {
  return node_->op;
}
int64_t KnobExpr::value() const {
  return node_->value;
}
const std::string& KnobExpr::name() const {
  return node_->name;
}
const KnobExpr& KnobExpr::lhs() const {
  return node_->lhs;
}
const KnobExpr& KnobExpr::rhs() const {
  return node_->rhs;
}

bool KnobExpr::operator==(const KnobExpr& other) const {
  if (node_ == other.node_) return true;
  if (!node_ || !other.node_) return false;
  const KnobExprNode &a = *node_, &b = *other.node_;
  return a.op == b.op && a.value == b.value && a.name == b.name && a.lhs == b.lhs && a.rhs == b.rhs;
}

void KnobExpr::collectKnobs(std::set<std::string>& out) const {
  if (!node_) return;
  if (op() == Op::Knob) out.insert(name());
  node_->lhs.collectKnobs(out);
  node_->rhs.collectKnobs(out);
}

Expected<int64_t> KnobExpr::evaluate(const Binding& binding) const {
  if (!node_) return Error{"empty knob expression"};
  return evaluateAt(*this, binding);
}

std::optional<int64_t> KnobExpr::tryEvaluate(const Binding& binding) const {
  Expected<int64_t> v = evaluate(binding);
  if (!v) return std::nullopt;
  return *v;
}

std::string KnobExpr::str() const {
  std::string out;
  if (node_) print(out, *this);
  return out;
}

KnobExpr parseKnobExpr(std::string_view text, size_t& pos, std::string& error) {
  error.clear();
  ExprParser parser(text, pos, error);
  return parser.expr(0);
}

} // namespace ttlplan::ir
