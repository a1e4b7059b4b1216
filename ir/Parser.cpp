#include "ttlplan/ir/Parser.h"

#include "ttlplan/ir/Lexer.h"
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/support/ReadFile.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <map>

namespace ttlplan::ir {

namespace {

/// The value of an integer literal as MLIR reads it: decimal, or hexadecimal after `0x` (a
/// leading 0 is not octal). Empty when it does not fit in 64 bits.
std::optional<int64_t> integerValue(std::string_view spelling, bool negative) {
  int base = 10;
  if (spelling.size() > 2 && spelling[0] == '0' && spelling[1] == 'x') {
    spelling.remove_prefix(2);
    base = 16;
  }
  uint64_t magnitude = 0;
  auto [end, ec] =
      std::from_chars(spelling.data(), spelling.data() + spelling.size(), magnitude, base);
  if (ec != std::errc() || end != spelling.data() + spelling.size()) return std::nullopt;
  constexpr uint64_t kMax = uint64_t(INT64_MAX);
  if (!negative)
    return magnitude <= kMax ? std::optional<int64_t>(int64_t(magnitude)) : std::nullopt;
  if (magnitude > kMax + 1) return std::nullopt;
  return magnitude == kMax + 1 ? INT64_MIN : -int64_t(magnitude);
}

/// Nesting deeper than this (types in types, arrays in arrays, regions in regions) is reported
/// instead of recursing until the stack runs out.
constexpr int kMaxNesting = 256;

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// Everything a custom or generic op parser gathers before the op is built.
struct OpState {
  std::string name;
  Location location;
  std::vector<Value*> operands;
  std::vector<Type> resultTypes;
  std::vector<NamedAttribute> attributes;
  std::vector<std::unique_ptr<Region>> regions;
};

/// A `%name` as written: where it is and which result of a multi-result op it names.
struct ValueRef {
  std::string name;
  size_t offset = 0;
  unsigned resultIndex = 0;
};

/// A block argument being declared: `%i` or `%a: T`.
struct ArgDecl {
  std::string name;
  size_t offset = 0;
  Type type;
};

class Parser {
public:
  Parser(std::string_view source, const std::string& fileName, DiagnosticEngine& diagnostics)
      : file_(std::make_shared<const std::string>(fileName)), lexer_(source, file_),
        diagnostics_(diagnostics) {
    consume();
  }

  std::unique_ptr<Module> parseModule();

private:
  // --- Tokens and errors ---------------------------------------------------------------------
  void consume() { tok_ = lexer_.next(); }
  bool is(TokenKind kind) const { return tok_.kind == kind; }
  bool isKeyword(std::string_view word) const {
    return tok_.kind == TokenKind::BareIdent && tok_.text == word;
  }
  bool consumeIf(TokenKind kind) {
    if (!is(kind)) return false;
    consume();
    return true;
  }
  bool consumeKeyword(std::string_view word) {
    if (!isKeyword(word)) return false;
    consume();
    return true;
  }
  bool error(size_t offset, std::string message) {
    if (!failed_) diagnostics_.error(lexer_.location(offset), std::move(message));
    failed_ = true;
    return false;
  }
  bool error(std::string message) { return error(tok_.offset, std::move(message)); }
  bool expect(TokenKind kind, std::string_view context) {
    if (consumeIf(kind)) return true;
    return error(fmt::format("expected {} {}, found {}", describe(kind), context, found()));
  }
  bool expectKeyword(std::string_view word, std::string_view context) {
    if (consumeKeyword(word)) return true;
    return error(fmt::format("expected '{}' {}, found {}", word, context, found()));
  }
  std::string found() const {
    if (is(TokenKind::Eof)) return "end of file";
    return fmt::format("'{}'", tok_.spelling);
  }
  Location here() const { return lexer_.location(tok_.offset); }
  /// Reads the current Integer token into `out` and consumes it; an error when it does not fit.
  bool readInteger(int64_t& out, bool negative = false, size_t offset = SIZE_MAX) {
    std::optional<int64_t> value = integerValue(tok_.spelling, negative);
    if (!value)
      return error(
          offset == SIZE_MAX ? tok_.offset : offset,
          fmt::format("integer {}{} does not fit in 64 bits", negative ? "-" : "", tok_.spelling));
    out = *value;
    consume();
    return true;
  }
  /// Counts nesting depth for as long as it lives; see kMaxNesting.
  class NestingGuard {
  public:
    explicit NestingGuard(Parser& parser) : parser_(parser) { ++parser_.nesting_; }
    ~NestingGuard() { --parser_.nesting_; }
    /// False (with an error) when the nesting is too deep.
    bool ok() {
      if (parser_.nesting_ <= kMaxNesting) return true;
      return parser_.error(fmt::format("nesting deeper than {} levels", kMaxNesting));
    }

