// MLIR locations: `loc(...)` after an op or a block argument, and `#loc3 = loc(...)` aliases,
// which MLIR prints after the module, so they are resolved once the whole file is read.
#include "ttlplan/ir/ParserDetail.h"

namespace ttlplan::ir::parsing {

bool Parser::parseOptionalLoc(std::optional<ParsedLoc>& loc) {
  if (!atLoc()) return true;
  consume(); // loc
  consume(); // (
  loc.emplace();
  return parseLocBody(*loc) && expect(TokenKind::RParen, "to close the location");
}

bool Parser::parseLocBody(ParsedLoc& loc) {
  NestingGuard guard(*this);
  if (!guard.ok()) return false;
  if (consumeKeyword("unknown")) {
    loc.text += "unknown";
    return true;
  }
  if (is(TokenKind::HashIdent)) {
    loc.text += "#" + tok_.text;
    loc.parts.push_back({Location{}, tok_.text, tok_.offset});
    consume();
    return true;
  }
  if (consumeKeyword("callsite")) {
    loc.text += "callsite(";
    if (!expect(TokenKind::LParen, "after 'callsite'") || !parseLocBody(loc) ||
        !expectKeyword("at", "between the callee and the caller location"))
      return false;
    loc.text += " at ";
    if (!parseLocBody(loc) || !expect(TokenKind::RParen, "to close 'callsite'")) return false;
    loc.text += ")";
    return true;
  }
  if (consumeKeyword("fused")) {
    loc.text += "fused";
    if (is(TokenKind::Less) && !captureBalanced(loc.text)) return false;
    if (!expect(TokenKind::LSquare, "to start the fused locations")) return false;
    loc.text += "[";
    if (!is(TokenKind::RSquare)) {
      do {
        if (loc.text.back() != '[') loc.text += ", ";
        if (!parseLocBody(loc)) return false;
      } while (consumeIf(TokenKind::Comma));
    }
    loc.text += "]";
    return expect(TokenKind::RSquare, "to close the fused locations");
  }
  if (!is(TokenKind::String))
    return error(fmt::format("expected a location (\"file\":line:col, a name, callsite(...), "
                             "fused[...], unknown or a #alias), found {}",
                             found()));
  std::string name = tok_.text;
  consume();
  loc.text += quoteString(name);
  if (consumeIf(TokenKind::Colon)) { // "file":line:col
    int64_t numbers[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      if (i && !expect(TokenKind::Colon, "between the line and the column")) return false;
      size_t at = tok_.offset;
      if (!is(TokenKind::Integer))
        return error(
            fmt::format("expected the {} number, found {}", i ? "column" : "line", found()));
      if (!readInteger(numbers[i])) return false;
      if (numbers[i] > int64_t(UINT32_MAX))
        return error(at, fmt::format("{} {} is too large", i ? "column" : "line", numbers[i]));
    }
    loc.text += fmt::format(":{}:{}", numbers[0], numbers[1]);
    loc.parts.push_back({Location{std::make_shared<const std::string>(name), uint32_t(numbers[0]),
                                  uint32_t(numbers[1]), nullptr},
                         {},
                         0});
    return true;
  }
  if (consumeIf(TokenKind::LParen)) { // "name"(child)
    loc.text += "(";
    if (!parseLocBody(loc) || !expect(TokenKind::RParen, "to close the named location"))
      return false;
    loc.text += ")";
  }
  return true;
}

bool Parser::parseLocAliasDefinition(const Token& name) {
  if (locAliases_.count(name.text))
    return error(name.offset, fmt::format("redefinition of location alias '#{}'", name.text));
  std::optional<ParsedLoc> loc;
  if (!parseOptionalLoc(loc)) return false;
  aliases_.attributes.emplace_back(name.text, Attribute::opaque("loc(" + loc->text + ")"));
  locAliases_.emplace(name.text, std::move(*loc));
  return true;
}

void Parser::attachLoc(ParsedLoc loc, Operation* op, Value* value) {
  pendingLocs_.push_back({std::move(loc), op, value});
}

const Location* Parser::resolveLoc(const ParsedLoc& loc, int depth) {
  if (depth > kMaxNesting) return nullptr; // an alias cycle names no file
  for (const ParsedLoc::Part& part : loc.parts) {
    if (part.alias.empty()) {
      if (part.file.known()) return &part.file;
      continue;
    }
    auto it = locAliases_.find(part.alias);
    if (it == locAliases_.end()) continue;
    if (const Location* found = resolveLoc(it->second, depth + 1)) return found;
  }
  return nullptr;
}

bool Parser::resolveLocations() {
  for (PendingLoc& pending : pendingLocs_) {
    for (const ParsedLoc::Part& part : pending.loc.parts)
      if (!part.alias.empty() && !locAliases_.count(part.alias))
        return error(part.offset, fmt::format("undefined location alias '#{}'; define it like "
                                              "#{} = loc(\"file.py\":12:4)",
                                              part.alias, part.alias));
    Location where = pending.op ? pending.op->location() : pending.value->location();
    if (const Location* file = resolveLoc(pending.loc, 0)) {
      where.file = file->file;
      where.line = file->line;
      where.column = file->column;
    }
    where.written = std::make_shared<const std::string>(pending.loc.text);
    if (pending.op)
      pending.op->setLocation(std::move(where));
    else
      pending.value->setLocation(std::move(where));
  }
  for (const auto& [name, loc] : locAliases_)
    for (const ParsedLoc::Part& part : loc.parts)
      if (!part.alias.empty() && !locAliases_.count(part.alias))
        return error(part.offset, fmt::format("undefined location alias '#{}'", part.alias));
  return true;
}

} // namespace ttlplan::ir::parsing
