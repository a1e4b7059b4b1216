#pragma once
// Internal to the parser: the Parser class, whose parts live in Parser.cpp (values, regions,
// ops, top level), ParseTypes.cpp, ParseAttributes.cpp, ParseCustomOps.cpp (each custom form),
// ParseTtlangOps.cpp (tt-lang's op forms) and ParseUpstreamForms.cpp (upstream and later tt-lang
// forms).
#include "ttlplan/ir/KnobDomain.h"
#include "ttlplan/ir/Lexer.h"
#include "ttlplan/ir/OpRegistry.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/support/ReadFile.h"
#include "ttlplan/support/Text.h"

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
#include <optional>
#include <vector>

namespace ttlplan::ir::parsing {

/// The value of an integer literal as MLIR reads it: decimal, or hexadecimal after `0x` (a
/// leading 0 is not octal). Empty when it does not fit in 64 bits.
inline std::optional<int64_t> integerValue(std::string_view spelling, bool negative) {
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

/// `index`, `bf16`, `f32`, `i32`, `ui8`...: a builtin scalar type name, or empty (ParseTypes.cpp).
std::optional<Type> builtinScalar(const std::string& word);

/// Nesting deeper than this (types in types, arrays in arrays, regions in regions) is reported
/// instead of recursing until the stack runs out.
constexpr int kMaxNesting = 256;

/// The edit distance of `a` and `b`, or `bound` when it is at least that: a length difference of
/// `bound` or more answers at once, so a 4 MB identifier costs nothing against short op names.
inline size_t editDistance(std::string_view a, std::string_view b, size_t bound) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) >= bound) return bound;
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
  return std::min(row[b.size()], bound);
}

/// Everything a custom or generic op parser gathers before the op is built.
struct OpState {
  std::string name;
  Location location;
  std::vector<Value*> operands;
  std::vector<Type> resultTypes;
  std::vector<NamedAttribute> attributes;
  std::vector<NamedAttribute> properties; ///< generic form `<{...}>`
  std::vector<std::unique_ptr<Region>> regions;
};

/// A `%name` as written: where it is and which result of a multi-result op it names.
struct ValueRef {
  std::string name;
  size_t offset = 0;
  unsigned resultIndex = 0;
};

/// A `loc(...)` as read: its text, printed back, and what it names in pre-order (a file location
/// or an alias, resolved once the whole file is read since MLIR prints location aliases last).
struct ParsedLoc {
  struct Part {
    Location file;     ///< a `"file":line:col`; unknown for an alias
    std::string alias; ///< `#loc3` without '#'; empty for a file location
    size_t offset = 0; ///< where the alias is used, for "undefined alias"
  };
  std::string text; ///< between `loc(` and `)`
  std::vector<Part>
      parts; ///< the first that resolves to a file location is where diagnostics point
};

