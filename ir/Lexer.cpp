#include "ttlplan/ir/Lexer.h"

#include <algorithm>
#include <cctype>

namespace ttlplan::ir {

static bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
static bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}
static bool isSuffixIdChar(char c) {
  return isIdentChar(c) || c == '-';
}

std::string_view describe(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Error:
    return "invalid character";
  case TokenKind::BareIdent:
    return "identifier";
  case TokenKind::PercentIdent:
    return "SSA value";
  case TokenKind::CaretIdent:
    return "block label";
  case TokenKind::AtIdent:
    return "symbol";
  case TokenKind::BangIdent:
    return "type";
  case TokenKind::HashIdent:
    return "attribute";
  case TokenKind::Integer:
    return "integer";
  case TokenKind::Float:
    return "float";
  case TokenKind::String:
    return "string";
  case TokenKind::LParen:
    return "'('";
  case TokenKind::RParen:
    return "')'";
  case TokenKind::LSquare:
    return "'['";
  case TokenKind::RSquare:
    return "']'";
  case TokenKind::LBrace:
    return "'{'";
  case TokenKind::RBrace:
    return "'}'";
  case TokenKind::Less:
    return "'<'";
  case TokenKind::Greater:
    return "'>'";
  case TokenKind::Comma:
    return "','";
  case TokenKind::Colon:
    return "':'";
  case TokenKind::Equal:
    return "'='";
  case TokenKind::Arrow:
    return "'->'";
  case TokenKind::Question:
    return "'?'";
  case TokenKind::Star:
    return "'*'";
  case TokenKind::Plus:
    return "'+'";
  case TokenKind::Minus:
    return "'-'";
  }
  return "token";
}

Lexer::Lexer(std::string_view source, std::shared_ptr<const std::string> file)
    : source_(source), file_(std::move(file)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < source_.size(); ++i)
    if (source_[i] == '\n') lineStarts_.push_back(i + 1);
}

Location Lexer::location(size_t offset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  size_t line = static_cast<size_t>(it - lineStarts_.begin());
  return {file_, static_cast<uint32_t>(line), static_cast<uint32_t>(offset - *(it - 1) + 1)};
}

size_t Lexer::skipTrivia() {
  while (pos_ < source_.size()) {
    char c = source_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < source_.size() && source_[pos_ + 1] == '/') {
      while (pos_ < source_.size() && source_[pos_] != '\n')
        ++pos_;
    } else {
      break;
    }
  }
  return pos_;
}

Token Lexer::make(TokenKind kind, size_t start, std::string text) {
  return {kind, source_.substr(start, pos_ - start), std::move(text), start};
}

Token Lexer::next() {
  size_t start = skipTrivia();
  if (pos_ >= source_.size()) return make(TokenKind::Eof, start);
  char c = source_[pos_++];
  switch (c) {
  case '(':
    return make(TokenKind::LParen, start);
  case ')':
    return make(TokenKind::RParen, start);
  case '[':
    return make(TokenKind::LSquare, start);
  case ']':
    return make(TokenKind::RSquare, start);
  case '{':
    return make(TokenKind::LBrace, start);
  case '}':
    return make(TokenKind::RBrace, start);
  case '<':
    return make(TokenKind::Less, start);
  case '>':
    return make(TokenKind::Greater, start);
  case ',':
    return make(TokenKind::Comma, start);
  case ':':
    return make(TokenKind::Colon, start);
  case '=':
    return make(TokenKind::Equal, start);
  case '?':
    return make(TokenKind::Question, start);
  case '*':
    return make(TokenKind::Star, start);
  case '+':
    return make(TokenKind::Plus, start);
  case '-':
    if (pos_ < source_.size() && source_[pos_] == '>') {
      ++pos_;
      return make(TokenKind::Arrow, start);
    }
    return make(TokenKind::Minus, start);
  case '"':
    return lexString(start);
  case '%':
    return lexIdentifierLike(TokenKind::PercentIdent, start);
  case '^':
    return lexIdentifierLike(TokenKind::CaretIdent, start);
  case '@':
    if (pos_ < source_.size() && source_[pos_] == '"') {
      ++pos_;
      Token s = lexString(start + 1);
      if (s.kind == TokenKind::Error) return s;
      return make(TokenKind::AtIdent, start, s.text);
    }
    return lexIdentifierLike(TokenKind::AtIdent, start);
  case '!':
    return lexIdentifierLike(TokenKind::BangIdent, start);
  case '#':
    return lexIdentifierLike(TokenKind::HashIdent, start);
  default:
    break;
  }
  if (std::isdigit(static_cast<unsigned char>(c))) return lexNumber(start);
  if (isIdentStart(c)) {
    while (pos_ < source_.size() && isIdentChar(source_[pos_]))
      ++pos_;
    return make(TokenKind::BareIdent, start, std::string(source_.substr(start, pos_ - start)));
  }
  return make(TokenKind::Error, start);
}

