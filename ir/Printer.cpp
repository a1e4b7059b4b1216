#include "ttlplan/ir/Printer.h"

#include "ttlplan/ir/PrinterDetail.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace ttlplan::ir {

namespace printing {

namespace {

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

bool nameInUse(const std::vector<std::set<std::string>>& scopes, const std::string& name) {
  return std::any_of(scopes.begin(), scopes.end(), [&](const auto& s) { return s.count(name); });
}

} // namespace

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

} // namespace printing

using printing::Printer;

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
