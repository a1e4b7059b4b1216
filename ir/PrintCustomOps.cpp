// Each custom form's printer (Printer::printCustom and the forms it hands on); the parser's side
// is ParseCustomOps.cpp, ParseTtlangOps.cpp and ParseUpstreamForms.cpp.
#include "ttlplan/ir/PrinterDetail.h"

#include <fmt/format.h>

namespace ttlplan::ir::printing {

std::vector<std::string> Printer::declareArgs(Region& region) {
  std::vector<std::string> declared;
  if (region.empty()) return declared;
  for (Value* arg : region.front().arguments()) {
    names_[arg] = std::string("%") + define(arg, true);
    declared.push_back(names_[arg]);
  }
  return declared;
}

std::string Printer::initList(const std::vector<std::string>& args, size_t firstArg, Operation& op,
                              size_t firstOperand) {
  std::string out;
  for (size_t i = 0; firstArg + i < args.size() && firstOperand + i < op.numOperands(); ++i)
    out += fmt::format("{}{} = {}", i ? ", " : "", args[firstArg + i],
                       name(op.operand(firstOperand + i)));
  return out;
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
    std::vector<std::string> args = declareArgs(op.region(0));
    out_ += fmt::format(" ({}) : ({}) -> ({}) ", initList(args, 0, op, 0), typeList(op.operands()),
                        typeList(op.results()));
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
  // Block arguments of custom-form regions belong to the region's scope: each case that has them
  // opens it (declareArgs) so that the header can name them, and printRegion reuses it.
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
    if (op.numResults())
      out_ += fmt::format("iter_args({}) -> ({}) ", initList(iv, 1, op, 3), typeList(op.results()));
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

} // namespace ttlplan::ir::printing
