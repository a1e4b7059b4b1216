#include "ttlplan/ir/ExpectedDiagnostics.h"
#include "ttlplan/ir/ParserDetail.h"

namespace ttlplan::ir {

namespace parsing {

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
    std::string message = fmt::format("'%{}' has type {} but the op says {}", ref.name,
                                      value->type().str(), writtenType.str());
    if (!failed_)
      diagnostics_.error(lexer_.location(ref.offset), std::move(message))
          .note(value->location(), fmt::format("'%{}' is defined here", ref.name));
    failed_ = true;
    return nullptr;
  }
  return value;
}

bool Parser::addOperands(const std::vector<ValueRef>& refs, const std::vector<Type>& types,
                         OpState& state, size_t at) {
  if (types.size() != refs.size())
    return error(at, fmt::format("{} operand(s) but {} type(s)", refs.size(), types.size()));
  for (size_t i = 0; i < refs.size(); ++i) {
    Value* v = resolve(refs[i], types[i]);
    if (!v) return false;
    state.operands.push_back(v);
  }
  return true;
}

bool Parser::addOperands(const std::vector<ValueRef>& refs, const Type& type, OpState& state) {
  return addOperands(refs, std::vector<Type>(refs.size(), type), state, tok_.offset);
}

bool Parser::parseFunctionalType(const std::vector<ValueRef>& refs, OpState& state) {
  size_t at = tok_.offset;
  if (!is(TokenKind::LParen))
    return error(fmt::format("expected a function type like (T0, T1) -> R, found {}", found()));
  Type fn = parseFunctionType();
  if (!fn || !addOperands(refs, fn.inputs(), state, at)) return false;
  state.resultTypes = fn.results();
  return true;
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
// Regions and blocks
// ================================================================================================

bool Parser::parseArgDecls(std::vector<ArgDecl>& args, bool typed, TokenKind closer) {
  if (consumeIf(closer)) return true;
  do {
    if (!is(TokenKind::PercentIdent))
      return error(fmt::format("expected argument name like %i, found {}", found()));
    ArgDecl arg{tok_.text, tok_.offset, Type::index(), {}, {}};
    consume();
    if (typed) {
      if (!expect(TokenKind::Colon, "after argument name")) return false;
      arg.type = parseType();
      if (!arg.type) return false;
    }
    if (!parseOptionalLoc(arg.loc)) return false;
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
    if (a.loc) attachLoc(*a.loc, nullptr, v);
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
  op->setProperties(std::move(state.properties));
  for (size_t i = 0; i < state.regions.size(); ++i)
    moveRegionBody(*state.regions[i], op->region(i));
  // A module always has its one block (MLIR's is implicit): the generic `({})` has none.
  if (op->name() == "builtin.module" && op->numRegions() == 1 && op->region(0).empty())
    op->region(0).addBlock();
  // Implicit terminators: the custom forms of scf.for/if and tt-lang's compute leave them out, and
  // ttlplan's output before 2026-11 ended functions without one.
  static const std::pair<std::string_view, std::string_view> kTerminators[] = {
      {"scf.for", "scf.yield"},
      {"scf.if", "scf.yield"},
      {"func.func", "func.return"},
      {"ttl.compute", "ttl.yield"}};
  for (const auto& [owner, terminator] : kTerminators) {
    if (op->name() != owner) continue;
    for (size_t i = 0; i < op->numRegions(); ++i) {
      Region& r = op->region(i);
      if (r.empty()) continue; // a declaration, or a generic region with no block
      Block& b = r.front();
      if (!b.back() || b.back()->name() != terminator)
        b.push_back(Operation::create(std::string(terminator), op->location()));
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
    // MLIR's short spellings (`return` is func.return inside a func.func).
    state.name = tok_.text == "module"   ? "builtin.module"
                 : tok_.text == "return" ? "func.return"
                                         : tok_.text;
    consume();
    const OpDef* def = lookupOp(state.name);
    // Another dialect's op in a call-like form; a ttl op ttlplan does not know stays an error.
    if (!def && is(TokenKind::LParen) && !state.name.starts_with("ttl.")) {
      if (!parseUnregisteredCall(state)) return nullptr;
    } else if (!def || def->format == AsmFormat::Generic) {
      std::string hint;
      size_t best = 3;
      for (const OpDef& d : registeredOps())
        if (size_t dist = editDistance(d.name, state.name, best); dist < best) {
          best = dist;
          hint = fmt::format("; did you mean '{}'?", d.name);
        }
      error(opOffset,
            fmt::format("unknown op {}{}{}", quotedInput(state.name), hint,
                        hint.empty() ? " (ops without a custom form must be written in "
                                       "generic form: \"dialect.op\"(...) : (...) -> (...))"
                                     : ""));
      return nullptr;
    } else if (!parseCustomOp(*def, state)) {
      return nullptr;
    }
  } else {
    error(fmt::format("expected an operation, found {}", found()));
    return nullptr;
  }
  std::optional<ParsedLoc> loc;
  if (!parseOptionalLoc(loc)) return nullptr;
  std::unique_ptr<Operation> op = build(state);
  if (loc) attachLoc(std::move(*loc), op.get(), nullptr);
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
  if (is(TokenKind::Less)) { // properties: <{...}>
    consume();
    if (!is(TokenKind::LBrace))
      return error(
          fmt::format("expected '{{' to start the op's properties <{{...}}>, found {}", found()));
    if (!parseAttrDict(state.properties) || !expect(TokenKind::Greater, "after the properties"))
      return false;
  }
  if (is(TokenKind::LParen)) {
    consume();
    do {
      if (!addRegion(state, {}, true)) return false;
    } while (consumeIf(TokenKind::Comma));
    if (!expect(TokenKind::RParen, "after regions")) return false;
  }
  if (!parseOptionalAttrDict(state.attributes)) return false;
  return expect(TokenKind::Colon, "before the op's function type") &&
         parseFunctionalType(refs, state);
}

bool Parser::parseUnregisteredCall(OpState& state) {
  // `dialect.op(%a, 7, true, <col>) {attrs} : (T0, ..) -> (R, ..)`: an op of another dialect in
  // its call-like custom form (tt-lang's ttkernel ops), read as an op ttlplan does not know. Its
  // value arguments are its operands, in order; each other argument is the attribute `argN`, N
  // its position among the arguments (a literal as it is, an enum like `<col>` as the string
  // "<col>"), so that it prints back in generic form, valid MLIR, with nothing lost.
  consume(); // (
  std::vector<ValueRef> refs;
  if (!is(TokenKind::RParen)) {
    size_t position = 0;
    do {
      if (is(TokenKind::PercentIdent)) {
        refs.emplace_back();
        if (!parseValueRef(refs.back())) return false;
      } else {
        Attribute literal;
        if (is(TokenKind::Less)) { // an enum in its dialect's short form: kept as its text
          std::string text;
          if (!captureBalanced(text)) return false;
          literal = Attribute::string(text);
        } else {
          literal = parseAttribute();
          if (!literal) return false;
        }
        state.attributes.push_back({fmt::format("arg{}", position), literal});
      }
      ++position;
    } while (consumeIf(TokenKind::Comma));
  }
  if (!expect(TokenKind::RParen, "after the arguments") || !parseOptionalAttrDict(state.attributes))
    return false;
  return expect(TokenKind::Colon, "before the op's function type") &&
         parseFunctionalType(refs, state);
}

bool Parser::parseSameType(OpState& state, const OpDef& def) {
  std::vector<ValueRef> refs;
  if (!parseValueRefList(refs) || !parseOptionalAttrDict(state.attributes)) return false;
  if (!expect(TokenKind::Colon, "before the type")) return false;
  // `: T` types every operand and the result; tt-lang writes one type per operand and the result
  // after an arrow (`: T, T -> T`, `: T -> T`, `ttl.store`'s `: T, T`).
  size_t at = tok_.offset;
  std::vector<Type> types;
  if (!parseTypeList(types)) return false;
  Type result = types[0];
  if (types.size() == 1) types.assign(refs.size(), result);
  if (!addOperands(refs, types, state, at)) return false;
  if (consumeIf(TokenKind::Arrow)) {
    result = parseType();
    if (!result) return false;
  }
  if (def.numResults == 1) state.resultTypes.push_back(result);
  return true;
}

// ================================================================================================
// Top level
// ================================================================================================

bool Parser::parseAliasDefinition() {
  Token name = tok_;
  consume(); // the alias name
  consume(); // '='
  if (name.kind == TokenKind::HashIdent && atLoc()) return parseLocAliasDefinition(name);
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
      if (peek().kind == TokenKind::Equal) {
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
  if (!parseTopLevel(block) || !resolveLocations()) return nullptr;
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

} // namespace parsing

using parsing::Parser;

std::unique_ptr<Module> parseSource(std::string_view source, const std::string& fileName,
                                    DiagnosticEngine& diagnostics) {
  if (std::optional<LongLine> long_ = firstLongLine(source)) {
    diagnostics.error(Location{std::make_shared<const std::string>(fileName),
                               static_cast<uint32_t>(long_->line), 1},
                      longLineMessage(*long_));
    return nullptr;
  }
  Parser parser(source, fileName, diagnostics);
  return parser.parseModule();
}

std::unique_ptr<Module> parseFile(const std::string& path, DiagnosticEngine& diagnostics,
                                  SourceManager* sources, std::optional<size_t> chunk) {
  Expected<std::string> text = readTextFile(path);
  if (!text) {
    diagnostics.error(Location{std::make_shared<const std::string>(path), 0, 0},
                      text.error().message);
    return nullptr;
  }
  return parseFileText(std::move(*text), path, diagnostics, sources, chunk);
}

std::unique_ptr<Module> parseFileText(std::string text, const std::string& path,
                                      DiagnosticEngine& diagnostics, SourceManager* sources,
                                      std::optional<size_t> chunk) {
  std::unique_ptr<Module> module;
  if (chunk) {
    std::vector<std::string> chunks = splitInputFile(text);
    if (*chunk >= chunks.size()) {
      diagnostics.error(
          Location{std::make_shared<const std::string>(path), 0, 0},
          fmt::format("chunk {} of a file with {} `// -----` chunks", *chunk + 1, chunks.size()));
      return nullptr;
    }
    module = parseSource(chunks[*chunk], path, diagnostics);
  } else {
    module = parseSource(text, path, diagnostics);
  }
  if (sources) sources->add(path, std::move(text));
  return module;
}

} // namespace ttlplan::ir
