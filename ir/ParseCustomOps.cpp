#include "ttlplan/ir/ParserDetail.h"

namespace ttlplan::ir::parsing {

bool Parser::parseKernel(OpState& state) {
  if (!is(TokenKind::AtIdent))
    return error(fmt::format("expected kernel name like @matmul, found {}", found()));
  state.attributes.push_back({"sym_name", Attribute::string(tok_.text)});
  consume();
  std::vector<ArgDecl> args;
  if (!expect(TokenKind::LParen, "to start the kernel arguments") ||
      !parseArgDecls(args, true, TokenKind::RParen))
    return false;
  if (!parseOptionalAttrDictWithKeyword(state.attributes)) return false;
  return addRegion(state, args);
}

bool Parser::parseFuncSignatureEntry(std::vector<ArgDecl>& named, std::vector<Type>& types,
                                     std::vector<Attribute>& attrs) {
  // `%a: T {attrs} loc(..)` in a definition, `T {attrs}` in a declaration; not both in one list.
  bool isNamed = is(TokenKind::PercentIdent);
  if (!types.empty() && isNamed != (named.size() == types.size()))
    return error("name every argument (%a: T) or none (a declaration lists types only)");
  ArgDecl arg{isNamed ? tok_.text : std::string(), tok_.offset, Type(), {}, {}};
  if (isNamed) {
    consume();
    if (!expect(TokenKind::Colon, "after the argument name")) return false;
  }
  arg.type = parseType();
  if (!arg.type || !parseOptionalAttrDict(arg.attributes) || !parseOptionalLoc(arg.loc))
    return false;
  types.push_back(arg.type);
  attrs.push_back(Attribute::dictionary(arg.attributes));
  if (isNamed) named.push_back(std::move(arg));
  return true;
}

bool Parser::parseFunc(OpState& state) {
  for (const char* visibility : {"private", "public", "nested"})
    if (consumeKeyword(visibility)) {
      state.attributes.push_back({"sym_visibility", Attribute::string(visibility)});
      break;
    }
  if (!is(TokenKind::AtIdent))
    return error(fmt::format("expected function name like @reader, found {}", found()));
  state.attributes.push_back({"sym_name", Attribute::string(tok_.text)});
  size_t nameOffset = tok_.offset;
  consume();
  std::vector<ArgDecl> args;
  std::vector<Type> argTypes, resultTypes;
  std::vector<Attribute> argAttrs, resultAttrs;
  if (!expect(TokenKind::LParen, "to start the function arguments")) return false;
  if (!consumeIf(TokenKind::RParen)) {
    do {
      if (!parseFuncSignatureEntry(args, argTypes, argAttrs)) return false;
    } while (consumeIf(TokenKind::Comma));
    if (!expect(TokenKind::RParen, "after the function arguments")) return false;
  }
  if (consumeIf(TokenKind::Arrow)) {
    if (consumeIf(TokenKind::LParen)) {
      std::vector<ArgDecl> none;
      if (!consumeIf(TokenKind::RParen)) {
        do {
          if (is(TokenKind::PercentIdent)) return error("function results have types, not names");
          if (!parseFuncSignatureEntry(none, resultTypes, resultAttrs)) return false;
        } while (consumeIf(TokenKind::Comma));
        if (!expect(TokenKind::RParen, "after the function results")) return false;
      }
    } else {
      Type result = parseType();
      if (!result) return false;
      resultTypes.push_back(result);
      resultAttrs.push_back(Attribute::dictionary({}));
    }
  }
  state.attributes.push_back(
      {"function_type", Attribute::type(Type::function(argTypes, resultTypes))});
  auto anyNonEmpty = [](const std::vector<Attribute>& dicts) {
    return std::any_of(dicts.begin(), dicts.end(),
                       [](const Attribute& d) { return !d.entries().empty(); });
  };
  if (anyNonEmpty(argAttrs)) state.attributes.push_back({"arg_attrs", Attribute::array(argAttrs)});
  if (anyNonEmpty(resultAttrs))
    state.attributes.push_back({"res_attrs", Attribute::array(resultAttrs)});
  if (!parseOptionalAttrDictWithKeyword(state.attributes)) return false;
  if (!is(TokenKind::LBrace)) {
    if (!args.empty())
      return error(nameOffset, "a function with named arguments needs a body { ... }");
    state.regions.push_back(std::make_unique<Region>()); // a declaration
    return true;
  }
  if (args.size() != argTypes.size())
    return error("a function with a body names its arguments (%a: T)");
  return addRegion(state, args);
}

bool Parser::parseParam(OpState& state) {
  if (!is(TokenKind::AtIdent))
    return error(fmt::format("expected knob name like @BM, found {}", found()));
  state.attributes.push_back({"sym_name", Attribute::string(tok_.text)});
  consume();
  if (!expect(TokenKind::Equal, "after the knob name")) return false;
  if (is(TokenKind::BareIdent) && isKnobDomainFunction(tok_.text)) { // range(..), divisors(..)
    size_t p = tok_.offset;
    std::string message;
    KnobDomain domain = parseKnobDomainCall(lexer_.source(), p, message);
    if (!message.empty()) return error(p, message);
    lexer_.resetTo(p);
    consume();
    for (NamedAttribute& a : domain.toAttributes())
      state.attributes.push_back(std::move(a));
    return parseOptionalAttrDict(state.attributes);
  }
  if (!is(TokenKind::LSquare))
    return error("a knob's domain must be a list like [1, 2, 4] or [bf16, bfp8_b], "
                 "range(start, stop, step) or divisors(n)");
  consume();
  std::vector<Attribute> values;
  while (!is(TokenKind::RSquare)) {
    if (is(TokenKind::BareIdent)) { // a symbol value: `bf16`, `HiFi4`
      values.push_back(Attribute::string(tok_.text));
      consume();
    } else {
      Attribute v = parseAttribute();
      if (!v) return false;
      values.push_back(v);
    }
    if (!consumeIf(TokenKind::Comma)) break;
  }
  if (!expect(TokenKind::RSquare, "to close the knob's values")) return false;
  state.attributes.push_back({"values", Attribute::array(std::move(values))});
  return parseOptionalAttrDict(state.attributes);
}

bool Parser::parseModuleOp(OpState& state) {
  if (is(TokenKind::AtIdent)) {
    state.attributes.push_back({"sym_name", Attribute::string(tok_.text)});
    consume();
  }
  return parseOptionalAttrDictWithKeyword(state.attributes) && addRegion(state);
}

bool Parser::parseCreatePipe(OpState& state) {
  // src(x, y) dst(x, y) [to(x, y)]: each coordinate a literal or an index value.
  std::vector<Attribute> coords;
  for (const char* part : {"src", "dst", "to"}) {
    if (std::string_view(part) == "to" && !isKeyword("to")) break;
    if (!expectKeyword(part, "in create_pipe") ||
        !expect(TokenKind::LParen, fmt::format("after '{}'", part)))
      return false;
    for (int i = 0; i < 2; ++i) {
      if (i && !expect(TokenKind::Comma, "between coordinates")) return false;
      if (is(TokenKind::PercentIdent)) {
        ValueRef ref;
        if (!parseValueRef(ref)) return false;
        Value* v = resolve(ref, Type::index());
        if (!v) return false;
        state.operands.push_back(v);
        coords.push_back(Attribute::integer(kDynamicCoordinate));
      } else if (is(TokenKind::Integer) || is(TokenKind::Minus)) {
        // Negative literals too: they verify as outside the grid, but must read back as printed.
        bool negative = consumeIf(TokenKind::Minus);
        int64_t value = 0;
        if (!is(TokenKind::Integer))
          return error(fmt::format("expected a coordinate after '-', found {}", found()));
        if (!readInteger(value, negative)) return false;
        if (value == kDynamicCoordinate) return error("pipe coordinate out of range");
        coords.push_back(Attribute::integer(value));
      } else {
        return error(
            fmt::format("expected a coordinate (integer or index value), found {}", found()));
      }
    }
    if (!expect(TokenKind::RParen, "after coordinates")) return false;
  }
  state.attributes.push_back({"static_coords", Attribute::array(std::move(coords))});
  if (consumeKeyword("net")) { // tt-lang numbers the pipe's net itself
    int64_t net = 0;
    if (!is(TokenKind::Integer))
      return error(fmt::format("expected the pipe net number after 'net', found {}", found()));
    if (!readInteger(net)) return false;
    state.attributes.push_back({"net", Attribute::integer(net)});
  }
  if (!parseOptionalAttrDict(state.attributes) || !expect(TokenKind::Colon, "before the type"))
    return false;
  Type type = parseType();
  if (!type) return false;
  state.resultTypes.push_back(type);
  return true;
}

bool Parser::parseScfFor(OpState& state) {
  // `%iv = %lb to %ub step %s [iter_args(%a = %init, ..) -> (T, ..)] { ... }`
  if (!is(TokenKind::PercentIdent))
    return error(fmt::format("expected induction variable like %k, found {}", found()));
  std::vector<ArgDecl> args{{tok_.text, tok_.offset, Type::index(), {}, {}}};
  consume();
  if (!expect(TokenKind::Equal, "after the induction variable")) return false;
  for (const char* word : {"", "to", "step"}) {
    if (*word && !expectKeyword(word, "in scf.for")) return false;
    ValueRef ref;
    if (!parseValueRef(ref)) return false;
    Value* v = resolve(ref, Type::index());
    if (!v) return false;
    state.operands.push_back(v);
  }
  if (consumeKeyword("iter_args")) {
    std::vector<ValueRef> inits;
    if (!parseInitList(args, inits) ||
        !expect(TokenKind::Arrow, "before the loop's result types") ||
        !parseResultTypeList(state.resultTypes))
      return false;
    if (state.resultTypes.size() != inits.size())
      return error(fmt::format("iter_args has {} values but the loop {} result types", inits.size(),
                               state.resultTypes.size()));
    for (size_t i = 0; i < inits.size(); ++i)
      args[i + 1].type = state.resultTypes[i];
    if (!addOperands(inits, state.resultTypes, state, tok_.offset)) return false;
  }
  return addRegion(state, args) && parseOptionalAttrDict(state.attributes);
}

bool Parser::parseInitList(std::vector<ArgDecl>& args, std::vector<ValueRef>& inits) {
  // `(%a = %init, %b = %init2)`: the region arguments and the values they start from.
  if (!expect(TokenKind::LParen, "to start the loop-carried values")) return false;
  if (consumeIf(TokenKind::RParen)) return true;
  do {
    if (!is(TokenKind::PercentIdent))
      return error(fmt::format("expected a loop-carried value like %acc, found {}", found()));
    args.push_back({tok_.text, tok_.offset, Type(), {}, {}});
    consume();
    inits.emplace_back();
    if (!expect(TokenKind::Equal, "after the loop-carried value") || !parseValueRef(inits.back()))
      return false;
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::RParen, "after the loop-carried values");
}

bool Parser::parseResultTypeList(std::vector<Type>& types) {
  // `(T, U)` or a single `T`.
  if (!consumeIf(TokenKind::LParen)) {
    Type type = parseType();
    if (!type) return false;
    types.push_back(type);
    return true;
  }
  if (consumeIf(TokenKind::RParen)) return true;
  return parseTypeList(types) && expect(TokenKind::RParen, "after the result types");
}

bool Parser::parseScfIf(OpState& state) {
  // `%c [-> (T, ..)] { ... } [else { ... }]`
  ValueRef ref;
  if (!parseValueRef(ref)) return false;
  Value* cond = resolve(ref, Type::integer(1));
  if (!cond) return false;
  state.operands.push_back(cond);
  if (consumeIf(TokenKind::Arrow) && !parseResultTypeList(state.resultTypes)) return false;
  if (!addRegion(state)) return false;
  state.regions.push_back(std::make_unique<Region>());
  if (consumeKeyword("else") && !parseRegion(*state.regions.back(), {}, false)) return false;
  return parseOptionalAttrDict(state.attributes);
}

bool Parser::parseArithConstant(OpState& state) {
  if (!parseOptionalAttrDict(state.attributes)) return false;
  size_t at = tok_.offset;
  if (is(TokenKind::BareIdent) && nextChar() == '<') { // dense<1.0> : tensor<4xf32>
    Type type;
    Attribute value = parseOpaqueBuiltin(&type);
    if (!value) return false;
    if (!type) return error(at, "expected ': type' after the constant's value");
    state.attributes.push_back({"value", value});
    state.resultTypes.push_back(type);
    return true;
  }
  Attribute value = parseAttribute();
  if (!value) return false;
  if (!value.is(AttrKind::Integer) && !value.is(AttrKind::Float) && !value.is(AttrKind::Bool))
    return error(at, "arith.constant takes a number like `2 : index` or `true`");
  state.attributes.push_back({"value", value});
  state.resultTypes.push_back(value.valueType());
  return true;
}

bool Parser::parseArithCmpi(OpState& state) {
  // `arith.cmpi slt, %a, %b : T` and `arith.cmpf olt, %a, %b : T`; the predicate is its index.
  std::span<const std::string_view> predicates = comparePredicates(state.name);
  std::string names = fmt::format("{}", fmt::join(predicates.first(predicates.size() - 1), ", ")) +
                      " or " + std::string(predicates.back());
  if (!is(TokenKind::BareIdent))
    return error(fmt::format("expected a predicate ({}), found {}", names, found()));
  auto it = std::find(predicates.begin(), predicates.end(), tok_.text);
  if (it == predicates.end())
    return error(fmt::format("unknown predicate '{}'; expected {}", tok_.text, names));
  consume();
  state.attributes.push_back({"predicate", Attribute::integer(it - predicates.begin())});
  if (!expect(TokenKind::Comma, "after the predicate")) return false;
  OpDef sameType{"", "", AsmFormat::SameType, Placement::Anywhere, 2, 0, 0, TypeKind::Opaque};
  if (!parseSameType(state, sameType)) return false;
  state.resultTypes.push_back(Type::integer(1));
  return true;
}

bool Parser::parseCustomOp(const OpDef& def, OpState& state) {
  auto typed = [&](const ValueRef& ref, Type type) {
    Value* v = resolve(ref, type);
    if (v) state.operands.push_back(v);
    return v != nullptr;
  };
  auto colonType = [&](Type& type) {
    if (!expect(TokenKind::Colon, "before the type")) return false;
    type = parseType();
    return static_cast<bool>(type);
  };
  switch (def.format) {
  case AsmFormat::Generic:
    return false;
  case AsmFormat::Module:
    return parseModuleOp(state);
  case AsmFormat::Kernel:
    return parseKernel(state);
  case AsmFormat::Func:
    return parseFunc(state);
  case AsmFormat::Param:
    return parseParam(state);
  case AsmFormat::Thread:
    return addRegion(state) && parseOptionalAttrDict(state.attributes);
  case AsmFormat::WorkLoop: {
    std::vector<ArgDecl> ivs;
    if (!expect(TokenKind::LParen, "to start the work item indices") ||
        !parseArgDecls(ivs, false, TokenKind::RParen))
      return false;
    return addRegion(state, ivs) && parseOptionalAttrDict(state.attributes);
  }
  case AsmFormat::ResultType: {
    Type type;
    while (is(TokenKind::LBrace)) // tt-lang's bind_cb writes its inherent attributes apart
      if (!parseAttrDict(state.attributes)) return false;
    if (!colonType(type)) return false;
    state.resultTypes.push_back(type);
    return true;
  }
  case AsmFormat::Convert: {
    ValueRef ref;
    Type from, to;
    if (!parseValueRef(ref) || !parseOptionalAttrDict(state.attributes) || !colonType(from) ||
        !typed(ref, from) || !expect(TokenKind::Arrow, "before the result type"))
      return false;
    to = parseType();
    if (!to) return false;
    state.resultTypes.push_back(to);
    return true;
  }
  case AsmFormat::SameType:
    return parseSameType(state, def);
  case AsmFormat::ImpliedTypes:
  case AsmFormat::PipeRegion: {
    std::vector<ValueRef> refs;
    // An op without operands (ttl.dma_barrier) must not take in the next op's `%x = ...`.
    if (def.numOperands != 0 && !parseValueRefList(refs)) return false;
    Type implied = impliedOperandType(def);
    if (def.format == AsmFormat::PipeRegion && consumeIf(TokenKind::Colon)) { // tt-lang: `: type`
      size_t at = tok_.offset;
      Type written = parseType();
      if (!written) return false;
      if (written != implied)
        return error(at, fmt::format("expected a pipe type, found {}", written.str()));
    }
    if (!addOperands(refs, implied, state)) return false;
    if (def.format == AsmFormat::PipeRegion && !addRegion(state)) return false;
    return parseOptionalAttrDict(state.attributes);
  }
  case AsmFormat::Functional: {
    std::vector<ValueRef> refs;
    return parseValueRefList(refs) && parseOptionalAttrDict(state.attributes) &&
           expect(TokenKind::Colon, "before the type") && parseFunctionalType(refs, state);
  }
  case AsmFormat::Slice: {
    ValueRef source;
    std::vector<ValueRef> indices;
    Type from, to;
    if (!parseValueRef(source) || !expect(TokenKind::LSquare, "before the slice indices") ||
        !parseValueRefList(indices) || !expect(TokenKind::RSquare, "after the slice indices") ||
        !parseOptionalAttrDict(state.attributes) || !colonType(from) || !typed(source, from))
      return false;
    if (!addOperands(indices, Type::index(), state)) return false;
    if (!expect(TokenKind::Arrow, "before the result type")) return false;
    to = parseType();
    if (!to) return false;
    state.resultTypes.push_back(to);
    return true;
  }
  case AsmFormat::Matmul: {
    ValueRef a, b;
    Type ta, tb, tr;
    if (!parseValueRef(a) || !expect(TokenKind::Comma, "between matmul operands") ||
        !parseValueRef(b) || !parseOptionalAttrDict(state.attributes) || !colonType(ta) ||
        !typed(a, ta) || !expect(TokenKind::Comma, "between matmul operand types"))
      return false;
    tb = parseType();
    if (!tb || !typed(b, tb) || !expect(TokenKind::Arrow, "before the result type")) return false;
    tr = parseType();
    if (!tr) return false;
    state.resultTypes.push_back(tr);
    return true;
  }
  case AsmFormat::CreatePipe:
    return parseCreatePipe(state);
  case AsmFormat::ParamValue: {
    if (!is(TokenKind::AtIdent))
      return error(fmt::format("expected knob name like @BK, found {}", found()));
    state.attributes.push_back({"param", Attribute::symbolRef(tok_.text)});
    consume();
    Type type;
    if (!parseOptionalAttrDict(state.attributes) || !colonType(type)) return false;
    state.resultTypes.push_back(type);
    return true;
  }
  case AsmFormat::ScfFor:
    return parseScfFor(state);
  case AsmFormat::ScfIf:
    return parseScfIf(state);
  case AsmFormat::ScfYield: {
    std::vector<ValueRef> refs;
    if (!parseValueRefList(refs)) return false;
    if (refs.empty()) return true;
    std::vector<Type> types;
    if (!expect(TokenKind::Colon, "before the yielded types") || !parseTypeList(types))
      return false;
    if (types.size() != refs.size())
      return error("yield lists a different number of values and types");
    for (size_t i = 0; i < refs.size(); ++i)
      if (!typed(refs[i], types[i])) return false;
    return true;
  }
  case AsmFormat::Reduce:
    return parseReduce(state);
  case AsmFormat::BlockBroadcast:
    return parseBlockBroadcast(state);
  case AsmFormat::FillValue:
    return parseFillValue(state);
  case AsmFormat::Compute:
    return parseCompute(state);
  case AsmFormat::IntoDst:
    return parseIntoDst(def, state);
  case AsmFormat::TileStore:
    return parseTileStore(state);
  case AsmFormat::IterIndex: {
    if (!is(TokenKind::Integer))
      return error(fmt::format("expected the dimension, an integer, found {}", found()));
    int64_t dim = 0;
    if (!readInteger(dim)) return false;
    state.attributes.push_back({"dim", Attribute::integer(dim)});
    Type type;
    if (!parseOptionalAttrDict(state.attributes) || !colonType(type)) return false;
    state.resultTypes.push_back(type);
    return true;
  }
  case AsmFormat::ArithConstant:
    return parseArithConstant(state);
  case AsmFormat::ArithCmpi:
    return parseArithCmpi(state);
  case AsmFormat::Cast:
  case AsmFormat::ValueConvert:
  case AsmFormat::ElementWrite:
  case AsmFormat::ParenOperands:
  case AsmFormat::Predicate:
  case AsmFormat::KeywordScope:
  case AsmFormat::ExtractSlice:
  case AsmFormat::ScfWhile:
  case AsmFormat::ScfCondition:
    return parseUpstreamForm(def, state);
  case AsmFormat::EmptyCall: { // `(%dynamic sizes, ..) : R`
    std::vector<ValueRef> sizes;
    Type type;
    if (!expect(TokenKind::LParen, fmt::format("after {}", state.name)) ||
        !parseValueRefList(sizes) || !expect(TokenKind::RParen, "after the dynamic sizes") ||
        !addOperands(sizes, Type::index(), state) || !parseOptionalAttrDict(state.attributes) ||
        !colonType(type))
      return false;
    state.resultTypes.push_back(type);
    return true;
  }
  case AsmFormat::Extract: {
    ValueRef source;
    std::vector<ValueRef> indices;
    Type from;
    if (!parseValueRef(source) || !expect(TokenKind::LSquare, "before the indices") ||
        !parseValueRefList(indices) || !expect(TokenKind::RSquare, "after the indices") ||
        !parseOptionalAttrDict(state.attributes) || !colonType(from) || !typed(source, from) ||
        !addOperands(indices, Type::index(), state))
      return false;
    Type element = from.elementType();
    if (!element) return error("tensor.extract reads a ranked tensor");
    state.resultTypes.push_back(element);
    return true;
  }
  }
  return false;
}

} // namespace ttlplan::ir::parsing
