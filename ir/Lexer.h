#pragma once
// Tokens of the MLIR-style TTL text. Shapes (`2x1x!tile`) and opaque dialect bodies are read by
// the parser at character level through rawAt()/resetTo().
#include "ttlplan/ir/Location.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir {

enum class TokenKind {
  Eof,
  Error,
  BareIdent,    ///< `ttl.cb_wait`, `index`, `i32`, `to`
  PercentIdent, ///< `%cb` (text without '%')
  CaretIdent,   ///< `^bb0`
  AtIdent,      ///< `@BM`
  BangIdent,    ///< `!tile`, `!ttl.cb`
  HashIdent,    ///< `#dram`, `#ttl.layout`, `#1`
  Integer,      ///< `42`, `0x1F`
  Float,        ///< `1.5`, `2.0e-3`
  String,       ///< `"eq"` (text is the unescaped contents)
  LParen,
  RParen,
  LSquare,
  RSquare,
  LBrace,
  RBrace,
  Less,
  Greater,
  Comma,
  Colon,
  Equal,
  Arrow,
  Question,
  Star,
  Plus,
  Minus,
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string_view spelling; ///< the characters as written
  std::string text;          ///< identifier without sigil; unescaped string contents
  size_t offset = 0;         ///< byte offset of the first character
};

std::string_view describe(TokenKind kind);

class Lexer {
public:
  Lexer(std::string_view source, std::shared_ptr<const std::string> file);

  Token next();
  /// Location of a byte offset in the source.
  Location location(size_t offset) const;
  std::string_view source() const { return source_; }
  size_t position() const { return pos_; }
  void resetTo(size_t offset) { pos_ = offset; }
  /// Skips whitespace and comments; returns the offset of the next significant character.
  size_t skipTrivia();

private:
  Token make(TokenKind kind, size_t start, std::string text = {});
  Token lexIdentifierLike(TokenKind kind, size_t start);
  Token lexNumber(size_t start);
  Token lexString(size_t start);

  std::string_view source_;
  std::shared_ptr<const std::string> file_;
  std::vector<size_t> lineStarts_;
  size_t pos_ = 0;
};

} // namespace ttlplan::ir
