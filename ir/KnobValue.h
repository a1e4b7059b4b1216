#pragma once
// The value of a `ttl.param` knob: an integer (`@BM = [1, 2, 4]`) or a symbol
// (`@DTYPE = [bf16, bfp8_b]`, `@FIDELITY = [LoFi, HiFi4]`), and a binding of knobs to values.
#include <compare>
#include <cstdint>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace ttlplan::ir {

class KnobValue {
public:
  /// An integer value; implicit so that `Binding{{"BM", 2}}` and `binding[k] = 4` keep working.
  KnobValue(int64_t value = 0) : integer_(value) {}
  KnobValue(int value) : integer_(value) {}
  static KnobValue symbol(std::string name) {
    KnobValue v;
    v.isSymbol_ = true;
    v.symbol_ = std::move(name);
    return v;
  }

  bool isInteger() const { return !isSymbol_; }
  bool isSymbol() const { return isSymbol_; }
  /// The integer; 0 for a symbol (check isInteger() first).
  int64_t integer() const { return isSymbol_ ? 0 : integer_; }
  /// The symbol's name; empty for an integer.
  const std::string& symbol() const { return symbol_; }
  /// "4" or "bfp8_b".
  std::string str() const { return isSymbol_ ? symbol_ : std::to_string(integer_); }

  bool operator==(const KnobValue&) const = default;
  /// Integers before symbols; integers by value, symbols by name.
  std::strong_ordering operator<=>(const KnobValue&) const = default;

private:
  bool isSymbol_ = false;
  int64_t integer_ = 0;
  std::string symbol_;
};

inline std::ostream& operator<<(std::ostream& os, const KnobValue& v) {
  return os << v.str();
}

/// JSON: a number for an integer, a string for a symbol.
inline void to_json(nlohmann::json& j, const KnobValue& v) {
  if (v.isSymbol())
    j = v.symbol();
  else
    j = v.integer();
}

/// A value for each bound knob, by name (without '@').
using Binding = std::map<std::string, KnobValue>;

/// "BM=2, DTYPE=bf16": a binding as `--bind` spells it, in name order.
inline std::string str(const Binding& binding) {
  std::string out;
  for (const auto& [name, value] : binding)
    out += (out.empty() ? "" : ", ") + name + "=" + value.str();
  return out;
}

} // namespace ttlplan::ir

/// `fmt::format("{}", value)` prints str().
template <> struct fmt::formatter<ttlplan::ir::KnobValue> : fmt::formatter<std::string> {
  template <typename Context> auto format(const ttlplan::ir::KnobValue& v, Context& ctx) const {
    return fmt::formatter<std::string>::format(v.str(), ctx);
  }
};
