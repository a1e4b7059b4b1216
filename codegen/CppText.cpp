#include "ttlplan/codegen/CppText.h"

#include <cmath>
#include <fmt/format.h>

namespace ttlplan::codegen {

namespace {

// C++20 keywords and alternative tokens: an SSA name like %for or %new must not become one.
constexpr std::string_view kKeywords[] = {"alignas",       "alignof",     "and",
                                          "and_eq",        "asm",         "auto",
                                          "bitand",        "bitor",       "bool",
                                          "break",         "case",        "catch",
                                          "char",          "char8_t",     "char16_t",
                                          "char32_t",      "class",       "compl",
                                          "concept",       "const",       "consteval",
                                          "constexpr",     "constinit",   "const_cast",
                                          "continue",      "co_await",    "co_return",
                                          "co_yield",      "decltype",    "default",
                                          "delete",        "do",          "double",
                                          "dynamic_cast",  "else",        "enum",
                                          "explicit",      "export",      "extern",
                                          "false",         "float",       "for",
                                          "friend",        "goto",        "if",
                                          "inline",        "int",         "long",
                                          "mutable",       "namespace",   "new",
                                          "noexcept",      "not",         "not_eq",
                                          "nullptr",       "operator",    "or",
                                          "or_eq",         "private",     "protected",
                                          "public",        "register",    "reinterpret_cast",
                                          "requires",      "return",      "short",
                                          "signed",        "sizeof",      "static",
                                          "static_assert", "static_cast", "struct",
                                          "switch",        "template",    "this",
                                          "thread_local",  "throw",       "true",
                                          "try",           "typedef",     "typeid",
                                          "typename",      "union",       "unsigned",
                                          "using",         "virtual",     "void",
                                          "volatile",      "wchar_t",     "while",
                                          "xor",           "xor_eq"};

bool isKeyword(std::string_view name) {
  for (std::string_view k : kKeywords)
    if (k == name) return true;
  return false;
}

bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

} // namespace

std::string sanitizeIdentifier(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 1);
  for (char c : name)
    out += isIdentChar(c) ? c : '_';
  if (!out.empty() && out[0] >= '0' && out[0] <= '9') out.insert(out.begin(), 'v');
  // Identifiers with a double underscore or _Capital are reserved for the implementation.
  if (out.size() >= 2 && out[0] == '_' && (out[1] == '_' || (out[1] >= 'A' && out[1] <= 'Z')))
    out.insert(out.begin(), 'v');
  if (isKeyword(out)) out += '_';
  return out;
}

std::string NameTable::unique(std::string_view hint) {
  std::string base = sanitizeIdentifier(hint);
  if (base.empty()) {
    std::string name;
    do
      name = fmt::format("v{}", nextAnonymous_++);
    while (taken(name));
    taken_.insert(name);
    return name;
  }
  std::string name = base;
  for (int n = 1; taken(name); ++n)
    name = fmt::format("{}_{}", base, n);
  taken_.insert(name);
  return name;
}

std::string integerLiteral(int64_t value, unsigned width) {
  if (width == 1) return value & 1 ? "true" : "false";
  if (width > 32) return fmt::format("{}ull", static_cast<uint64_t>(value));
  uint32_t v = static_cast<uint32_t>(value);
  if (v <= 0x7fffffffu) return fmt::format("{}", v);
  return fmt::format("{}u", v);
}

std::string floatLiteral(double value) {
  if (std::isnan(value)) return "__builtin_nanf(\"\")";
  if (std::isinf(value)) return value > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
  std::string text = fmt::format("{}", static_cast<float>(value));
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text + "f";
}

std::string_view trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::string sourceComment(const ir::Location& location, const ir::SourceManager* sources) {
  if (!location.known()) return {};
  std::string head = fmt::format("// {}:{}:{}:", *location.file, location.line, location.column);
  std::string_view text = sources ? trim(sources->line(*location.file, location.line)) : "";
  // A backslash at the end of a // comment would splice the next generated line into it.
  while (!text.empty() && text.back() == '\\')
    text = trim(text.substr(0, text.size() - 1));
  if (text.empty()) return head;
  return head + " " + std::string(text);
}

std::optional<ir::DataType> elementDataType(const ir::Type& element) {
  if (element.is(ir::TypeKind::Float)) {
    switch (element.floatKind()) {
    case ir::FloatKind::BF16:
      return ir::DataType::BF16;
    case ir::FloatKind::F16:
      return ir::DataType::F16;
    case ir::FloatKind::F32:
      return ir::DataType::F32;
    case ir::FloatKind::F64:
      return std::nullopt;
    }
  }
  if (element.is(ir::TypeKind::Integer) && element.integerWidth() == 32)
    return element.signedness() == ir::Signedness::Unsigned ? ir::DataType::U32 : ir::DataType::I32;
  if (element.is(ir::TypeKind::Tile)) return element.tileDataType();
  if (element.is(ir::TypeKind::Opaque)) return ir::parseDataType(element.opaqueText());
  return std::nullopt;
}

} // namespace ttlplan::codegen
