#pragma once
// Internal to the printer: the Printer class, whose parts live in Printer.cpp (names, aliases,
// regions, the generic form, the entry points), PrintCustomForms.cpp (which ops the custom form
// can hold) and PrintCustomOps.cpp (each custom form).
#include "ttlplan/ir/KnobDomain.h"
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Printer.h"

#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace ttlplan::ir::printing {

/// The custom form can only say what its syntax can hold; anything else (for example a generic
/// op with the wrong operand count) is printed in generic form so that nothing is lost.
bool canPrintCustom(const Operation& op);

/// A func.func's type: argument types from its body when it has one (passes change them), result
/// types from `function_type`.
Type functionTypeOf(const Operation& op);

/// A finite value as the shortest literal that reads back to it, with a '.' or an exponent so
/// that it lexes as a float (`1.0`, `1.5`, `1e+20`).
inline std::string floatLiteral(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

class Printer {
public:
  Printer(const AliasTable* aliases, const PrintOptions& options) : options_(options) {
    context_.aliases = aliases;
    context_.generic = options.generic;
    scopes_.emplace_back();
  }

  std::string take() { return std::move(out_); }
  void printAliases(const AliasTable& aliases);
  /// Only the `#name = loc(...)` aliases: ops' written locations name them, so they are printed
  /// even without aliases (--no-aliases) or the output would not read back.
  void printLocationAliases(const AliasTable& aliases);
  void printOp(Operation& op);

private:
  void indent() { out_.append(indent_ * 2, ' '); }
  std::string type(const Type& t) {
    std::string s;
    printType(s, t, context_);
    return s;
  }
  std::string attr(const Attribute& a) {
    std::string s;
    printAttribute(s, a, context_);
    return s;
  }
  /// A knob's values: symbols (string attributes) bare, `[bf16, bfp8_b]`, as the parser reads.
  std::string paramValues(const Attribute& values) {
    std::string s = "[";
    for (const Attribute& v : values.elements()) {
      if (s.size() > 1) s += ", ";
      s += v.is(AttrKind::String) ? keyOrString(v.stringValue()) : attr(v);
    }
    return s + "]";
  }
  void attrDict(const Operation& op, std::span<const std::string_view> elided, bool keyword);
  std::string typeList(const std::vector<Value*>& values);

  // Names.
  std::string define(Value* value, bool isArgument);
  void defineResults(Operation& op);
  const std::string& name(Value* value);

  void printGeneric(Operation& op);
  void printFunc(Operation& op);
  void printIntoDst(Operation& op);
  /// Names the entry block's arguments of a custom-form region in the current scope (its header,
  /// `(%i, %j)` or `%k = ...`, names them before printRegion reuses the scope).
  std::vector<std::string> declareArgs(Region& region);
  /// `%a = %x, %b = %y`: region arguments from `args[firstArg]` and the op's operands from
  /// `firstOperand` that they start from (scf.for's iter_args, scf.while's header).
  std::string initList(const std::vector<std::string>& args, size_t firstArg, Operation& op,
                       size_t firstOperand);
  void printUpstreamForm(Operation& op, std::span<const std::string_view> elided);
  /// ` {attrs}` of entry `i` of a func's `arg_attrs` / `res_attrs`, if any.
  void printEntryAttrs(const Operation& op, const char* key, size_t i);
  /// ` loc(...)` when the location was written in the input.
  void printLoc(const Location& location) {
    if (location.written) out_ += " loc(" + *location.written + ")";
  }
  void printCustom(Operation& op);
  void printRegion(Region& region, bool generic, bool elideYield);
  void printResultsPrefix(Operation& op);
  void printOperands(const std::vector<Value*>& values, size_t from = 0);

  PrintOptions options_;
  PrintContext context_;
  std::string out_;
  int indent_ = 0;
  std::vector<std::set<std::string>> scopes_;
  std::map<Value*, std::string> names_;
  unsigned nextNumber_ = 0;
  unsigned nextArgNumber_ = 0;
};

} // namespace ttlplan::ir::printing
