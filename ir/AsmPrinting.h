#pragma once
// Printing of types and attributes, shared by Type::str(), Attribute::str() and the op printer.
#include "ttlplan/ir/Attributes.h"
#include "ttlplan/ir/Types.h"

#include <string>
#include <utility>
#include <vector>

namespace ttlplan::ir {

/// `!name = type` and `#name = attr` definitions at the top of a file, in source order.
struct AliasTable {
  std::vector<std::pair<std::string, Type>> types;           ///< name without '!'
  std::vector<std::pair<std::string, Attribute>> attributes; ///< name without '#'

  const std::string* findType(const Type& type, size_t limit) const;
  const std::string* findAttribute(const Attribute& attr, size_t limit) const;
};

struct PrintContext {
  const AliasTable* aliases = nullptr; ///< use these names where a type/attr equals an alias
  size_t typeAliasLimit = SIZE_MAX;    ///< only the first N type aliases may be used
  size_t attrAliasLimit = SIZE_MAX;    ///< only the first N attribute aliases may be used
  bool generic = false;                ///< spell everything so that mlir-opt accepts it
};

void printType(std::string& out, const Type& type, const PrintContext& context);
void printAttribute(std::string& out, const Attribute& attr, const PrintContext& context);
/// `{a = 1, b}`; nothing for an empty list.
void printAttributeDict(std::string& out, const std::vector<NamedAttribute>& attrs,
                        const PrintContext& context);
/// A string literal with MLIR escapes.
std::string quoteString(std::string_view text);
/// `name` if it is a bare identifier [A-Za-z_][A-Za-z0-9_$.]*, else quoted.
std::string keyOrString(std::string_view name);

} // namespace ttlplan::ir
