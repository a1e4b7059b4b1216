#include "ttlplan/ir/ParserDetail.h"

namespace ttlplan::ir::parsing {

// ================================================================================================
// Attributes
// ================================================================================================

/// The largest finite value of each float kind; a literal beyond it does not fit.
static double maxFinite(FloatKind kind) {
  switch (kind) {
  case FloatKind::BF16:
    return 3.3895313892515355e38;
  case FloatKind::F16:
    return 65504.0;
  case FloatKind::F32:
    return std::numeric_limits<float>::max();
  case FloatKind::F64:
    return std::numeric_limits<double>::max();
  }
  return 0;
}

/// A float from its bit pattern in the type's width (`0x7F800000 : f32`), the spelling MLIR
/// and our printer use for infinities and NaNs.
static double floatFromBits(uint64_t bits, FloatKind kind) {
  switch (kind) {
  case FloatKind::F64:
    return std::bit_cast<double>(bits);
  case FloatKind::F32:
    return std::bit_cast<float>(static_cast<uint32_t>(bits));
  case FloatKind::BF16:
    return std::bit_cast<float>(static_cast<uint32_t>(bits << 16));
  case FloatKind::F16: {
    int exponent = int(bits >> 10) & 0x1f;
    double sign = (bits & 0x8000) ? -1.0 : 1.0, mantissa = double(bits & 0x3ff);
    if (exponent == 0x1f)
      return mantissa ? std::numeric_limits<double>::quiet_NaN()
                      : sign * std::numeric_limits<double>::infinity();
    if (exponent == 0) return sign * std::ldexp(mantissa, -24);
    return sign * std::ldexp(1024.0 + mantissa, exponent - 25);
  }
  }
  return 0;
}

Attribute Parser::parseNumber(bool negative, size_t offset) {
  Token number = tok_;
  bool isFloat = is(TokenKind::Float);
  consume();
  Type type;
  if (consumeIf(TokenKind::Colon)) {
    type = parseType();
    if (!type) return Attribute();
  }
  std::string text = std::string(negative ? "-" : "") + std::string(number.spelling);
  if (!isFloat && !(type && type.is(TypeKind::Float))) {
    std::optional<int64_t> value = integerValue(number.spelling, negative);
    if (!value) {
      error(offset, fmt::format("integer {} does not fit in 64 bits", text));
      return Attribute();
    }
    return Attribute::integer(*value, type);
  }
  FloatKind kind = type ? type.floatKind() : FloatKind::F64;
  bool hexBits = !isFloat && number.spelling.rfind("0x", 0) == 0;
  if (hexBits && !negative) {
    std::optional<int64_t> bits = integerValue(number.spelling, false);
    if (!bits) {
      error(offset, fmt::format("bit pattern {} does not fit in 64 bits", text));
      return Attribute();
    }
    return Attribute::floating(floatFromBits(uint64_t(*bits), kind), type);
  }
  errno = 0;
  double value = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE || std::abs(value) > maxFinite(kind)) {
    error(offset,
          fmt::format("{} does not fit in {}", text, type ? type.str() : std::string("f64")));
    return Attribute();
  }
  return Attribute::floating(value, type);
}

Attribute Parser::parseLayout() {
  // `#ttl.layout<dram, interleaved>`, `#ttl.layout<l1, sharded, grid = [2, 2], shard = [64, 64]>`.
  if (!expect(TokenKind::Less, "after '#ttl.layout'")) return Attribute();
  Layout layout;
  if (isKeyword("dram"))
    layout.memory = MemorySpace::Dram;
  else if (isKeyword("l1"))
    layout.memory = MemorySpace::L1;
  else {
    error(fmt::format("expected memory space 'dram' or 'l1', found {}", found()));
    return Attribute();
  }
  consume();
  if (!expect(TokenKind::Comma, "after the memory space")) return Attribute();
  if (consumeKeyword("interleaved")) {
    if (!expect(TokenKind::Greater, "to close '#ttl.layout<'")) return Attribute();
    return Attribute::layout(layout);
  }
  if (!expectKeyword("sharded", "(or 'interleaved') in layout")) return Attribute();
  layout.sharded = true;
  for (const char* key : {"grid", "shard"}) {
    if (!expect(TokenKind::Comma, "in sharded layout") ||
        !expectKeyword(key, "in sharded layout") ||
        !expect(TokenKind::Equal, fmt::format("after '{}'", key)))
      return Attribute();
    size_t at = tok_.offset;
    Attribute list = parseAttribute();
    std::vector<int64_t> values;
    if (!list) return Attribute();
    if (!list.getIntegers(values) || values.size() != 2) {
      error(at, fmt::format("'{}' must be a list of two integers", key));
      return Attribute();
    }
    (std::string_view(key) == "grid" ? layout.grid : layout.shard) = values;
  }
  if (!expect(TokenKind::Greater, "to close '#ttl.layout<'")) return Attribute();
  return Attribute::layout(layout);
}