  private:
    Parser& parser_;
  };
  /// The raw character right after the current token.
  char nextChar() const {
    size_t p = lexer_.position();
    return p < lexer_.source().size() ? lexer_.source()[p] : '\0';
  }

  // --- Values and scopes -----------------------------------------------------------------------
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  const std::vector<Value*>* findValues(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }
  bool define(const std::string& name, size_t offset, std::vector<Value*> values) {
    if (findValues(name))
      return error(offset, fmt::format("redefinition of SSA value '%{}'", name));
    for (size_t i = 0; i < values.size(); ++i)
      values[i]->setNameHint(values.size() == 1 ? name : fmt::format("{}#{}", name, i));
    scopes_.back()[name] = std::move(values);
    return true;
  }
  bool parseValueRef(ValueRef& ref);
  Value* resolve(const ValueRef& ref);
  Value* resolve(const ValueRef& ref, const Type& writtenType);
  bool parseValueRefList(std::vector<ValueRef>& refs);

  // --- Types ---------------------------------------------------------------------------------
  Type parseType();
  Type parseDialectType(const Token& bang);
  Type parseTensorType(bool opaqueSpelling);
  Type parseTileType();
  Type parseCBType();
  Type parseFunctionType();
  bool parseTypeList(std::vector<Type>& types);
  bool parseShapePrefix(std::vector<Dim>& dims);
  bool parseDimToken(Dim& dim, bool allowDynamic);
  KnobExpr parseRawKnobExpr(size_t& p);
  bool startsKnobExpr() const;
  Attribute parseKnobExprAttribute();
  bool captureBalanced(std::string& out);

  // --- Attributes ------------------------------------------------------------------------------
  Attribute parseAttribute();
  Attribute parseNumber(bool negative, size_t offset);
  Attribute parseLayout();
  Attribute parseDenseArray();
  bool parseAttrDict(std::vector<NamedAttribute>& attrs);
  bool parseOptionalAttrDict(std::vector<NamedAttribute>& attrs) {
    return is(TokenKind::LBrace) ? parseAttrDict(attrs) : true;
  }
  bool parseOptionalAttrDictWithKeyword(std::vector<NamedAttribute>& attrs) {
    return consumeKeyword("attributes") ? parseAttrDict(attrs) : true;
  }

  // --- Ops and regions -------------------------------------------------------------------------
  bool parseTopLevel(Block& block);
  bool parseAliasDefinition();
  std::unique_ptr<Operation> parseOperation();
  bool parseResultNames(std::vector<std::pair<ValueRef, unsigned>>& names);
  bool parseGenericOp(OpState& state);
  bool parseCustomOp(const OpDef& def, OpState& state);
  bool parseRegion(Region& region, const std::vector<ArgDecl>& entryArgs, bool generic);
  bool parseBlockBody(Block& block);
  bool parseBlockLabel(std::vector<ArgDecl>& args);
  bool addRegion(OpState& state, const std::vector<ArgDecl>& args = {}, bool generic = false);
  bool parseArgDecls(std::vector<ArgDecl>& args, bool typed, TokenKind closer);
  std::unique_ptr<Operation> build(OpState& state);

