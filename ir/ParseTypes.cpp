#include "ttlplan/ir/ParserDetail.h"

namespace ttlplan::ir::parsing {

// ================================================================================================
// Types
// ================================================================================================

bool Parser::captureBalanced(std::string& out) {
  // The current token is '<'; copy everything up to its matching '>' verbatim.
  std::string_view src = lexer_.source();
  size_t start = tok_.offset, p = lexer_.position();
  std::string stack = ">";
  while (p < src.size() && !stack.empty()) {
    char c = src[p++];
    if (c == '-' && p < src.size() && src[p] == '>') {
      ++p;
    } else if (c == '"') {
      while (p < src.size() && src[p] != '"')
        p += src[p] == '\\' ? 2 : 1;
      ++p;
    } else if (c == '<' || c == '(' || c == '[' || c == '{') {
      stack += c == '<' ? '>' : c == '(' ? ')' : c == '[' ? ']' : '}';
    } else if (c == stack.back()) {
      stack.pop_back();
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      return error(p - 1, fmt::format("unbalanced '{}' in dialect type or attribute", c));
    }
  }
  if (!stack.empty()) return error(start, "unterminated '<' in dialect type or attribute");
  out += std::string(src.substr(start, p - start));
  lexer_.resetTo(p);
  consume();
  return true;
}

KnobExpr Parser::parseRawKnobExpr(size_t& p) {
  std::string message;
  KnobExpr e = parseKnobExpr(lexer_.source(), p, message);
  if (!e) error(p, message);
  return e;
}

bool Parser::parseDimToken(Dim& dim, bool allowDynamic) {
  bool hex = is(TokenKind::Integer) && tok_.spelling.rfind("0x", 0) == 0;
  if (!hex && (is(TokenKind::Integer) || is(TokenKind::AtIdent) || is(TokenKind::LParen) ||
               startsKnobExpr())) {
    // A number, a knob or a knob expression (`@BM * 2`), read at character level.
    size_t p = tok_.offset;
    KnobExpr e = parseRawKnobExpr(p);
    if (!e) return false;
    dim = Dim::ofExpr(std::move(e));
    lexer_.resetTo(p);
    consume();
    return true;
  }
  if (is(TokenKind::Integer)) {
    int64_t value = 0;
    if (!readInteger(value)) return false;
    dim = Dim::fixed(value);
    return true;
  } else if (is(TokenKind::AtIdent)) {
    dim = Dim::ofParam(tok_.text);
  } else if (allowDynamic && is(TokenKind::Question)) {
    dim = Dim::dynamic();
  } else {
    return error(fmt::format("expected {}, found {}",
                             allowDynamic ? "an integer, '?', a @param or a knob expression"
                                          : "an integer, a @param or a knob expression",
                             found()));
  }
  consume();
  return true;
}

bool Parser::parseShapePrefix(std::vector<Dim>& dims) {
  // Called with the current token '<'. Reads `D x D x ...` at character level, because `2x1x`
  // and `@BMx` are not tokens, then re-lexes at the element type.
  std::string_view src = lexer_.source();
  size_t p = lexer_.position();
  auto skipSpace = [&] {
    while (p < src.size() && std::isspace(static_cast<unsigned char>(src[p])))
      ++p;
  };
  for (;;) {
    skipSpace();
    size_t start = p;
    Dim dim;
    if (p < src.size() && std::isdigit(static_cast<unsigned char>(src[p]))) {
      while (p < src.size() && std::isdigit(static_cast<unsigned char>(src[p])))
        ++p;
      std::optional<int64_t> value = integerValue(src.substr(start, p - start), false);
      if (!value) return error(start, "dimension does not fit in 64 bits");
      dim = Dim::fixed(*value);
    } else if (p < src.size() && src[p] == '?') {
      ++p;
      dim = Dim::dynamic();
    } else if (p < src.size() && src[p] == '(') {
      // A knob expression in parentheses: `(@M / 32)x`.
      ++p;
      KnobExpr e = parseRawKnobExpr(p);
      if (!e) return false;
      skipSpace();
      if (p >= src.size() || src[p] != ')')
        return error(p, "expected ')' to close the knob expression in a shape");
      ++p;
      dim = Dim::ofExpr(std::move(e));
    } else if (p < src.size() && src[p] == '@') {
      ++p;
      size_t nameStart = p;
      while (p < src.size() && (std::isalnum(static_cast<unsigned char>(src[p])) || src[p] == '_'))
        ++p;
      // A lowercase 'x' separates dims, so a knob used in a shape ends at its first 'x'.
      size_t x = src.substr(nameStart, p - nameStart).find('x');
      if (x == 0 || nameStart == p) return error(start, "expected a knob name after '@' in shape");
      if (x != std::string_view::npos) p = nameStart + x;
      if (p >= src.size() || src[p] != 'x') {
        p = start; // `@DTYPE` not followed by 'x' is the element type
        break;
      }
      dim = Dim::ofParam(std::string(src.substr(nameStart, p - nameStart)));
    } else {
      break;
    }
    if (p >= src.size() || src[p] != 'x')
      return error(p, "expected 'x' after a dimension in a shape");
    ++p;
    dims.push_back(dim);
  }
  lexer_.resetTo(p);
  consume();
  return true;
}

Type Parser::parseTensorType(bool opaqueSpelling) {
  // Current token: '<'.
  if (!is(TokenKind::Less)) {
    error(fmt::format("expected '<' after 'tensor', found {}", found()));
    return Type();
  }
  std::vector<Dim> dims;
  if (!parseShapePrefix(dims)) return Type();
  Type element;
  if (is(TokenKind::AtIdent)) { // a symbol knob as the element type: `tensor<@Mx@Kx@DTYPE>`
    element = Type::knob(tok_.text);
    consume();
  } else {
    element = parseType();
  }
  if (!element) return Type();
  Attribute encoding;
  if (consumeIf(TokenKind::Comma)) {
    encoding = parseAttribute();
    if (!encoding) return Type();
  }
  if (!expect(TokenKind::Greater,
              opaqueSpelling ? "to close '!ttl.tensor<'" : "to close 'tensor<'"))
    return Type();
  return Type::tensor(std::move(dims), std::move(element), std::move(encoding));
}

Type Parser::parseTileType() {
  // `!ttcore.tile<32x32, bf16>`; current token '<'.
  if (!is(TokenKind::Less)) {
    error("expected '<' after '!ttcore.tile'");
    return Type();
  }
  std::string_view src = lexer_.source();
  size_t p = lexer_.position();
  int64_t sizes[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    while (p < src.size() && std::isspace(static_cast<unsigned char>(src[p])))
      ++p;
    size_t start = p;
    while (p < src.size() && std::isdigit(static_cast<unsigned char>(src[p])))
      ++p;
    if (start == p) {
      error(start, "expected tile size like 32x32");
      return Type();
    }
    std::optional<int64_t> size = integerValue(src.substr(start, p - start), false);
    if (!size) {
      error(start, "tile size does not fit in 64 bits");
      return Type();
    }
    sizes[i] = *size;
    if (i == 0) {
      if (p >= src.size() || src[p] != 'x') {
        error(p, "expected 'x' in tile size like 32x32");
        return Type();
      }
      ++p;
    }
  }
  lexer_.resetTo(p);
  consume();
  if (!expect(TokenKind::Comma, "after tile size")) return Type();
  if (is(TokenKind::AtIdent)) { // a symbol knob: `!ttcore.tile<32x32, @DTYPE>`
    std::string knob = tok_.text;
    consume();
    if (!expect(TokenKind::Greater, "to close '!ttcore.tile<'")) return Type();
    return Type::tile(sizes[0], sizes[1], std::move(knob));
  }
  if (!is(TokenKind::BareIdent)) {
    error(fmt::format(
        "expected tile data type (bf16, f32, f16, bfp8_b, bfp4_b, i32, u32, or a @knob), found {}",
        found()));
    return Type();
  }
  std::optional<DataType> dataType = parseDataType(tok_.text);
  // Formats tt-mlir's ttcore knows and ttlplan does not compute with: kept as the type's text.
  static constexpr std::string_view kOtherTtcoreTypes[] = {"bfp_f8", "bfp_f4", "bfp_f2", "bfp_bf2",
                                                           "u16",    "u8",     "i1"};
  if (!dataType && std::find(std::begin(kOtherTtcoreTypes), std::end(kOtherTtcoreTypes),
                             tok_.text) != std::end(kOtherTtcoreTypes)) {
    std::string text = fmt::format("!ttcore.tile<{}x{}, {}>", sizes[0], sizes[1], tok_.text);
    consume();
    if (!expect(TokenKind::Greater, "to close '!ttcore.tile<'")) return Type();
    return Type::opaque(std::move(text));
  }
  if (!dataType) {
    error(fmt::format("unknown tile data type '{}'; expected one of bf16, f32, f16, bfp8_b, "
                      "bfp4_b, i32, u32",
                      tok_.text));
    return Type();
  }
  consume();
  if (!expect(TokenKind::Greater, "to close '!ttcore.tile<'")) return Type();
  return Type::tile(sizes[0], sizes[1], *dataType);
}

Type Parser::parseCBType() {
  // `!ttl.cb<[B, C], TILE, N>`; current token '<'.
  consume();
  if (!expect(TokenKind::LSquare, "to start the CB block shape")) return Type();
  std::vector<Dim> shape;
  do {
    Dim d;
    if (!parseDimToken(d, false)) return Type();
    shape.push_back(d);
  } while (consumeIf(TokenKind::Comma));
  if (!expect(TokenKind::RSquare, "to close the CB block shape")) return Type();
  if (!expect(TokenKind::Comma, "after the CB block shape")) return Type();
  Type tile = parseType();
  if (!tile) return Type();
  if (!expect(TokenKind::Comma, "after the CB element type")) return Type();
  Dim depth;
  if (!parseDimToken(depth, true)) return Type();
  if (!expect(TokenKind::Greater, "to close '!ttl.cb<'")) return Type();
  return Type::circularBuffer(std::move(shape), std::move(tile), std::move(depth));
}

Type Parser::parseDialectType(const Token& bang) {
  const std::string& name = bang.text;
  bool angle = is(TokenKind::Less) && tok_.offset == bang.offset + bang.spelling.size();
  if (name == "ttcore.tile") return parseTileType();
  if (name == "ttl.cb") return parseCBType();
  if (name == "ttl.tensor") return parseTensorType(true);
  if (name == "ttl.pipe") { // tt-lang's `<src(..) dst(..) to(..) net N>` repeats create_pipe's
    std::string params;     // attributes, so the type keeps none of it
    if (angle && !captureBalanced(params)) return Type();
    return Type::pipe();
  }
  if (name == "ttl.semaphore" && !angle) return Type::semaphore();
  if (name == "ttl.transfer_handle" && angle) return parseTransferHandle();
  if (name.find('.') == std::string::npos && !angle) {
    for (const auto& [alias, type] : aliases_.types)
      if (alias == name) return type;
    error(bang.offset, fmt::format("undefined type alias '!{}'", name));
    return Type();
  }
  // An unknown dialect type: keep its text.
  std::string text = std::string(bang.spelling);
  if (angle && !captureBalanced(text)) return Type();
  return Type::opaque(std::move(text));
}

Type Parser::parseFunctionType() {
  // `(T, U) -> V` or `(T) -> (U, V)`; current token '('.
  consume();
  std::vector<Type> inputs, results;
  if (!is(TokenKind::RParen) && !parseTypeList(inputs)) return Type();
  if (!expect(TokenKind::RParen, "to close the input types")) return Type();
  if (!expect(TokenKind::Arrow, "in function type")) return Type();
  if (consumeIf(TokenKind::LParen)) {
    if (!is(TokenKind::RParen) && !parseTypeList(results)) return Type();
    if (!expect(TokenKind::RParen, "to close the result types")) return Type();
  } else {
    Type t = parseType();
    if (!t) return Type();
    results.push_back(t);
  }
  return Type::function(std::move(inputs), std::move(results));
}

bool Parser::parseTypeList(std::vector<Type>& types) {
  do {
    Type t = parseType();
    if (!t) return false;
    types.push_back(t);
  } while (consumeIf(TokenKind::Comma));
  return true;
}

std::optional<Type> builtinScalar(const std::string& word) {
  if (word == "index") return Type::index();
  if (word == "bf16") return Type::floating(FloatKind::BF16);
  if (word == "f16") return Type::floating(FloatKind::F16);
  if (word == "f32") return Type::floating(FloatKind::F32);
  if (word == "f64") return Type::floating(FloatKind::F64);
  auto integer = [&](size_t prefix, Signedness s) -> std::optional<Type> {
    std::string digits = word.substr(prefix);
    std::optional<int64_t> width = integerValue(digits, false);
    // MLIR's integer widths are 1 .. 2^24 - 1.
    if (!width || *width < 1 || *width >= (1 << 24)) return std::nullopt;
    return Type::integer(static_cast<unsigned>(*width), s);
  };
  if (word.rfind("ui", 0) == 0) return integer(2, Signedness::Unsigned);
  if (word.rfind("si", 0) == 0) return integer(2, Signedness::Signed);
  if (word.rfind("i", 0) == 0) return integer(1, Signedness::Signless);
  return std::nullopt;
}

Type Parser::parseTransferHandle() {
  // `<read>` or `<write>`; current token '<'.
  consume();
  TransferKind kind = TransferKind::Read;
  if (isKeyword("write"))
    kind = TransferKind::Write;
  else if (!isKeyword("read")) {
    error(fmt::format("expected 'read' or 'write', found {}", found()));
    return Type();
  }
  consume();
  if (!expect(TokenKind::Greater, "to close '!ttl.transfer_handle<'")) return Type();
  return Type::transferHandle(kind);
}

Type Parser::parseStrippedType() {
  // tt-lang's op formats print a TTL type without its `!ttl.cb` / `!ttl.pipe` prefix (MLIR's
  // generated printer does so when the operand's type is fixed): `: <[1, 1], !tile, 2>`. What
  // follows '<' says which type it is.
  Token first = peek();
  if (first.kind == TokenKind::LSquare) return parseCBType();
  if (first.kind == TokenKind::BareIdent && first.text == "src") {
    std::string params;
    return captureBalanced(params) ? Type::pipe() : Type();
  }
  if (first.kind == TokenKind::BareIdent && (first.text == "read" || first.text == "write"))
    return parseTransferHandle();
  if (first.kind == TokenKind::BareIdent && first.text == "net") {
    std::string text = "!ttl.pipe_token";
    return captureBalanced(text) ? Type::opaque(std::move(text)) : Type();
  }
  error(fmt::format("expected a type; a stripped TTL type starts '<[' (a CB), '<src' (a pipe), "
                    "'<read'/'<write' or '<net', found {}",
                    first.kind == TokenKind::Eof ? "end of file"
                                                 : fmt::format("'<{}'", first.spelling)));
  return Type();
}

Type Parser::parseType() {
  NestingGuard guard(*this);
  if (!guard.ok()) return Type();
  if (is(TokenKind::LParen)) return parseFunctionType();
  if (is(TokenKind::Less)) return parseStrippedType();
  if (is(TokenKind::BangIdent)) {
    Token bang = tok_;
    consume();
    return parseDialectType(bang);
  }
  if (!is(TokenKind::BareIdent)) {
    error(fmt::format("expected a type, found {}", found()));
    return Type();
  }
  Token word = tok_;
  consume();
  if (word.text == "tensor") return parseTensorType(false);
  if (std::optional<Type> scalar = builtinScalar(word.text)) return *scalar;
  if (word.text == "bfp8_b" || word.text == "bfp4_b") // block-float tensor elements (no builtin)
    return Type::opaque(word.text);
  if (is(TokenKind::Less) && tok_.offset == word.offset + word.spelling.size()) {
    // Another builtin type (memref, vector, ...): kept as written.
    std::string text = word.text;
    if (!captureBalanced(text)) return Type();
    return Type::opaque(std::move(text));
  }
  if (word.text == "none") return Type::opaque("none");
  error(word.offset, fmt::format("unknown type '{}'", word.text));
  return Type();
}

} // namespace ttlplan::ir::parsing
