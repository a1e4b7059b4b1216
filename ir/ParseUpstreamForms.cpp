// Custom forms that tt-lang's printer and upstream MLIR dialects write and ttlplan reads so that
// tt-lang's pass dumps print back: casts, tt-lang's pipe-net queries and scopes, its element and
// scaling ops, `tensor.extract_slice` and `scf.while`. Each form is one OpRegistry AsmFormat; its
// syntax is that format's record (ttlplan ops --markdown), its printer is in ir/PrintCustomOps.cpp.
#include "ttlplan/ir/ParserDetail.h"

#include <fmt/format.h>

namespace ttlplan::ir::parsing {

bool Parser::parseUpstreamForm(const OpDef& def, OpState& state) {
  auto colonType = [&](Type& type) {
    if (!expect(TokenKind::Colon, "before the type")) return false;
    type = parseType();
    return static_cast<bool>(type);
  };
  switch (def.format) {
  case AsmFormat::Cast: { // `%x : T to R`; builtin's cast is variadic: `[%a, .. : T, ..] to R, ..`
    std::vector<ValueRef> refs;
    std::vector<Type> types;
    if (!parseValueRefList(refs) || !parseOptionalAttrDict(state.attributes)) return false;
    if (!refs.empty()) {
      if (!expect(TokenKind::Colon, "before the operand types")) return false;
      size_t at = tok_.offset;
      if (!parseTypeList(types) || !addOperands(refs, types, state, at)) return false;
    }
    return expectKeyword("to", "before the result type") && parseTypeList(state.resultTypes) &&
           parseOptionalAttrDict(state.attributes); // builtin's cast writes them last
  }
  case AsmFormat::ValueConvert: { // `%x, 5.0e-01 : T -> R`
    ValueRef ref;
    Type from;
    if (!parseValueRef(ref) || !expect(TokenKind::Comma, "before the value") ||
        !parseF32Value(state) || !parseOptionalAttrDict(state.attributes) || !colonType(from) ||
        !addOperands({ref}, from, state) || !expect(TokenKind::Arrow, "before the result type"))
      return false;
    Type to = parseType();
    if (!to) return false;
    state.resultTypes.push_back(to);
    return true;
  }
  case AsmFormat::ElementWrite: { // `%blk[%i, %j], %v : T, E`
    ValueRef block, value;
    std::vector<ValueRef> indices;
    Type blockType, valueType;
    if (!parseValueRef(block) || !expect(TokenKind::LSquare, "before the element indices") ||
        !parseValueRefList(indices) || !expect(TokenKind::RSquare, "after the element indices") ||
        !expect(TokenKind::Comma, "before the value") || !parseValueRef(value) ||
        !parseOptionalAttrDict(state.attributes) || !colonType(blockType) ||
        !expect(TokenKind::Comma, "between the block and value types"))
      return false;
    valueType = parseType();
    return valueType && addOperands({block}, blockType, state) &&
           addOperands(indices, Type::index(), state) && addOperands({value}, valueType, state);
  }
  case AsmFormat::ParenOperands: { // `(%a, %b) : T, U`
    std::vector<ValueRef> refs;
    std::vector<Type> types;
    if (!expect(TokenKind::LParen, "before the operands") || !parseValueRefList(refs) ||
        !expect(TokenKind::RParen, "after the operands") ||
        !parseOptionalAttrDict(state.attributes) || !expect(TokenKind::Colon, "before the types"))
      return false;
    size_t at = tok_.offset;
    return parseTypeList(types) && addOperands(refs, types, state, at);
  }
  case AsmFormat::Predicate:
    state.resultTypes.push_back(Type::integer(1));
    return parseOptionalAttrDict(state.attributes);
  case AsmFormat::KeywordScope:
    return parseOptionalAttrDictWithKeyword(state.attributes) && addRegion(state);
  case AsmFormat::ExtractSlice:
    return parseExtractSlice(state);
  case AsmFormat::ScfWhile:
    return parseScfWhile(state);
  case AsmFormat::ScfCondition: { // `(%c) [%a, .. : T, ..]`
    ValueRef cond;
    if (!expect(TokenKind::LParen, "before the condition") || !parseValueRef(cond) ||
        !expect(TokenKind::RParen, "after the condition") ||
        !addOperands({cond}, Type::integer(1), state))
      return false;
    std::vector<ValueRef> refs;
    std::vector<Type> types;
    if (!parseValueRefList(refs)) return false;
    if (refs.empty()) return true;
    if (!expect(TokenKind::Colon, "before the forwarded values' types")) return false;
    size_t at = tok_.offset;
    return parseTypeList(types) && addOperands(refs, types, state, at);
  }
  default:
    return false;
  }
}

bool Parser::parseSliceList(std::vector<int64_t>& statics, std::vector<ValueRef>& dynamics) {
  // `[0, %off, 2]`: an integer is static; a value is dynamic (kDynamicCoordinate in `statics`).
  if (!expect(TokenKind::LSquare, "before the slice's offsets, sizes or strides")) return false;
  if (consumeIf(TokenKind::RSquare)) return true;
  do {
    if (is(TokenKind::PercentIdent)) {
      dynamics.emplace_back();
      if (!parseValueRef(dynamics.back())) return false;
      statics.push_back(kDynamicCoordinate);
      continue;
    }
    int64_t value = 0;
    if (!is(TokenKind::Integer))
      return error(fmt::format("expected an integer or a value like %i, found {}", found()));
    if (!readInteger(value)) return false;
    statics.push_back(value);
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::RSquare, "after the slice's offsets, sizes or strides");
}

bool Parser::parseExtractSlice(OpState& state) {
  // `%t[o, ..] [s, ..] [t, ..] : T to R`, stored as MLIR stores it: the static entries in
  // static_offsets / static_sizes / static_strides, the dynamic ones as operands after the source.
  ValueRef source;
  std::vector<int64_t> statics[3];
  std::vector<ValueRef> dynamics[3];
  if (!parseValueRef(source)) return false;
  for (int i = 0; i < 3; ++i)
    if (!parseSliceList(statics[i], dynamics[i])) return false;
  Type from;
  if (!parseOptionalAttrDict(state.attributes) || !expect(TokenKind::Colon, "before the type"))
    return false;
  from = parseType();
  if (!from || !addOperands({source}, from, state)) return false;
  for (const auto& list : dynamics)
    if (!addOperands(list, Type::index(), state)) return false;
  if (!expectKeyword("to", "before the result type")) return false;
  Type to = parseType();
  if (!to) return false;
  state.resultTypes.push_back(to);
  const char* names[] = {"static_offsets", "static_sizes", "static_strides"};
  for (int i = 0; i < 3; ++i)
    state.attributes.push_back({names[i], Attribute::denseArray(Type::integer(64), statics[i])});
  state.attributes.push_back(
      {"operand_segment_sizes",
       Attribute::denseArray(Type::integer(32),
                             {1, int64_t(dynamics[0].size()), int64_t(dynamics[1].size()),
                              int64_t(dynamics[2].size())})});
  return true;
}

bool Parser::parseScfWhile(OpState& state) {
  // `(%a = %init, ..) : (T, ..) -> (R, ..) { before } do { ^bb0(%x: R, ..): after }`
  std::vector<ArgDecl> args;
  std::vector<ValueRef> inits;
  if (!parseInitList(args, inits) || !expect(TokenKind::Colon, "before the loop's types"))
    return false;
  size_t at = tok_.offset;
  Type fn = parseType();
  if (!fn) return false;
  if (!fn.is(TypeKind::Function))
    return error(at,
                 fmt::format("expected the loop's types like (i32) -> (i32), found {}", fn.str()));
  const std::vector<Type>& inputs = fn.inputs();
  if (inputs.size() != inits.size())
    return error(at, fmt::format("the loop starts from {} values but its type lists {}",
                                 inits.size(), inputs.size()));
  for (size_t i = 0; i < inits.size(); ++i)
    args[i].type = inputs[i];
  if (!addOperands(inits, inputs, state, at)) return false;
  state.resultTypes = fn.results();
  if (!addRegion(state, args) || !expectKeyword("do", "before scf.while's after region"))
    return false;
  return addRegion(state, {}, true) && parseOptionalAttrDictWithKeyword(state.attributes);
}

} // namespace ttlplan::ir::parsing