Token Lexer::lexIdentifierLike(TokenKind kind, size_t start) {
  size_t first = pos_;
  bool numeric = first < source_.size() && std::isdigit(static_cast<unsigned char>(source_[first]));
  if (numeric) {
    while (pos_ < source_.size() && std::isdigit(static_cast<unsigned char>(source_[pos_])))
      ++pos_;
  } else if (first < source_.size() && (isIdentStart(source_[first]) || source_[first] == '$' ||
                                        source_[first] == '.' || source_[first] == '-')) {
    while (pos_ < source_.size() && isSuffixIdChar(source_[pos_]))
      ++pos_;
  }
  if (pos_ == first) return make(TokenKind::Error, start);
  return make(kind, start, std::string(source_.substr(first, pos_ - first)));
}

Token Lexer::lexNumber(size_t start) {
  if (source_[start] == '0' && pos_ < source_.size() && source_[pos_] == 'x' &&
      pos_ + 1 < source_.size() && std::isxdigit(static_cast<unsigned char>(source_[pos_ + 1]))) {
    ++pos_;
    while (pos_ < source_.size() && std::isxdigit(static_cast<unsigned char>(source_[pos_])))
      ++pos_;
    return make(TokenKind::Integer, start);
  }
  while (pos_ < source_.size() && std::isdigit(static_cast<unsigned char>(source_[pos_])))
    ++pos_;
  if (pos_ >= source_.size() || source_[pos_] != '.') return make(TokenKind::Integer, start);
  ++pos_;
  while (pos_ < source_.size() && std::isdigit(static_cast<unsigned char>(source_[pos_])))
    ++pos_;
  if (pos_ < source_.size() && (source_[pos_] == 'e' || source_[pos_] == 'E')) {
    size_t save = pos_++;
    if (pos_ < source_.size() && (source_[pos_] == '+' || source_[pos_] == '-')) ++pos_;
    if (pos_ < source_.size() && std::isdigit(static_cast<unsigned char>(source_[pos_]))) {
      while (pos_ < source_.size() && std::isdigit(static_cast<unsigned char>(source_[pos_])))
        ++pos_;
    } else {
      pos_ = save;
    }
  }
  return make(TokenKind::Float, start);
}

Token Lexer::lexString(size_t start) {
  std::string text;
  while (pos_ < source_.size()) {
    char c = source_[pos_++];
    if (c == '"') return make(TokenKind::String, start, std::move(text));
    if (c == '\n') break;
    if (c != '\\') {
      text += c;
      continue;
    }
    if (pos_ >= source_.size()) break;
    char e = source_[pos_++];
    if (e == 'n')
      text += '\n';
    else if (e == 't')
      text += '\t';
    else if (e == '"' || e == '\\')
      text += e;
    else if (std::isxdigit(static_cast<unsigned char>(e)) && pos_ < source_.size() &&
             std::isxdigit(static_cast<unsigned char>(source_[pos_]))) {
      text += static_cast<char>(std::stoi(std::string{e, source_[pos_++]}, nullptr, 16));
    } else {
      return make(TokenKind::Error, start, "unknown escape in string");
    }
  }
  return make(TokenKind::Error, start, "unterminated string");
}

} // namespace ttlplan::ir
