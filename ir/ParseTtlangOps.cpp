// tt-lang's own op forms (tenstorrent/tt-lang include/ttlang/Dialect/TTL/IR/TTLOps.td, each op's
// assemblyFormat): `ttl.reduce`, `ttl.block.broadcast`, `ttl.fill`, `ttl.compute` and the tile
// ops that write DST. Their records are in ir/OpRegistry.cpp; ParseCustomOps.cpp dispatches here.
#include "ttlplan/ir/ParserDetail.h"

namespace ttlplan::ir::parsing {

bool Parser::parseReduce(OpState& state) {
  // tt-lang: `%r = ttl.reduce %x, %scaler 0 : i32 [0, 1] : (T0, T1) -> R` (0 sum, 1 max).
  ValueRef input, scaler;
  if (!parseValueRef(input) || !expect(TokenKind::Comma, "between the input and the scaler") ||
      !parseValueRef(scaler))
    return false;
  size_t at = tok_.offset;
  Attribute kind = parseAttribute();
  if (!kind) return false;
  if (!kind.is(AttrKind::Integer))
    return error(at, "expected the reduction kind, 0 : i32 (sum) or 1 : i32 (max)");
  at = tok_.offset;
  Attribute dims = parseAttribute();
  std::vector<int64_t> values;
  if (!dims) return false;
  if (!dims.getIntegers(values)) return error(at, "expected the reduced dims, like [0, 1]");
  state.attributes.push_back({"reduce_type", kind});
  state.attributes.push_back({"dims", dims});
  return parseOptionalAttrDict(state.attributes) && expect(TokenKind::Colon, "before the type") &&
         parseFunctionalType({input, scaler}, state);
}

bool Parser::parseI64List(std::vector<int64_t>& out) {
  if (!expect(TokenKind::LSquare, "to start the list")) return false;
  if (consumeIf(TokenKind::RSquare)) return true;
  do {
    bool negative = consumeIf(TokenKind::Minus);
    if (!is(TokenKind::Integer))
      return error(fmt::format("expected an integer, found {}", found()));
    int64_t v = 0;
    if (!readInteger(v, negative)) return false;
    out.push_back(v);
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::RSquare, "to close the list");
}

bool Parser::parseBlockBroadcast(OpState& state) {
  // tt-lang: `%r = ttl.block.broadcast %a dims = [1], shape = [4, 8] : T -> R`.
  ValueRef input;
  if (!parseValueRef(input)) return false;
  for (const char* key : {"dims", "shape"}) {
    std::vector<int64_t> values;
    if (std::string_view(key) == "shape" && !expect(TokenKind::Comma, "before 'shape'"))
      return false;
    if (!expectKeyword(key, "in ttl.block.broadcast") ||
        !expect(TokenKind::Equal, fmt::format("after '{}'", key)) || !parseI64List(values))
      return false;
    state.attributes.push_back({key, Attribute::denseArray(Type::integer(64), values)});
  }
  Type from, to;
  if (!parseOptionalAttrDict(state.attributes) || !expect(TokenKind::Colon, "before the type"))
    return false;
  from = parseType();
  if (!from) return false;
  Value* v = resolve(input, from);
  if (!v || !expect(TokenKind::Arrow, "before the result type")) return false;
  state.operands.push_back(v);
  to = parseType();
  if (!to) return false;
  state.resultTypes.push_back(to);
  return true;
}

bool Parser::parseFillValue(OpState& state) {
  // tt-lang: `%s = ttl.fill 1.000000e+00 : T` (an f32 without its type).
  Type type;
  if (!parseF32Value(state) || !parseOptionalAttrDict(state.attributes) ||
      !expect(TokenKind::Colon, "before the type"))
    return false;
  type = parseType();
  if (!type) return false;
  state.resultTypes.push_back(type);
  return true;
}

bool Parser::parseF32Value(OpState& state) {
  // `1.000000e+00` as an f32 `value` (tt-lang's F32Attr, written without its type).
  bool negative = consumeIf(TokenKind::Minus);
  if (!is(TokenKind::Float) && !is(TokenKind::Integer))
    return error(fmt::format("expected the fill value, a number, found {}", found()));
  errno = 0;
  double value = std::strtod(std::string(tok_.spelling).c_str(), nullptr);
  if (errno == ERANGE) return error(fmt::format("{} does not fit in an f32", tok_.spelling));
  consume();
  state.attributes.push_back(
      {"value", Attribute::floating(negative ? -value : value, Type::floating(FloatKind::F32))});
  return true;
}

bool Parser::parseTypedRefs(std::vector<ValueRef>& refs, OpState& state) {
  // `%a, %b : T, U` up to the closing ')' (or nothing); appends the resolved operands.
  if (is(TokenKind::RParen)) return true;
  std::vector<Type> types;
  size_t at = tok_.offset;
  return parseValueRefList(refs) && expect(TokenKind::Colon, "before the operand types") &&
         parseTypeList(types) && addOperands(refs, types, state, at);
}

bool Parser::parseCompute(OpState& state) {
  // tt-lang: `ttl.compute ins(%a : T) outs(%o : U) {..} { ^bb0(..): ... ttl.yield } -> R`.
  std::vector<int64_t> segments;
  for (const char* word : {"ins", "outs"}) {
    std::vector<ValueRef> refs;
    if (!expectKeyword(word, "in ttl.compute") ||
        !expect(TokenKind::LParen, fmt::format("after '{}'", word)) ||
        !parseTypedRefs(refs, state) ||
        !expect(TokenKind::RParen, fmt::format("to close '{}'", word)))
      return false;
    segments.push_back(int64_t(refs.size()));
  }
  state.attributes.push_back(
      {"operandSegmentSizes", Attribute::denseArray(Type::integer(32), segments)});
  // The body starts with its `^bb0(...)` label, which tells it from an attribute dictionary.
  bool bodyNext = is(TokenKind::LBrace) && peek().kind == TokenKind::CaretIdent;
  if (!bodyNext && !parseOptionalAttrDict(state.attributes)) return false;
  if (!addRegion(state, {}, true) || !expect(TokenKind::Arrow, "before the result types"))
    return false;
  if (consumeIf(TokenKind::LParen)) {
    if (!is(TokenKind::RParen) && !parseTypeList(state.resultTypes)) return false;
    return expect(TokenKind::RParen, "to close the result types");
  }
  Type result = parseType();
  if (!result) return false;
  state.resultTypes.push_back(result);
  return true;
}

bool Parser::parseDstIndex(const char* word, ValueRef& index) {
  // `into dst[%i]` / `from dst[%i]`
  return expectKeyword(word, "before the DST index") && expectKeyword("dst", "before '['") &&
         expect(TokenKind::LSquare, "after 'dst'") && parseValueRef(index) &&
         expect(TokenKind::RSquare, "after the DST index");
}

bool Parser::parseIntoDst(const OpDef& def, OpState& state) {
  // tt-lang's tile ops: `%r = ttl.tile_add %a, %b into dst[%i] : T, T -> T`, with the variations
  // the op record's TileSyntax gives (`ttl.tile_fill 1.0 into dst[%i] : T`, `ttl.copy_tile
  // %cb[%j] into dst[%i] : C -> !ttl.dst, T`, `ttl.tile_bcast %a, %o 1 : i32 into dst[%i] : (T, T)
  // -> T`).
  const TileSyntax& syntax = def.tile;
  if (syntax.valueFirst && !parseF32Value(state)) return false;
  std::vector<ValueRef> refs, indices;
  if (syntax.valueAfter) { // `%a, 1.25 into dst[..]`
    refs.emplace_back();
    if (!parseValueRef(refs.back()) || !expect(TokenKind::Comma, "before the value") ||
        !parseF32Value(state))
      return false;
  } else if (!syntax.valueFirst && !parseValueRefList(refs)) {
    return false;
  }
  if (syntax.indexedFirst &&
      (refs.size() != 1 || !expect(TokenKind::LSquare, "before the tile indices") ||
       !parseValueRefList(indices) || !expect(TokenKind::RSquare, "after the tile indices")))
    return error(fmt::format("expected %cb[%i, ...] in {}", state.name));
  for (std::string_view name : syntax.attributes) {
    if (name.empty()) continue;
    // An enum the op's format prints bare, `<reduce_dim_col>`: MLIR's attribute dictionary
    // (the generic form) spells it `#ttkernel.reduce_dim<reduce_dim_col>`.
    std::string text = "#ttkernel.reduce_dim";
    Attribute value = is(TokenKind::Less)
                          ? (captureBalanced(text) ? Attribute::opaque(text) : Attribute())
                          : parseAttribute();
    if (!value) return false;
    state.attributes.push_back({std::string(name), value});
  }
  ValueRef index;
  if (!parseDstIndex("into", index) || !parseOptionalAttrDict(state.attributes) ||
      !expect(TokenKind::Colon, "before the types"))
    return false;
  size_t at = tok_.offset;
  std::vector<Type> types;
  bool parens = syntax.parenTypes && consumeIf(TokenKind::LParen);
  if (!parseTypeList(types) || (parens && !expect(TokenKind::RParen, "after the operand types")))
    return false;
  if (refs.empty()) // `: R`: the result type only
    state.resultTypes = types;
  else if (!addOperands(refs, types, state, at))
    return false;
  if (!addOperands(indices, Type::index(), state) || !addOperands({index}, Type::index(), state))
    return false;
  if (refs.empty()) return true;
  return expect(TokenKind::Arrow, "before the result type") && parseTypeList(state.resultTypes);
}

bool Parser::parseTileStore(OpState& state) {
  // tt-lang: `ttl.tile_store %t, %view[%i, %j] from dst[%k] : T, V`.
  ValueRef tile, view, index;
  std::vector<ValueRef> indices;
  if (!parseValueRef(tile) || !expect(TokenKind::Comma, "between the tile and the view") ||
      !parseValueRef(view) || !expect(TokenKind::LSquare, "before the tile indices") ||
      (!is(TokenKind::RSquare) && !parseValueRefList(indices)) ||
      !expect(TokenKind::RSquare, "after the tile indices") || !parseDstIndex("from", index) ||
      !parseOptionalAttrDict(state.attributes) || !expect(TokenKind::Colon, "before the types"))
    return false;
  Type tileType = parseType();
  if (!tileType || !expect(TokenKind::Comma, "between the tile and view types")) return false;
  Type viewType = parseType();
  if (!viewType) return false;
  return addOperands({tile, view}, {tileType, viewType}, state, tok_.offset) &&
         addOperands(indices, Type::index(), state) && addOperands({index}, Type::index(), state);
}

} // namespace ttlplan::ir::parsing