/// A block argument being declared: `%i`, `%a: T`, or a function's `%a: T {attrs} loc(...)`.
struct ArgDecl {
  std::string name;
  size_t offset = 0;
  Type type;
  std::vector<NamedAttribute> attributes; ///< function arguments only
  std::optional<ParsedLoc> loc;           ///< a written `loc(...)`
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
    return quotedInput(tok_.spelling);
  }
  Location here() const { return lexer_.location(tok_.offset); }
  /// The token after the current one, without consuming anything.
  Token peek() {
    size_t pos = lexer_.position();
    Token current = tok_;
    consume();
    Token next = tok_;
    lexer_.resetTo(pos);
    tok_ = current;
    return next;
  }
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
  /// Resolves `refs[i]` against `types[i]` and appends them to the op's operands; a different
  /// number of types is an error at `at`.
  bool addOperands(const std::vector<ValueRef>& refs, const std::vector<Type>& types,
                   OpState& state, size_t at);
  /// The same with one type for every ref (`index` indices).
  bool addOperands(const std::vector<ValueRef>& refs, const Type& type, OpState& state);
  /// `(T0, T1) -> R` typing exactly `refs` (current token '('): operands and result types.
  bool parseFunctionalType(const std::vector<ValueRef>& refs, OpState& state);

  // --- Types ---------------------------------------------------------------------------------
  Type parseType();
  Type parseDialectType(const Token& bang);
  Type parseTensorType(bool opaqueSpelling);
  Type parseTileType();
  Type parseCBType();
  /// `<[1, 1], !tile, 2>`, `<src(0, 0) ...>`: a TTL type without its prefix (tt-lang prints so).
  Type parseStrippedType();
  Type parseTransferHandle();
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
  /// `dense<..> : T` and other builtin attributes ttlplan does not model; `typeOut` gets T.
  Attribute parseOpaqueBuiltin(Type* typeOut = nullptr);
  Attribute parseDenseArray();
  bool parseAttrDict(std::vector<NamedAttribute>& attrs);
  bool parseOptionalAttrDict(std::vector<NamedAttribute>& attrs) {
    return is(TokenKind::LBrace) ? parseAttrDict(attrs) : true;
  }
  bool parseOptionalAttrDictWithKeyword(std::vector<NamedAttribute>& attrs) {
    return consumeKeyword("attributes") ? parseAttrDict(attrs) : true;
  }

  // --- Locations (ParseLocations.cpp) ----------------------------------------------------------
  bool atLoc() const { return isKeyword("loc") && nextChar() == '('; }
  /// `loc(...)` if the current token starts one.
  bool parseOptionalLoc(std::optional<ParsedLoc>& loc);
  bool parseLocBody(ParsedLoc& loc);
  bool parseLocAliasDefinition(const Token& name);
  /// Where `op` (or, with `op` null, `value`) will take its location from at the end of the file.
  void attachLoc(ParsedLoc loc, Operation* op, Value* value);
  /// Resolves every attached location; an alias that is never defined is an error.
  bool resolveLocations();
  const Location* resolveLoc(const ParsedLoc& loc, int depth);

  // --- Ops and regions -------------------------------------------------------------------------
  bool parseTopLevel(Block& block);
  bool parseAliasDefinition();
  std::unique_ptr<Operation> parseOperation();
  bool parseResultNames(std::vector<std::pair<ValueRef, unsigned>>& names);
  bool parseUnregisteredCall(OpState& state);
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
  bool parseFunc(OpState& state);
  bool parseFuncSignatureEntry(std::vector<ArgDecl>& named, std::vector<Type>& types,
                               std::vector<Attribute>& attrs);
  bool parseParam(OpState& state);
  bool parseReduce(OpState& state);
  bool parseBlockBroadcast(OpState& state);
  bool parseFillValue(OpState& state);
  bool parseF32Value(OpState& state);
  bool parseTypedRefs(std::vector<ValueRef>& refs, OpState& state);
  bool parseCompute(OpState& state);
  bool parseDstIndex(const char* word, ValueRef& index);
  bool parseIntoDst(const OpDef& def, OpState& state);
  bool parseTileStore(OpState& state);
  bool parseI64List(std::vector<int64_t>& out);
  bool parseModuleOp(OpState& state);
  bool parseCreatePipe(OpState& state);
  bool parseScfFor(OpState& state);
  bool parseScfIf(OpState& state);
  bool parseInitList(std::vector<ArgDecl>& args, std::vector<ValueRef>& inits);
  bool parseResultTypeList(std::vector<Type>& types);
  // tt-lang's and upstream dialects' other forms (ir/ParseUpstreamForms.cpp).
  bool parseUpstreamForm(const OpDef& def, OpState& state);
  bool parseExtractSlice(OpState& state);
  bool parseSliceList(std::vector<int64_t>& statics, std::vector<ValueRef>& dynamics);
  bool parseScfWhile(OpState& state);
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
  std::map<std::string, ParsedLoc> locAliases_; ///< `#loc3 = loc(...)`, by name
  struct PendingLoc {
    ParsedLoc loc;
    Operation* op = nullptr; ///< the op it belongs to, or null for a block argument
    Value* value = nullptr;  ///< the block argument
  };
  std::vector<PendingLoc> pendingLocs_;
  std::vector<std::map<std::string, std::vector<Value*>>> scopes_;
};

} // namespace ttlplan::ir::parsing