  // Custom formats (OpRegistry.h documents each syntax).
  bool parseKernel(OpState& state);
  bool parseParam(OpState& state);
  bool parseModuleOp(OpState& state);
  bool parseCreatePipe(OpState& state);
  bool parseScfFor(OpState& state);
  bool parseScfIf(OpState& state);
  bool parseArithConstant(OpState& state);
  bool parseArithCmpi(OpState& state);
  bool parseSameType(OpState& state, const OpDef& def);

  std::shared_ptr<const std::string> file_;
  Lexer lexer_;
  DiagnosticEngine& diagnostics_;
  Token tok_;
  bool failed_ = false;
  int nesting_ = 0;
  AliasTable aliases_;
  std::vector<std::map<std::string, std::vector<Value*>>> scopes_;
};

// ================================================================================================
// Values
// ================================================================================================

bool Parser::parseValueRef(ValueRef& ref) {
  if (!is(TokenKind::PercentIdent))
    return error(fmt::format("expected SSA value (like %x), found {}", found()));
  ref.name = tok_.text;
  ref.offset = tok_.offset;
  ref.resultIndex = 0;
  bool hashFollows = nextChar() == '#';
  consume();
  if (hashFollows && is(TokenKind::HashIdent) && !tok_.text.empty() &&
      std::all_of(tok_.text.begin(), tok_.text.end(), ::isdigit)) {
    std::optional<int64_t> index = integerValue(tok_.text, false);
    if (!index || *index > UINT32_MAX)
      return error(fmt::format("result number #{} is out of range", tok_.text));
    ref.resultIndex = static_cast<unsigned>(*index);
    consume();
  }
  return true;
}

Value* Parser::resolve(const ValueRef& ref) {
  const std::vector<Value*>* values = findValues(ref.name);
  if (!values) {
    error(ref.offset, fmt::format("use of undefined value '%{}'", ref.name));
    return nullptr;
  }
  if (ref.resultIndex >= values->size()) {
    error(ref.offset, fmt::format("'%{}' has {} results; #{} does not exist", ref.name,
                                  values->size(), ref.resultIndex));
    return nullptr;
  }
  return (*values)[ref.resultIndex];
}

Value* Parser::resolve(const ValueRef& ref, const Type& writtenType) {
  Value* value = resolve(ref);
  if (value && value->type() != writtenType) {
    error(ref.offset, fmt::format("'%{}' has type {} but the op says {}", ref.name,
                                  value->type().str(), writtenType.str()));
    return nullptr;
  }
  return value;
}

bool Parser::parseValueRefList(std::vector<ValueRef>& refs) {
  if (!is(TokenKind::PercentIdent)) return true;
  do {
    refs.emplace_back();
    if (!parseValueRef(refs.back())) return false;
  } while (consumeIf(TokenKind::Comma));
  return true;
}

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
  if (name == "ttl.pipe" && !angle) return Type::pipe();
  if (name == "ttl.semaphore" && !angle) return Type::semaphore();
  if (name == "ttl.transfer_handle" && angle) {
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

static std::optional<Type> builtinScalar(const std::string& word) {
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

Type Parser::parseType() {
  NestingGuard guard(*this);
  if (!guard.ok()) return Type();
  if (is(TokenKind::LParen)) return parseFunctionType();
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
    if (angle && !builtinScalar(tok_.text) && tok_.text != "tensor") {
      // dense<...>, affine_map<...>, strided<...>: kept as written.
      std::string text = tok_.text;
      consume();
      if (!captureBalanced(text)) return Attribute();
      return Attribute::opaque(std::move(text));
    }
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

// ================================================================================================
// Regions and blocks
// ================================================================================================

bool Parser::parseArgDecls(std::vector<ArgDecl>& args, bool typed, TokenKind closer) {
  if (consumeIf(closer)) return true;
  do {
    if (!is(TokenKind::PercentIdent))
      return error(fmt::format("expected argument name like %i, found {}", found()));
    ArgDecl arg{tok_.text, tok_.offset, Type::index()};
    consume();
    if (typed) {
      if (!expect(TokenKind::Colon, "after argument name")) return false;
      arg.type = parseType();
      if (!arg.type) return false;
    }
    args.push_back(std::move(arg));
  } while (consumeIf(TokenKind::Comma));
  return expect(closer, "after arguments");
}

bool Parser::parseBlockLabel(std::vector<ArgDecl>& args) {
  // `^bb0(%a: T, ...):`
  consume();
  if (consumeIf(TokenKind::LParen) && !parseArgDecls(args, true, TokenKind::RParen)) return false;
  return expect(TokenKind::Colon, "after block label");
}

bool Parser::parseBlockBody(Block& block) {
  while (!is(TokenKind::RBrace)) {
    if (is(TokenKind::Eof)) return error("expected '}' to close the region, found end of file");
    if (is(TokenKind::CaretIdent))
      return error("a second block in a region is not supported; TTL regions have one block");
    std::unique_ptr<Operation> op = parseOperation();
    if (!op) return false;
    block.push_back(std::move(op));
  }
  return true;
}

bool Parser::parseRegion(Region& region, const std::vector<ArgDecl>& entryArgs, bool generic) {
  NestingGuard guard(*this);
  if (!guard.ok()) return false;
  if (!expect(TokenKind::LBrace, "to start a region")) return false;
  if (generic && entryArgs.empty() && consumeIf(TokenKind::RBrace)) return true; // no blocks
  pushScope();
  std::vector<ArgDecl> args = entryArgs;
  if (is(TokenKind::CaretIdent)) {
    if (!generic || !entryArgs.empty())
      return error("a block label is only allowed in generic form");
    if (!parseBlockLabel(args)) return false;
  }
  Block& block = region.addBlock();
  for (const ArgDecl& a : args) {
    Value* v = block.addArgument(a.type, a.name, lexer_.location(a.offset));
    if (!define(a.name, a.offset, {v})) return false;
  }
  bool ok = parseBlockBody(block) && expect(TokenKind::RBrace, "to close the region");
  popScope();
  return ok;
}

bool Parser::addRegion(OpState& state, const std::vector<ArgDecl>& args, bool generic) {
  state.regions.push_back(std::make_unique<Region>());
  return parseRegion(*state.regions.back(), args, generic);
}

// ================================================================================================
// Operations
// ================================================================================================

std::unique_ptr<Operation> Parser::build(OpState& state) {
  auto op =
      Operation::create(std::move(state.name), std::move(state.location), std::move(state.operands),
                        std::move(state.resultTypes), std::move(state.attributes),
                        static_cast<unsigned>(state.regions.size()));
  for (size_t i = 0; i < state.regions.size(); ++i)
    moveRegionBody(*state.regions[i], op->region(i));
  // scf regions end in scf.yield; the custom form leaves it implicit.
  if (op->name() == "scf.for" || op->name() == "scf.if") {
    for (size_t i = 0; i < op->numRegions(); ++i) {
      Region& r = op->region(i);
      if (r.empty()) continue;
      Block& b = r.front();
      if (!b.back() || b.back()->name() != "scf.yield")
        b.push_back(Operation::create("scf.yield", op->location()));
    }
  }
  return op;
}

bool Parser::parseResultNames(std::vector<std::pair<ValueRef, unsigned>>& names) {
  do {
    ValueRef ref;
    if (!is(TokenKind::PercentIdent))
      return error(fmt::format("expected result name, found {}", found()));
    ref.name = tok_.text;
    ref.offset = tok_.offset;
    consume();
    unsigned count = 1;
    if (consumeIf(TokenKind::Colon)) {
      int64_t value = 0;
      if (!is(TokenKind::Integer)) return error("expected result count after ':'");
      size_t at = tok_.offset;
      if (!readInteger(value)) return false;
      if (value < 1 || value > 65535) return error(at, "result count must be between 1 and 65535");
      count = static_cast<unsigned>(value);
    }
    names.emplace_back(ref, count);
  } while (consumeIf(TokenKind::Comma));
  return expect(TokenKind::Equal, "after result names");
}

std::unique_ptr<Operation> Parser::parseOperation() {
  std::vector<std::pair<ValueRef, unsigned>> names;
  if (is(TokenKind::PercentIdent) && !parseResultNames(names)) return nullptr;
  OpState state;
  state.location = here();
  size_t opOffset = tok_.offset;
  if (is(TokenKind::String)) {
    state.name = tok_.text;
    consume();
    if (!parseGenericOp(state)) return nullptr;
  } else if (is(TokenKind::BareIdent)) {
    state.name = tok_.text == "module" ? "builtin.module" : tok_.text; // MLIR's short spelling
    consume();
    const OpDef* def = lookupOp(state.name);
    if (!def || def->format == AsmFormat::Generic) {
      std::string hint;
      size_t best = 3;
      for (const OpDef& d : registeredOps())
        if (size_t dist = editDistance(d.name, state.name); dist < best) {
          best = dist;
          hint = fmt::format("; did you mean '{}'?", d.name);
        }
      error(opOffset,
            fmt::format("unknown op '{}'{}{}", state.name, hint,
                        hint.empty() ? " (ops without a custom form must be written in "
                                       "generic form: \"dialect.op\"(...) : (...) -> (...))"
                                     : ""));
      return nullptr;
    }
    if (!parseCustomOp(*def, state)) return nullptr;
  } else {
    error(fmt::format("expected an operation, found {}", found()));
    return nullptr;
  }
  std::unique_ptr<Operation> op = build(state);
  uint64_t named = 0; // a sum of counts from the text: never let it wrap
  for (const auto& [ref, count] : names)
    named += count;
  if (!names.empty() && named != op->numResults()) {
    error(opOffset, fmt::format("'{}' has {} result(s) but {} name(s) were given", op->name(),
                                op->numResults(), named));
    return nullptr;
  }
  if (names.empty() && op->numResults() != 0) {
    error(opOffset, fmt::format("'{}' has {} result(s); name them (like %x = {} ...)", op->name(),
                                op->numResults(), op->name()));
    return nullptr;
  }
  unsigned next = 0;
  for (const auto& [ref, count] : names) {
    std::vector<Value*> values;
    for (unsigned i = 0; i < count; ++i)
      values.push_back(op->result(next++));
    if (!define(ref.name, ref.offset, std::move(values))) return nullptr;
  }
  return op;
}

bool Parser::parseGenericOp(OpState& state) {
  // "name"(%a, %b) ({...}, {...})? {attrs}? : (T, U) -> (R)
  if (!expect(TokenKind::LParen, "after the op name")) return false;
  std::vector<ValueRef> refs;
  if (!parseValueRefList(refs) || !expect(TokenKind::RParen, "after operands")) return false;
  if (is(TokenKind::LSquare)) return error("successor blocks are not supported");
  if (is(TokenKind::LParen)) {
    consume();
    do {
      if (!addRegion(state, {}, true)) return false;
    } while (consumeIf(TokenKind::Comma));
    if (!expect(TokenKind::RParen, "after regions")) return false;
  }
  if (!parseOptionalAttrDict(state.attributes)) return false;
  if (!expect(TokenKind::Colon, "before the op's function type")) return false;
  size_t typeOffset = tok_.offset;
  if (!is(TokenKind::LParen))
    return error(fmt::format("expected function type like (T) -> U, found {}", found()));
  Type fn = parseFunctionType();
  if (!fn) return false;
  if (fn.inputs().size() != refs.size())
    return error(typeOffset, fmt::format("{} operand(s) but the function type lists {}",
                                         refs.size(), fn.inputs().size()));
  for (size_t i = 0; i < refs.size(); ++i) {
    Value* v = resolve(refs[i], fn.inputs()[i]);
    if (!v) return false;
    state.operands.push_back(v);
  }
  state.resultTypes = fn.results();
  return true;
}

bool Parser::parseSameType(OpState& state, const OpDef& def) {
  std::vector<ValueRef> refs;
  if (!parseValueRefList(refs) || !parseOptionalAttrDict(state.attributes)) return false;
  if (!expect(TokenKind::Colon, "before the type")) return false;
  Type type = parseType();
  if (!type) return false;
  for (const ValueRef& ref : refs) {
    Value* v = resolve(ref, type);
    if (!v) return false;
    state.operands.push_back(v);
  }
  if (def.numResults == 1) state.resultTypes.push_back(type);
  return true;
}

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

bool Parser::parseParam(OpState& state) {
  if (!is(TokenKind::AtIdent))
    return error(fmt::format("expected knob name like @BM, found {}", found()));
  state.attributes.push_back({"sym_name", Attribute::string(tok_.text)});
  consume();
  if (!expect(TokenKind::Equal, "after the knob name")) return false;
  if (!is(TokenKind::LSquare))
    return error("a knob's values must be a list like [1, 2, 4] or [bf16, bfp8_b]");
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
      } else if (is(TokenKind::Integer)) {
        int64_t value = 0;
        if (!readInteger(value)) return false;
        coords.push_back(Attribute::integer(value));
      } else {
        return error(
            fmt::format("expected a coordinate (integer or index value), found {}", found()));
      }
    }
    if (!expect(TokenKind::RParen, "after coordinates")) return false;
  }
  state.attributes.push_back({"static_coords", Attribute::array(std::move(coords))});
  if (!parseOptionalAttrDict(state.attributes) || !expect(TokenKind::Colon, "before the type"))
    return false;
  Type type = parseType();
  if (!type) return false;
  state.resultTypes.push_back(type);
  return true;
}

bool Parser::parseScfFor(OpState& state) {
  if (!is(TokenKind::PercentIdent))
    return error(fmt::format("expected induction variable like %k, found {}", found()));
  ArgDecl iv{tok_.text, tok_.offset, Type::index()};
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
  return addRegion(state, {iv}) && parseOptionalAttrDict(state.attributes);
}

bool Parser::parseScfIf(OpState& state) {
  ValueRef ref;
  if (!parseValueRef(ref)) return false;
  Value* cond = resolve(ref, Type::integer(1));
  if (!cond) return false;
  state.operands.push_back(cond);
  if (!addRegion(state)) return false;
  state.regions.push_back(std::make_unique<Region>());
  if (consumeKeyword("else") && !parseRegion(*state.regions.back(), {}, false)) return false;
  return parseOptionalAttrDict(state.attributes);
}

bool Parser::parseArithConstant(OpState& state) {
  if (!parseOptionalAttrDict(state.attributes)) return false;
  size_t at = tok_.offset;
  Attribute value = parseAttribute();
  if (!value) return false;
  if (!value.is(AttrKind::Integer) && !value.is(AttrKind::Float) && !value.is(AttrKind::Bool))
    return error(at, "arith.constant takes a number like `2 : index` or `true`");
  state.attributes.push_back({"value", value});
  state.resultTypes.push_back(value.valueType());
  return true;
}

bool Parser::parseArithCmpi(OpState& state) {
  if (!is(TokenKind::BareIdent))
    return error(fmt::format("expected a predicate (eq, ne, slt, ...), found {}", found()));
  auto it = std::find(std::begin(kCmpiPredicates), std::end(kCmpiPredicates), tok_.text);
  if (it == std::end(kCmpiPredicates))
    return error(
        fmt::format("unknown predicate '{}'; expected eq, ne, slt, sle, sgt, sge, ult, ule, "
                    "ugt or uge",
                    tok_.text));
  consume();
  state.attributes.push_back({"predicate", Attribute::integer(it - std::begin(kCmpiPredicates))});
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
    if (!parseOptionalAttrDict(state.attributes) || !colonType(type)) return false;
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
    if (!parseValueRefList(refs)) return false;
    for (const ValueRef& ref : refs)
      if (!typed(ref, impliedOperandType(def))) return false;
    if (def.format == AsmFormat::PipeRegion && !addRegion(state)) return false;
    return parseOptionalAttrDict(state.attributes);
  }
  case AsmFormat::Functional: {
    std::vector<ValueRef> refs;
    Type fn;
    if (!parseValueRefList(refs) || !parseOptionalAttrDict(state.attributes) ||
        !expect(TokenKind::Colon, "before the type"))
      return false;
    size_t at = tok_.offset;
    if (!is(TokenKind::LParen))
      return error(fmt::format("expected (T0, T1) -> R, found {}", found()));
    fn = parseFunctionType();
    if (!fn) return false;
    if (fn.inputs().size() != refs.size())
      return error(at,
                   fmt::format("{} operand(s) but {} type(s)", refs.size(), fn.inputs().size()));
    for (size_t i = 0; i < refs.size(); ++i)
      if (!typed(refs[i], fn.inputs()[i])) return false;
    state.resultTypes = fn.results();
    return true;
  }
  case AsmFormat::Slice: {
    ValueRef source;
    std::vector<ValueRef> indices;
    Type from, to;
    if (!parseValueRef(source) || !expect(TokenKind::LSquare, "before the slice indices") ||
        !parseValueRefList(indices) || !expect(TokenKind::RSquare, "after the slice indices") ||
        !parseOptionalAttrDict(state.attributes) || !colonType(from) || !typed(source, from))
      return false;
    for (const ValueRef& ref : indices)
      if (!typed(ref, Type::index())) return false;
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
  case AsmFormat::ArithConstant:
    return parseArithConstant(state);
  case AsmFormat::ArithCmpi:
    return parseArithCmpi(state);
  }
  return false;
}

// ================================================================================================
// Top level
// ================================================================================================

bool Parser::parseAliasDefinition() {
  Token name = tok_;
  consume(); // the alias name
  consume(); // '='
  if (name.kind == TokenKind::BangIdent) {
    for (const auto& [existing, t] : aliases_.types)
      if (existing == name.text)
        return error(name.offset, fmt::format("redefinition of type alias '!{}'", name.text));
    Type type = parseType();
    if (!type) return false;
    aliases_.types.emplace_back(name.text, type);
    return true;
  }
  for (const auto& [existing, a] : aliases_.attributes)
    if (existing == name.text)
      return error(name.offset, fmt::format("redefinition of attribute alias '#{}'", name.text));
  Attribute attr = parseAttribute();
  if (!attr) return false;
  aliases_.attributes.emplace_back(name.text, attr);
  return true;
}

bool Parser::parseTopLevel(Block& block) {
  pushScope();
  while (!is(TokenKind::Eof)) {
    if ((is(TokenKind::BangIdent) || is(TokenKind::HashIdent)) &&
        tok_.text.find('.') == std::string::npos) {
      Token save = tok_;
      size_t pos = lexer_.position();
      consume();
      bool isAlias = is(TokenKind::Equal);
      lexer_.resetTo(pos);
      tok_ = save;
      if (isAlias) {
        if (!parseAliasDefinition()) return false;
        continue;
      }
    }
    if (is(TokenKind::Error)) return error(fmt::format("unexpected character {}", found()));
    std::unique_ptr<Operation> op = parseOperation();
    if (!op) return false;
    block.push_back(std::move(op));
  }
  popScope();
  return true;
}

std::unique_ptr<Module> Parser::parseModule() {
  auto top = Operation::create("builtin.module", lexer_.location(0), {}, {}, {}, 1);
  Block& block = top->body();
  if (!parseTopLevel(block)) return nullptr;
  auto module = std::make_unique<Module>();
  module->fileName = *file_;
  module->aliases = std::move(aliases_);
  // A file holding exactly one explicit module is that module; otherwise it is implicit.
  if (block.operations().size() == 1 && block.back()->name() == "builtin.module") {
    module->op = block.remove(block.back());
  } else {
    module->op = std::move(top);
  }
  return module;
}

} // namespace

std::unique_ptr<Module> parseSource(std::string_view source, const std::string& fileName,
                                    DiagnosticEngine& diagnostics) {
  Parser parser(source, fileName, diagnostics);
  return parser.parseModule();
}

std::unique_ptr<Module> parseFile(const std::string& path, DiagnosticEngine& diagnostics,
                                  SourceManager* sources) {
  Expected<std::string> text = readTextFile(path);
  if (!text) {
    diagnostics.error(Location{std::make_shared<const std::string>(path), 0, 0},
                      text.error().message);
    return nullptr;
  }
  auto module = parseSource(*text, path, diagnostics);
  if (sources) sources->add(path, std::move(*text));
  return module;
}

} // namespace ttlplan::ir