Attribute Parser::parseDenseArray() {
  // `array<i64: 1, 2>`; current token '<'.
  consume();
  Type element = parseType();
  if (!element) return Attribute();
  std::vector<int64_t> values;
  if (consumeIf(TokenKind::Colon)) {
    do {
      bool negative = consumeIf(TokenKind::Minus);
      if (!is(TokenKind::Integer)) {
        error(fmt::format("expected integer in array<...>, found {}", found()));
        return Attribute();
      }
      int64_t value = 0;
      if (!readInteger(value, negative)) return Attribute();
      values.push_back(value);
    } while (consumeIf(TokenKind::Comma));
  }
  if (!expect(TokenKind::Greater, "to close 'array<'")) return Attribute();
  return Attribute::denseArray(element, std::move(values));
}

bool Parser::startsKnobExpr() const {
  if (!is(TokenKind::BareIdent) || nextChar() != '(') return false;
  return tok_.text == "ceildiv" || tok_.text == "min" || tok_.text == "max";
}

Attribute Parser::parseKnobExprAttribute() {
  // Custom form: `ceildiv(@M, 32)`, `@M / 32`, `2 * @BK`; a lone number or knob is left to the
  // ordinary attribute syntax (so `2 : index` and `@foo` read as before).
  bool plainKnob =
      is(TokenKind::AtIdent) && !tok_.text.empty() &&
      std::all_of(tok_.text.begin(), tok_.text.end(),
                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
      tok_.spelling.size() == tok_.text.size() + 1;
  bool hex = is(TokenKind::Integer) && tok_.spelling.rfind("0x", 0) == 0;
  if (!(plainKnob || (is(TokenKind::Integer) && !hex) || is(TokenKind::LParen) || startsKnobExpr()))
    return Attribute();
  size_t p = tok_.offset;
  std::string message;
  KnobExpr e = parseKnobExpr(lexer_.source(), p, message);
  if (!e) {
    if (!is(TokenKind::LParen)) error(p, message); // `(T) -> U` is a function type
    return Attribute();
  }
  if (e.isInteger() || e.isKnob()) return Attribute();
  lexer_.resetTo(p);
  consume();
  return Attribute::knobExpr(std::move(e));
}

Attribute Parser::parseOpaqueBuiltin(Type* typeOut) {
  // dense<...>, affine_map<...>, strided<...>, with an optional `: type`: kept as written.
  std::string text = tok_.text;
  consume();
  if (!captureBalanced(text)) return Attribute();
  if (consumeIf(TokenKind::Colon)) {
    Type type = parseType();
    if (!type) return Attribute();
    text += " : " + type.str();
    if (typeOut) *typeOut = type;
  }
  return Attribute::opaque(std::move(text));
}

Attribute Parser::parseAttribute() {
  NestingGuard guard(*this);
  if (!guard.ok()) return Attribute();
  size_t offset = tok_.offset;
  if (Attribute e = parseKnobExprAttribute()) return e;
  if (failed_) return Attribute();
  switch (tok_.kind) {
  case TokenKind::Integer:
  case TokenKind::Float:
    return parseNumber(false, offset);
  case TokenKind::Minus:
    consume();
    if (!is(TokenKind::Integer) && !is(TokenKind::Float)) {
      error(fmt::format("expected a number after '-', found {}", found()));
      return Attribute();
    }
    return parseNumber(true, offset);
  case TokenKind::String: {
    std::string text = tok_.text;
    consume();
    return Attribute::string(std::move(text));
  }
  case TokenKind::AtIdent: {
    std::string name = tok_.text;
    consume();
    return Attribute::symbolRef(std::move(name));
  }
  case TokenKind::LSquare: {
    consume();
    std::vector<Attribute> elements;
    if (!is(TokenKind::RSquare)) {
      do {
        Attribute a = parseAttribute();
        if (!a) return Attribute();
        elements.push_back(a);
      } while (consumeIf(TokenKind::Comma));
    }
    if (!expect(TokenKind::RSquare, "to close the array")) return Attribute();
    return Attribute::array(std::move(elements));
  }
  case TokenKind::LBrace: {
    std::vector<NamedAttribute> entries;
    if (!parseAttrDict(entries)) return Attribute();
    return Attribute::dictionary(std::move(entries));
  }
  case TokenKind::HashIdent: {
    Token hash = tok_;
    consume();
    bool angle = is(TokenKind::Less) && tok_.offset == hash.offset + hash.spelling.size();
    if (hash.text == "ttl.layout" && angle) {
      // tt-lang's layout, `#ttl.layout<shape = [..], element_type = .., buffer = dram, ...>`, is
      // kept as written (import-ttlang maps it); ttlplan's own is `#ttl.layout<dram, ...>`.
      Token first = peek();
      if (!(first.kind == TokenKind::BareIdent && first.text == "shape")) return parseLayout();
      std::string text(hash.spelling);
      if (!captureBalanced(text)) return Attribute();
      return Attribute::opaque(std::move(text));
    }
    if (hash.text == "ttl.layout") return parseLayout();
    if (hash.text == "ttl.expr" && angle) { // generic form of a knob expression
      size_t p = tok_.offset + 1;
      KnobExpr e = parseRawKnobExpr(p);
      if (!e) return Attribute();
      lexer_.resetTo(p);
      consume();
      if (!expect(TokenKind::Greater, "to close '#ttl.expr<'")) return Attribute();
      return Attribute::knobExpr(std::move(e));
    }
    if (hash.text.find('.') == std::string::npos && !angle) {
      for (const auto& [alias, attr] : aliases_.attributes)
        if (alias == hash.text) return attr;
      error(offset, fmt::format("undefined attribute alias '#{}'", hash.text));
      return Attribute();
    }
    std::string text(hash.spelling);
    if (angle && !captureBalanced(text)) return Attribute();
    return Attribute::opaque(std::move(text));
  }
  case TokenKind::BareIdent: {
    if (consumeKeyword("true")) return Attribute::boolean(true);
    if (consumeKeyword("false")) return Attribute::boolean(false);
    if (consumeKeyword("unit")) return Attribute::unit();
    bool angle = nextChar() == '<';
    if (isKeyword("array") && angle) {
      consume();
      return parseDenseArray();
    }
    if (angle && !builtinScalar(tok_.text) && tok_.text != "tensor") return parseOpaqueBuiltin();
    break;
  }
  default:
    break;
  }
  if (is(TokenKind::BareIdent) || is(TokenKind::BangIdent) || is(TokenKind::LParen)) {
    Type type = parseType();
    return type ? Attribute::type(type) : Attribute();
  }
  error(fmt::format("expected an attribute value, found {}", found()));
  return Attribute();
}

bool Parser::parseAttrDict(std::vector<NamedAttribute>& attrs) {
  if (!expect(TokenKind::LBrace, "to start an attribute dictionary")) return false;
  if (consumeIf(TokenKind::RBrace)) return true;
  do {
    if (!is(TokenKind::BareIdent) && !is(TokenKind::String))
      return error(fmt::format("expected attribute name, found {}", found()));
    std::string name = tok_.text;
    size_t at = tok_.offset;
    consume();
    for (const NamedAttribute& a : attrs)
      if (a.name == name) return error(at, fmt::format("duplicate attribute '{}'", name));
    Attribute value = Attribute::unit();
    if (consumeIf(TokenKind::Equal)) {
      value = parseAttribute();
      if (!value) return false;
    }
    attrs.push_back({std::move(name), std::move(value)});
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::RBrace, "to close the attribute dictionary");
}

} // namespace ttlplan::ir::parsing
