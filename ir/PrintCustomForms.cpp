// Which ops the custom form can hold (printing::canPrintCustom): the op's record's counts, and
// what each format's syntax needs of its operands, results, regions and attributes.
#include "ttlplan/ir/PrinterDetail.h"

#include <algorithm>
#include <cmath>

namespace ttlplan::ir::printing {

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

} // namespace

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

} // namespace ttlplan::ir::printing
