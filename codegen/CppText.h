#pragma once
// Small pieces of C++ text the emitters share: identifiers made from SSA names, unique names per
// generated function, literals, and the `// FILE:LINE:COL: text` source comments the emulator reads
// back to report errors at the TTL line (docs/emulator.md, "Source locations").
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Location.h"
#include "ttlplan/ir/Types.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace ttlplan::codegen {

/// `name` as a C++ identifier: every character outside [A-Za-z0-9_] becomes '_', a leading digit
/// gets a 'v' in front, a C++ keyword gets a '_' after it; empty stays empty.
std::string sanitizeIdentifier(std::string_view name);

/// Names handed out in one generated function: each name is used once, so a later value that
/// wants a taken name gets `name_1`, `name_2`, ...; values without a name hint get v0, v1, ...
class NameTable {
public:
  /// Marks `name` as taken (API functions, types, the CB constants) without handing it out.
  void reserve(std::string name) { taken_.insert(std::move(name)); }
  bool taken(const std::string& name) const { return taken_.count(name) != 0; }
  /// A fresh identifier from `hint` (sanitized first); from the v0, v1, ... sequence when `hint`
  /// is empty.
  std::string unique(std::string_view hint);

private:
  std::set<std::string> taken_;
  int nextAnonymous_ = 0;
};

/// An integer literal of the given bit width (1: `true`/`false`; 64: with `ull`; otherwise
/// unsigned 32-bit, with `u` when it does not fit an int). Negative values wrap as they do in
/// the unsigned C++ type the value has.
std::string integerLiteral(int64_t value, unsigned width);
/// A `float` literal (`0.0f`, `1.5f`, `1e-05f`); infinities and NaN through GCC builtins.
std::string floatLiteral(double value);

/// The comment line (without indentation or newline) that tags the statements generated from
/// `location`: `// FILE:LINE:COL: <source line, trimmed>`. Empty when the location is unknown.
/// Without the source text the comment ends after the colon.
std::string sourceComment(const ir::Location& location, const ir::SourceManager* sources);

/// The data type of a tensor's elements (`tensor<256x256xbf16, ...>`: bf16), of a tile, or of an
/// opaque spelling; nullopt for the others (f64, i8, ...).
std::optional<ir::DataType> elementDataType(const ir::Type& element);

/// `text` with leading and trailing blanks removed.
std::string_view trim(std::string_view text);

} // namespace ttlplan::codegen
