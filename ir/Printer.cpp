#include "ttlplan/ir/Printer.h"

#include "ttlplan/ir/KnobDomain.h"
#include "ttlplan/ir/OpRegistry.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>
#include <span>

namespace ttlplan::ir {

namespace {

bool allTypesAre(const std::vector<Value*>& values, const Type& type) {
  return std::all_of(values.begin(), values.end(), [&](Value* v) { return v->type() == type; });
}

bool singleBlockWithArgs(const Region& region, size_t numArgs, bool allIndex) {
  if (region.numBlocks() > 1) return false;
  if (region.empty()) return numArgs == 0;
  const Block& b = region.front();
  if (b.numArguments() != numArgs) return false;
  if (allIndex)
    for (size_t i = 0; i < b.numArguments(); ++i)
      if (b.argument(i)->type() != Type::index()) return false;
  return true;
}

/// `scf.for`: index bounds and step, then one loop-carried value per result, each typed as its
/// result and its region argument.
bool scfForFits(const Operation& op) {
  if (op.numOperands() < 3 || op.numOperands() - 3 != op.numResults()) return false;
  if (!singleBlockWithArgs(op.region(0), 1 + op.numResults(), false)) return false;
  const Block* body = op.region(0).empty() ? nullptr : &op.region(0).front();
  for (size_t i = 0; i < op.numOperands(); ++i) {
    Type want = i < 3 ? Type::index() : op.result(i - 3)->type();
    if (op.operand(i)->type() != want) return false;
    if (body && i >= 2 && body->argument(i - 2)->type() != (i == 2 ? Type::index() : want))
      return false;
  }
  return true;
}

/// Forms of ir/ParseUpstreamForms.cpp: what each needs of its operands and results.
bool upstreamFormFits(const Operation& op, AsmFormat format) {
  auto indexFrom = [&](size_t first, size_t end) {
    return first <= end && end <= op.numOperands() &&
           std::all_of(op.operands().begin() + first, op.operands().begin() + end,
                       [](Value* v) { return v->type() == Type::index(); });
  };
  switch (format) {
  case AsmFormat::Cast:
    return op.numResults() >= 1;
  case AsmFormat::ParenOperands:
    return true;
  case AsmFormat::Predicate:
    return op.result(0)->type() == Type::integer(1);
  case AsmFormat::ScfCondition:
    return op.numOperands() >= 1 && op.operand(0)->type() == Type::integer(1);
  case AsmFormat::ElementWrite:
    return op.numOperands() >= 2 && indexFrom(1, op.numOperands() - 1);
  case AsmFormat::ExtractSlice: {
    const char* names[] = {"static_offsets", "static_sizes", "static_strides"};
    size_t dynamic = 0;
    for (const char* name : names) {
      Attribute a = op.attribute(name);
      if (!a.is(AttrKind::DenseArray)) return false;
      dynamic += std::count(a.denseValues().begin(), a.denseValues().end(), kDynamicCoordinate);
    }
    return op.numOperands() == 1 + dynamic && indexFrom(1, op.numOperands());
  }
  case AsmFormat::ScfWhile: {
    if (op.region(0).numBlocks() != 1 || op.region(1).numBlocks() != 1) return false;
    const Block& before = op.region(0).front();
    if (before.numArguments() != op.numOperands()) return false;
    for (size_t i = 0; i < op.numOperands(); ++i)
      if (before.argument(i)->type() != op.operand(i)->type()) return false;
    return true;
  }
  default:
    return false;
  }
}

/// The custom form can only say what its syntax can hold; anything else (for example a generic
/// op with the wrong operand count) is printed in generic form so that nothing is lost.
bool canPrintCustom(const Operation& op) {
  const OpDef* def = op.def();
  if (!def || def->format == AsmFormat::Generic || !op.properties().empty()) return false;
  if (def->numOperands >= 0 && op.numOperands() != static_cast<size_t>(def->numOperands))
    return false;
  if (def->numResults >= 0 && op.numResults() != static_cast<size_t>(def->numResults)) return false;
  if (op.numRegions() != static_cast<size_t>(def->numRegions)) return false;
  auto stringAttr = [&](const char* name) { return op.attribute(name).is(AttrKind::String); };
  auto noRegionArgs = [&] {
    for (size_t i = 0; i < op.numRegions(); ++i)
      if (!singleBlockWithArgs(op.region(i), 0, false)) return false;
    return true;
  };
  switch (def->format) {
  case AsmFormat::Generic:
    return false;
  case AsmFormat::Module:
    return noRegionArgs() && (!op.hasAttribute("sym_name") || stringAttr("sym_name"));
  case AsmFormat::Kernel: // an empty generic region `({})` has no block and prints as `{}`
    return stringAttr("sym_name") && op.region(0).numBlocks() <= 1;
  case AsmFormat::Func: {
    Attribute fn = op.attribute("function_type");
    if (fn && !(fn.is(AttrKind::TypeAttr) && fn.valueType().is(TypeKind::Function))) return false;
    size_t numArgs = op.region(0).empty() ? (fn ? fn.valueType().inputs().size() : 0)
                                          : op.region(0).front().numArguments();
    size_t numResults = fn ? fn.valueType().results().size() : 0;
    auto entryAttrs = [&](const char* key, size_t count) {
      Attribute a = op.attribute(key);
      if (!a) return true;
      return a.is(AttrKind::Array) && a.elements().size() == count &&
             std::all_of(a.elements().begin(), a.elements().end(),
                         [](const Attribute& d) { return d.is(AttrKind::Dictionary); });
    };
    Attribute visibility = op.attribute("sym_visibility");
    bool knownVisibility =
        !visibility || (visibility.is(AttrKind::String) && (visibility.stringValue() == "private" ||
                                                            visibility.stringValue() == "public" ||
                                                            visibility.stringValue() == "nested"));
    return stringAttr("sym_name") && op.region(0).numBlocks() <= 1 && knownVisibility &&
           (!op.region(0).empty() || fn) && entryAttrs("arg_attrs", numArgs) &&
           entryAttrs("res_attrs", numResults);
  }
  case AsmFormat::Param:
    return stringAttr("sym_name") &&
           KnobDomain::fromAttributes(op.attribute("values"), op.attribute("range"),
                                      op.attribute("divisors"))
               .ok();
  case AsmFormat::Thread:
  case AsmFormat::ScfIf:
    if (def->format == AsmFormat::ScfIf && op.operand(0)->type() != Type::integer(1)) return false;
    return noRegionArgs();
  case AsmFormat::WorkLoop: {
    const Region& r = op.region(0);
    return r.empty() || singleBlockWithArgs(r, r.front().numArguments(), true);
  }
  case AsmFormat::ResultType:
    return true;
  case AsmFormat::EmptyCall:
    return allTypesAre(op.operands(), Type::index()) && op.numResults() == 1;
  case AsmFormat::Extract:
    return op.numOperands() >= 1 && op.numResults() == 1 &&
           op.result(0)->type() == op.operand(0)->type().elementType() &&
           std::all_of(op.operands().begin() + 1, op.operands().end(),
                       [](Value* v) { return v->type() == Type::index(); });
  case AsmFormat::Convert:
  case AsmFormat::Matmul:
    return true;
  case AsmFormat::SameType: {
    Type t = op.numOperands() ? op.operand(0)->type() : op.result(0)->type();
    return allTypesAre(op.operands(), t) && allTypesAre(op.results(), t) &&
           (op.numOperands() || op.numResults());
  }
  case AsmFormat::ImpliedTypes:
  case AsmFormat::PipeRegion:
    return allTypesAre(op.operands(), impliedOperandType(*def)) && noRegionArgs();
  case AsmFormat::Functional:
    return op.numResults() == 1;
  case AsmFormat::Slice:
    return op.numOperands() >= 1 &&
           std::all_of(op.operands().begin() + 1, op.operands().end(),
                       [](Value* v) { return v->type() == Type::index(); });
  case AsmFormat::CreatePipe: {
    std::vector<int64_t> coords;
    if (!op.attribute("static_coords").getIntegers(coords)) return false;
    if (coords.size() != 4 && coords.size() != 6) return false;
    size_t dynamic = std::count(coords.begin(), coords.end(), kDynamicCoordinate);
    return dynamic == op.numOperands() && allTypesAre(op.operands(), Type::index());
  }
  case AsmFormat::ParamValue:
    return op.attribute("param").is(AttrKind::SymbolRef);
  case AsmFormat::ScfFor:
    return scfForFits(op);
  case AsmFormat::Cast:
  case AsmFormat::ParenOperands:
  case AsmFormat::Predicate:
  case AsmFormat::ScfCondition:
  case AsmFormat::ElementWrite:
  case AsmFormat::ExtractSlice:
  case AsmFormat::ScfWhile:
    return upstreamFormFits(op, def->format);
  case AsmFormat::ValueConvert:
    return op.attribute("value").is(AttrKind::Float) &&
           std::isfinite(op.attribute("value").floatValue());
  case AsmFormat::KeywordScope:
    return noRegionArgs();
  case AsmFormat::ScfYield:
    // Its optional operand list would take in the next op's `%x = ...` (or `"..."`) when it is
    // not the last op of its block, and the custom form has no place for attributes.
    return op.attributes().empty() &&
           (op.numOperands() || !op.parentBlock() || op.parentBlock()->back() == &op);
  case AsmFormat::ArithConstant: {
    Attribute v = op.attribute("value");
    return (v.is(AttrKind::Integer) || v.is(AttrKind::Float) || v.is(AttrKind::Bool)) &&
           v.valueType() == op.result(0)->type();
  }
  case AsmFormat::Reduce: {
    std::vector<int64_t> dims;
    return op.attribute("reduce_type").is(AttrKind::Integer) &&
           op.attribute("dims").getIntegers(dims);
  }
  case AsmFormat::BlockBroadcast:
    return op.attribute("dims").is(AttrKind::DenseArray) &&
           op.attribute("shape").is(AttrKind::DenseArray);
  case AsmFormat::FillValue:
    return op.attribute("value").is(AttrKind::Float) &&
           op.attribute("value").valueType() == Type::floating(FloatKind::F32) &&
           std::isfinite(op.attribute("value").floatValue());
  case AsmFormat::Compute: {
    Attribute segments = op.attribute("operandSegmentSizes");
    if (!segments.is(AttrKind::DenseArray) || segments.denseValues().size() != 2) return false;
    int64_t ins = segments.denseValues()[0], outs = segments.denseValues()[1];
    return ins >= 0 && outs >= 0 && size_t(ins + outs) == op.numOperands() &&
           op.region(0).numBlocks() == 1;
  }
  case AsmFormat::IntoDst: {
    const TileSyntax& syntax = def->tile;
    size_t inputs = syntax.valueFirst ? 0 : syntax.indexedFirst ? 1 : op.numOperands() - 1;
    if (op.numOperands() < 1 || op.operands().back()->type() != Type::index()) return false;
    if ((syntax.valueFirst || syntax.valueAfter) &&
        !(op.attribute("value").is(AttrKind::Float) &&
          std::isfinite(op.attribute("value").floatValue())))
      return false;
    if (inputs > op.numOperands() - 1 || (!syntax.valueFirst && inputs == 0)) return false;
    for (size_t i = inputs; i + 1 < op.numOperands(); ++i) // copy_tile's tile indices
      if (op.operand(i)->type() != Type::index()) return false;
    for (std::string_view name : syntax.attributes)
      if (!name.empty() && !op.hasAttribute(name)) return false;
    return op.numResults() >= 1;
  }
  case AsmFormat::TileStore:
    return op.numOperands() >= 3 &&
           std::all_of(op.operands().begin() + 2, op.operands().end(),
                       [](Value* v) { return v->type() == Type::index(); });
  case AsmFormat::IterIndex:
    return op.attribute("dim").is(AttrKind::Integer) && op.attribute("dim").intValue() >= 0;
  case AsmFormat::ArithCmpi: {
    Attribute p = op.attribute("predicate");
    return p.is(AttrKind::Integer) && p.valueType() == Type::integer(64) && p.intValue() >= 0 &&
           size_t(p.intValue()) < comparePredicates(op.name()).size() &&
           op.operand(0)->type() == op.operand(1)->type() &&
           op.result(0)->type() == Type::integer(1);
  }
  }
  return false;
}

Type functionTypeOf(const Operation& op);

/// A finite value as the shortest literal that reads back to it, with a '.' or an exponent so
/// that it lexes as a float (`1.0`, `1.5`, `1e+20`).
std::string floatLiteral(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

bool isValidName(const std::string& name) {
  if (name.empty()) return false;
  if (std::all_of(name.begin(), name.end(), ::isdigit)) return true;
  if (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_' && name[0] != '$' &&
      name[0] != '.')
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
           c == '-';
  });
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

bool nameInUse(const std::vector<std::set<std::string>>& scopes, const std::string& name) {
  return std::any_of(scopes.begin(), scopes.end(), [&](const auto& s) { return s.count(name); });
}

std::string Printer::define(Value* value, bool isArgument) {
  std::string hint = value->nameHint();
  if (auto hash = hint.find('#'); hash != std::string::npos) hint.resize(hash);
  std::string chosen;
  if (isValidName(hint) && !nameInUse(scopes_, hint)) {
    chosen = hint;
  } else if (isValidName(hint) && !std::isdigit(static_cast<unsigned char>(hint[0]))) {
    for (unsigned k = 1; nameInUse(scopes_, chosen = fmt::format("{}_{}", hint, k)); ++k) {
    }
  } else {
    do {
      chosen = isArgument ? fmt::format("arg{}", nextArgNumber_++) : std::to_string(nextNumber_++);
    } while (nameInUse(scopes_, chosen));
  }
  scopes_.back().insert(chosen);
  return chosen;
}

void Printer::defineResults(Operation& op) {
  if (op.numResults() == 0) return;
  std::string base = define(op.result(0), false);
  if (op.numResults() == 1) {
    names_[op.result(0)] = std::string("%") + base;
    return;
  }
  for (size_t i = 0; i < op.numResults(); ++i)
    names_[op.result(i)] = fmt::format("%{}#{}", base, i);
}

const std::string& Printer::name(Value* value) {
  auto it = names_.find(value);
  if (it == names_.end()) {
    // A use outside the value's scope (invalid IR); still print something readable.
    return names_[value] = std::string("%<<unknown:") + value->nameHint() + ">>";
  }
  return it->second;
}

void Printer::printAliases(const AliasTable& aliases) {
  // Attribute aliases first: type aliases may use them (`!t = tensor<..., #dram>`).
  context_.typeAliasLimit = 0;
  for (size_t i = 0; i < aliases.attributes.size(); ++i) {
    context_.attrAliasLimit = i;
    out_ +=
        fmt::format("#{} = {}\n", aliases.attributes[i].first, attr(aliases.attributes[i].second));
  }
  context_.attrAliasLimit = SIZE_MAX;
  for (size_t i = 0; i < aliases.types.size(); ++i) {
    context_.typeAliasLimit = i;
    out_ += fmt::format("!{} = {}\n", aliases.types[i].first, type(aliases.types[i].second));
  }
  context_.typeAliasLimit = SIZE_MAX;
}

void Printer::printLocationAliases(const AliasTable& aliases) {
  for (const auto& [name, value] : aliases.attributes)
    if (value.is(AttrKind::Opaque) && value.stringValue().starts_with("loc("))
      out_ += fmt::format("#{} = {}\n", name, value.stringValue());
}

void Printer::attrDict(const Operation& op, std::span<const std::string_view> elided,
                       bool keyword) {
  std::vector<NamedAttribute> shown;
  for (const NamedAttribute& a : op.attributes())
    if (std::find(elided.begin(), elided.end(), a.name) == elided.end()) shown.push_back(a);
  if (shown.empty()) return;
  out_ += keyword ? " attributes " : " ";
  printAttributeDict(out_, shown, context_);
}

std::string Printer::typeList(const std::vector<Value*>& values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + type(values[i]->type());
  return s;
}

void Printer::printOperands(const std::vector<Value*>& values, size_t from) {
  for (size_t i = from; i < values.size(); ++i)
    out_ += (i > from ? ", " : "") + name(values[i]);
}

void Printer::printResultsPrefix(Operation& op) {
  if (op.numResults() == 0) return;
  std::string first = name(op.result(0));
  if (op.numResults() == 1) {
    out_ += first + " = ";
    return;
  }
  out_ += fmt::format("{}:{} = ", first.substr(0, first.find('#')), op.numResults());
}

void Printer::printRegion(Region& region, bool generic, bool elideYield) {
  out_ += "{\n";
  scopes_.emplace_back();
  ++indent_;
  if (!region.empty()) {
    Block& block = region.front();
    if (generic && !block.numArguments() && block.empty()) {
      // An empty block needs its label: `({\n})` is a region with no block at all.
      out_.append((indent_ - 1) * 2, ' ');
      out_ += "^bb0:\n";
    } else if (generic && block.numArguments()) {
      out_.append((indent_ - 1) * 2, ' ');
      out_ += "^bb0(";
      for (size_t i = 0; i < block.numArguments(); ++i) {
        Value* arg = block.argument(i);
        names_[arg] = std::string("%") + define(arg, true);
        out_ += fmt::format("{}{}: {}", i ? ", " : "", names_[arg], type(arg->type()));
        printLoc(arg->location());
      }
      out_ += "):\n";
    }
    for (auto& op : block.operations()) {
      bool last = op.get() == block.back();
      if (last && elideYield && op->name() == "scf.yield" && op->numOperands() == 0) continue;
      printOp(*op);
    }
  }
  --indent_;
  scopes_.pop_back();
  indent();
  out_ += "}";
}

void Printer::printOp(Operation& op) {
  indent();
  defineResults(op);
  printResultsPrefix(op);
  if (options_.generic || !canPrintCustom(op))
    printGeneric(op);
  else
    printCustom(op);
  printLoc(op.location());
  out_ += "\n";
}

void Printer::printGeneric(Operation& op) {
  out_ += quoteString(op.name()) + "(";
  printOperands(op.operands());
  out_ += ")";
  if (!op.properties().empty()) {
    out_ += " <";
    printAttributeDict(out_, op.properties(), context_);
    out_ += ">";
  }
  if (op.numRegions()) {
    out_ += " (";
    for (size_t i = 0; i < op.numRegions(); ++i) {
      if (i) out_ += ", ";
      printRegion(op.region(i), true, false);
    }
    out_ += ")";
  }
  if (op.isa("func.func") && op.numRegions() == 1 && !op.properties().size()) {
    // mlir-opt needs function_type; derive it from the body, which passes may have changed.
    std::vector<NamedAttribute> attrs = {{"function_type", Attribute::type(functionTypeOf(op))}};
    for (const NamedAttribute& a : op.attributes())
      if (a.name != "function_type") attrs.push_back(a);
    out_ += " ";
    printAttributeDict(out_, attrs, context_);
  } else {
    attrDict(op, {}, false);
  }
  out_ += std::string(" : (") + typeList(op.operands()) + ") -> ";
  bool bare = op.numResults() == 1 && !op.result(0)->type().is(TypeKind::Function);
  out_ += bare ? typeList(op.results()) : std::string("(") + typeList(op.results()) + ")";
}

/// A func.func's type: argument types from its body when it has one (passes change them), result
/// types from `function_type`.
Type functionTypeOf(const Operation& op) {
  Attribute written = op.attribute("function_type");
  bool valid = written.is(AttrKind::TypeAttr) && written.valueType().is(TypeKind::Function);
  std::vector<Type> inputs = valid ? written.valueType().inputs() : std::vector<Type>{};
  std::vector<Type> results = valid ? written.valueType().results() : std::vector<Type>{};
  if (!op.region(0).empty()) {
    inputs.clear();
    for (Value* arg : op.region(0).front().arguments())
      inputs.push_back(arg->type());
  }
  return Type::function(inputs, results);
}

void Printer::printEntryAttrs(const Operation& op, const char* key, size_t i) {
  Attribute all = op.attribute(key);
  if (!all.is(AttrKind::Array) || i >= all.elements().size()) return;
  const Attribute& dict = all.elements()[i];
  if (!dict.is(AttrKind::Dictionary) || dict.entries().empty()) return;
  out_ += " ";
  printAttributeDict(out_, dict.entries(), context_);
}

void Printer::printUpstreamForm(Operation& op, std::span<const std::string_view> elided) {
  auto withTypes = [&](size_t from) {
    std::vector<Value*> rest(op.operands().begin() + from, op.operands().end());
    if (rest.empty()) return;
    out_ += " ";
    printOperands(rest);
    out_ += " : " + typeList(rest);
  };
  switch (op.def()->format) {
  case AsmFormat::Cast:
    if (op.numOperands()) {
      out_ += " ";
      printOperands(op.operands());
      attrDict(op, elided, false);
      out_ += " : " + typeList(op.operands());
    }
    out_ += " to " + typeList(op.results());
    if (!op.numOperands()) attrDict(op, elided, false);
    return;
  case AsmFormat::ValueConvert:
    out_ += fmt::format(" {}, {}", name(op.operand(0)),
                        floatLiteral(op.attribute("value").floatValue()));
    attrDict(op, elided, false);
    out_ += fmt::format(" : {} -> {}", type(op.operand(0)->type()), type(op.result(0)->type()));
    return;
  case AsmFormat::ElementWrite: {
    Value* value = op.operands().back();
    out_ += " " + name(op.operand(0)) + "[";
    printOperands(std::vector<Value*>(op.operands().begin() + 1, op.operands().end() - 1));
    out_ += "], " + name(value);
    attrDict(op, elided, false);
    out_ += fmt::format(" : {}, {}", type(op.operand(0)->type()), type(value->type()));
    return;
  }
  case AsmFormat::ParenOperands:
    out_ += "(";
    printOperands(op.operands());
    out_ += ")";
    attrDict(op, elided, false);
    out_ += " : " + typeList(op.operands());
    return;
  case AsmFormat::Predicate:
    attrDict(op, elided, false);
    return;
  case AsmFormat::KeywordScope:
    attrDict(op, elided, true);
    out_ += " ";
    printRegion(op.region(0), false, false);
    return;
  case AsmFormat::ExtractSlice: {
    out_ += " " + name(op.operand(0));
    size_t next = 1;
    const char* lists[] = {"static_offsets", "static_sizes", "static_strides"};
    for (size_t i = 0; i < 3; ++i) {
      std::vector<std::string> entries;
      for (int64_t v : op.attribute(lists[i]).denseValues())
        entries.push_back(v == kDynamicCoordinate ? name(op.operand(next++)) : std::to_string(v));
      out_ += fmt::format("{}[{}]", i ? " " : "", fmt::join(entries, ", "));
    }
    attrDict(op, elided, false);
    out_ += fmt::format(" : {} to {}", type(op.operand(0)->type()), type(op.result(0)->type()));
    return;
  }
  case AsmFormat::ScfWhile: {
    scopes_.emplace_back();
    std::vector<std::string> args;
    for (Value* arg : op.region(0).front().arguments())
      args.push_back(names_[arg] = std::string("%") + define(arg, true));
    out_ += " (";
    for (size_t i = 0; i < args.size(); ++i)
      out_ += fmt::format("{}{} = {}", i ? ", " : "", args[i], name(op.operand(i)));
    out_ += fmt::format(") : ({}) -> ({}) ", typeList(op.operands()), typeList(op.results()));
    printRegion(op.region(0), false, false);
    scopes_.pop_back();
    out_ += " do ";
    printRegion(op.region(1), true, false);
    attrDict(op, elided, true);
    return;
  }
  case AsmFormat::ScfCondition:
    out_ += "(" + name(op.operand(0)) + ")";
    withTypes(1);
    return;
  default:
    return;
  }
}

void Printer::printIntoDst(Operation& op) {
  const TileSyntax& syntax = op.def()->tile;
  std::vector<std::string_view> elided = {"value"};
  if (syntax.valueFirst) {
    out_ += " " + floatLiteral(op.attribute("value").floatValue());
  }
  size_t numInputs = syntax.valueFirst ? 0 : syntax.indexedFirst ? 1 : op.numOperands() - 1;
  std::vector<Value*> inputs(op.operands().begin(), op.operands().begin() + numInputs);
  if (!inputs.empty()) {
    out_ += " ";
    printOperands(inputs);
  }
  if (syntax.valueAfter) out_ += ", " + floatLiteral(op.attribute("value").floatValue());
  if (syntax.indexedFirst) {
    out_ += "[";
    printOperands(std::vector<Value*>(op.operands().begin() + 1, op.operands().end() - 1));
    out_ += "]";
  }
  for (std::string_view attr : syntax.attributes) {
    if (attr.empty()) continue;
    elided.push_back(attr);
    out_ += " ";
    Attribute value = op.attribute(attr);
    const std::string prefix = "#ttkernel.reduce_dim<"; // the format prints the enum bare
    if (value.is(AttrKind::Opaque) && value.stringValue().rfind(prefix, 0) == 0)
      out_ += value.stringValue().substr(prefix.size() - 1);
    else
      printAttribute(out_, value, context_);
  }
  out_ += fmt::format(" into dst[{}]", name(op.operands().back()));
  attrDict(op, elided, false);
  if (inputs.empty()) {
    out_ += " : " + typeList(op.results());
    return;
  }
  out_ += syntax.parenTypes ? fmt::format(" : ({})", typeList(inputs)) : " : " + typeList(inputs);
  out_ += " -> " + typeList(op.results());
}

void Printer::printFunc(Operation& op) {
  if (Attribute visibility = op.attribute("sym_visibility"); visibility.is(AttrKind::String))
    out_ += " " + visibility.stringValue();
  out_ += std::string(" @") + keyOrString(op.attribute("sym_name").stringValue()) + "(";
  Type fn = functionTypeOf(op);
  bool hasBody = !op.region(0).empty();
  scopes_.emplace_back();
  for (size_t i = 0; i < fn.inputs().size(); ++i) {
    if (i) out_ += ", ";
    if (hasBody) {
      Value* arg = op.region(0).front().argument(i);
      names_[arg] = std::string("%") + define(arg, true);
      out_ += names_[arg] + ": ";
    }
    out_ += type(fn.inputs()[i]);
    printEntryAttrs(op, "arg_attrs", i);
    if (hasBody) printLoc(op.region(0).front().argument(i)->location());
  }
  out_ += ")";
  const std::vector<Type>& results = fn.results();
  Attribute resAttrs = op.attribute("res_attrs");
  bool bare =
      results.size() == 1 && !results[0].is(TypeKind::Function) && !resAttrs.is(AttrKind::Array);
  if (!results.empty()) out_ += bare ? " -> " : " -> (";
  for (size_t i = 0; i < results.size(); ++i) {
    if (i) out_ += ", ";
    out_ += type(results[i]);
    printEntryAttrs(op, "res_attrs", i);
  }
  if (!results.empty() && !bare) out_ += ")";
  attrDict(op, formatDef(AsmFormat::Func).elided, true);
  if (hasBody) {
    out_ += " ";
    printRegion(op.region(0), false, false);
  }
  scopes_.pop_back();
}

void Printer::printCustom(Operation& op) {
  const OpDef& def = *op.def();
  std::span<const std::string_view> elided = formatDef(def.format).elided;
  out_ += def.format == AsmFormat::Module ? "module" : op.name();
  // Block arguments of custom-form regions belong to the region's scope: open it here so that
  // the header (`(%i, %j)`, `%k = ...`) can name them, and let printRegion reuse it.
  auto declareArgs = [&](Region& region) {
    std::vector<std::string> declared;
    if (region.empty()) return declared;
    for (Value* arg : region.front().arguments()) {
      names_[arg] = std::string("%") + define(arg, true);
      declared.push_back(names_[arg]);
    }
    return declared;
  };
  switch (def.format) {
  case AsmFormat::Generic:
    break;
  case AsmFormat::Module:
    if (op.hasAttribute("sym_name"))
      out_ += std::string(" @") + keyOrString(op.attribute("sym_name").stringValue());
    attrDict(op, elided, true);
    out_ += " ";
    printRegion(op.region(0), false, false);
    return;
  case AsmFormat::Kernel: {
    out_ += std::string(" @") + keyOrString(op.attribute("sym_name").stringValue()) + "(";
    scopes_.emplace_back();
    std::vector<std::string> args = declareArgs(op.region(0));
    for (size_t i = 0; i < args.size(); ++i) {
      Value* arg = op.region(0).front().argument(i);
      out_ += fmt::format("{}{}: {}", i ? ", " : "", args[i], type(arg->type()));
      printLoc(arg->location());
    }
    out_ += ")";
    attrDict(op, elided, true);
    out_ += " ";
    printRegion(op.region(0), false, false);
    scopes_.pop_back();
    return;
  }
  case AsmFormat::Func:
    printFunc(op);
    return;
  case AsmFormat::Param:
    out_ +=
        fmt::format(" @{} = {}", keyOrString(op.attribute("sym_name").stringValue()),
                    op.attribute("values") ? paramValues(op.attribute("values"))
                                           : KnobDomain::fromAttributes({}, op.attribute("range"),
                                                                        op.attribute("divisors"))
                                                 ->str());
    attrDict(op, elided, false);
    return;
  case AsmFormat::Thread:
    out_ += " ";
    printRegion(op.region(0), false, false);
    attrDict(op, elided, false);
    return;
  case AsmFormat::WorkLoop: {
    scopes_.emplace_back();
    std::vector<std::string> ivs = declareArgs(op.region(0));
    out_ += fmt::format(" ({}) ", fmt::join(ivs, ", "));
    printRegion(op.region(0), false, false);
    scopes_.pop_back();
    attrDict(op, elided, false);
    return;
  }
  case AsmFormat::ResultType:
    attrDict(op, elided, false);
    out_ += std::string(" : ") + type(op.result(0)->type());
    return;
  case AsmFormat::EmptyCall:
    out_ += "(";
    printOperands(op.operands());
    out_ += ")";
    attrDict(op, elided, false);
    out_ += std::string(" : ") + type(op.result(0)->type());
    return;
  case AsmFormat::Extract: {
    out_ += std::string(" ") + name(op.operand(0)) + "[";
    for (size_t i = 1; i < op.numOperands(); ++i)
      out_ += (i > 1 ? ", " : "") + name(op.operand(i));
    out_ += "]";
    attrDict(op, elided, false);
    out_ += std::string(" : ") + type(op.operand(0)->type());
    return;
  }
  case AsmFormat::Convert:
    out_ += std::string(" ") + name(op.operand(0));
    attrDict(op, elided, false);
    out_ += fmt::format(" : {} -> {}", type(op.operand(0)->type()), type(op.result(0)->type()));
    return;
  case AsmFormat::SameType: {
    out_ += " ";
    printOperands(op.operands());
    attrDict(op, elided, false);
    Type t = op.numOperands() ? op.operand(0)->type() : op.result(0)->type();
    out_ += std::string(" : ") + type(t);
    return;
  }
  case AsmFormat::ImpliedTypes:
    if (op.numOperands()) out_ += " ";
    printOperands(op.operands());
    attrDict(op, elided, false);
    return;
  case AsmFormat::PipeRegion:
    out_ += std::string(" ") + name(op.operand(0)) + " ";
    printRegion(op.region(0), false, false);
    attrDict(op, elided, false);
    return;
  case AsmFormat::Functional:
    out_ += " ";
    printOperands(op.operands());
    attrDict(op, elided, false);
    out_ += fmt::format(" : ({}) -> {}", typeList(op.operands()), type(op.result(0)->type()));
    return;
  case AsmFormat::Slice:
    out_ += std::string(" ") + name(op.operand(0)) + "[";
    printOperands(op.operands(), 1);
    out_ += "]";
    attrDict(op, elided, false);
    out_ += fmt::format(" : {} -> {}", type(op.operand(0)->type()), type(op.result(0)->type()));
    return;
  case AsmFormat::Matmul:
    out_ += fmt::format(" {}, {}", name(op.operand(0)), name(op.operand(1)));
    attrDict(op, elided, false);
    out_ += fmt::format(" : {}, {} -> {}", type(op.operand(0)->type()), type(op.operand(1)->type()),
                        type(op.result(0)->type()));
    return;
  case AsmFormat::CreatePipe: {
    std::vector<int64_t> coords;
    (void)op.attribute("static_coords").getIntegers(coords);
    size_t next = 0;
    const char* parts[] = {"src", "dst", "to"};
    for (size_t i = 0; i < coords.size(); i += 2) {
      auto coord = [&](int64_t c) {
        return c == kDynamicCoordinate ? name(op.operand(next++)) : std::to_string(c);
      };
      std::string x = coord(coords[i]);
      std::string y = coord(coords[i + 1]);
      out_ += fmt::format(" {}({}, {})", parts[i / 2], x, y);
    }
    attrDict(op, elided, false);
    out_ += std::string(" : ") + type(op.result(0)->type());
    return;
  }
  case AsmFormat::ParamValue:
    out_ += std::string(" ") + attr(op.attribute("param"));
    attrDict(op, elided, false);
    out_ += std::string(" : ") + type(op.result(0)->type());
    return;
  case AsmFormat::ScfFor: {
    scopes_.emplace_back();
    std::vector<std::string> iv = declareArgs(op.region(0));
    out_ += fmt::format(" {} = {} to {} step {} ", iv[0], name(op.operand(0)), name(op.operand(1)),
                        name(op.operand(2)));
    if (op.numResults()) {
      out_ += "iter_args(";
      for (size_t i = 3; i < op.numOperands(); ++i)
        out_ += fmt::format("{}{} = {}", i > 3 ? ", " : "", iv[i - 2], name(op.operand(i)));
      out_ += fmt::format(") -> ({}) ", typeList(op.results()));
    }
    printRegion(op.region(0), false, true);
    scopes_.pop_back();
    attrDict(op, elided, false);
    return;
  }
  case AsmFormat::ScfIf:
    out_ += std::string(" ") + name(op.operand(0)) + " ";
    if (op.numResults()) out_ += fmt::format("-> ({}) ", typeList(op.results()));
    printRegion(op.region(0), false, true);
    if (!op.region(1).empty()) {
      out_ += " else ";
      printRegion(op.region(1), false, true);
    }
    attrDict(op, elided, false);
    return;
  case AsmFormat::ScfYield:
    if (op.numOperands()) {
      out_ += " ";
      printOperands(op.operands());
      out_ += std::string(" : ") + typeList(op.operands());
    }
    return;
  case AsmFormat::ArithConstant:
    attrDict(op, elided, false);
    out_ += std::string(" ") + attr(op.attribute("value"));
    return;
  case AsmFormat::ArithCmpi:
    out_ +=
        fmt::format(" {}, ", comparePredicates(op.name())[op.attribute("predicate").intValue()]);
    printOperands(op.operands());
    attrDict(op, elided, false);
    out_ += std::string(" : ") + type(op.operand(0)->type());
    return;
  case AsmFormat::Reduce:
    out_ += " ";
    printOperands(op.operands());
    out_ += " ";
    printAttribute(out_, op.attribute("reduce_type"), context_);
    out_ += " ";
    printAttribute(out_, op.attribute("dims"), context_);
    attrDict(op, elided, false);
    out_ += fmt::format(" : ({}) -> {}", typeList(op.operands()), type(op.result(0)->type()));
    return;
  case AsmFormat::BlockBroadcast:
    out_ += fmt::format(" {} dims = [{}], shape = [{}]", name(op.operand(0)),
                        fmt::join(op.attribute("dims").denseValues(), ", "),
                        fmt::join(op.attribute("shape").denseValues(), ", "));
    attrDict(op, elided, false);
    out_ += fmt::format(" : {} -> {}", type(op.operand(0)->type()), type(op.result(0)->type()));
    return;
  case AsmFormat::Compute: {
    size_t ins = size_t(op.attribute("operandSegmentSizes").denseValues()[0]);
    std::vector<Value*> inputs(op.operands().begin(), op.operands().begin() + ins);
    std::vector<Value*> outputs(op.operands().begin() + ins, op.operands().end());
    for (const auto& [word, values] : {std::pair{"ins", &inputs}, std::pair{"outs", &outputs}}) {
      out_ += fmt::format(" {}(", word);
      if (!values->empty()) {
        printOperands(*values);
        out_ += " : " + typeList(*values);
      }
      out_ += ")";
    }
    attrDict(op, elided, false);
    out_ += " ";
    printRegion(op.region(0), true, false);
    out_ += op.numResults() == 1 && !op.result(0)->type().is(TypeKind::Function)
                ? " -> " + typeList(op.results())
                : " -> (" + typeList(op.results()) + ")";
    return;
  }
  case AsmFormat::IntoDst:
    printIntoDst(op);
    return;
  case AsmFormat::Cast:
  case AsmFormat::ValueConvert:
  case AsmFormat::ElementWrite:
  case AsmFormat::ParenOperands:
  case AsmFormat::Predicate:
  case AsmFormat::KeywordScope:
  case AsmFormat::ExtractSlice:
  case AsmFormat::ScfWhile:
  case AsmFormat::ScfCondition:
    printUpstreamForm(op, elided);
    return;
  case AsmFormat::TileStore: {
    std::vector<Value*> indices(op.operands().begin() + 2, op.operands().end() - 1);
    out_ += fmt::format(" {}, {}[", name(op.operand(0)), name(op.operand(1)));
    printOperands(indices);
    out_ += fmt::format("] from dst[{}]", name(op.operands().back()));
    attrDict(op, elided, false);
    out_ += fmt::format(" : {}, {}", type(op.operand(0)->type()), type(op.operand(1)->type()));
    return;
  }
  case AsmFormat::IterIndex:
    out_ += fmt::format(" {}", op.attribute("dim").intValue());
    attrDict(op, elided, false);
    out_ += std::string(" : ") + type(op.result(0)->type());
    return;
  case AsmFormat::FillValue: {
    out_ += " " + floatLiteral(op.attribute("value").floatValue());
    attrDict(op, elided, false);
    out_ += std::string(" : ") + type(op.result(0)->type());
    return;
  }
  }
}

} // namespace

std::string print(const Module& module, const PrintOptions& options) {
  const AliasTable* aliases = options.useAliases ? &module.aliases : nullptr;
  Printer printer(aliases, options);
  if (aliases)
    printer.printAliases(*aliases);
  else
    printer.printLocationAliases(module.aliases);
  printer.printOp(*module.op);
  return printer.take();
}

std::string print(Operation& op, const PrintOptions& options) {
  Printer printer(nullptr, options);
  printer.printOp(op);
  return printer.take();
}

} // namespace ttlplan::ir
