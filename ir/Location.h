#pragma once
// Source locations: every op keeps the file:line:col it was parsed from (docs/language.md), or the
// file location its MLIR `loc(...)` names (a Python line for IR dumped by tt-lang).
#include <cstdint>
#include <memory>
#include <string>

namespace ttlplan::ir {

struct Location {
  Location() = default;
  Location(std::shared_ptr<const std::string> file, uint32_t line, uint32_t column,
           std::shared_ptr<const std::string> written = nullptr)
      : file(std::move(file)), line(line), column(column), written(std::move(written)) {}

  std::shared_ptr<const std::string> file; ///< file name as given by the user; null if unknown
  uint32_t line = 0;                       ///< 1-based; 0 when unknown
  uint32_t column = 0;                     ///< 1-based; 0 when unknown
  /// The MLIR location written after the op or argument, between `loc(` and `)` (`#loc3`,
  /// `"k.py":12:4`, `callsite(...)`), printed back as written; null when none was written.
  std::shared_ptr<const std::string> written;

  bool known() const { return file && line != 0; }
  /// "file:line:col", or "<unknown>".
  std::string str() const;
};

} // namespace ttlplan::ir
