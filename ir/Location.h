#pragma once
// Source locations: every op keeps the file:line:col it was parsed from (TTL_SYNTAX.md).
#include <cstdint>
#include <memory>
#include <string>

namespace ttlplan::ir {

struct Location {
  std::shared_ptr<const std::string> file; ///< file name as given by the user; null if unknown
  uint32_t line = 0;                       ///< 1-based; 0 when unknown
  uint32_t column = 0;                     ///< 1-based; 0 when unknown

  bool known() const { return file && line != 0; }
  /// "file:line:col", or "<unknown>".
  std::string str() const;
};

} // namespace ttlplan::ir
