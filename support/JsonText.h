#pragma once
// JSON as text that never throws: bytes that are not UTF-8 (in a file name, or in a name or
// string of the input) become U+FFFD instead of nlohmann's type_error 316, which escaped
// codegen::emitModule as an exception (fuzz_lower_codegen found it; docs/architecture.md: no
// exception crosses the API). Every report, record and file ttlplan writes as JSON goes through it.
#include <nlohmann/json.hpp>
#include <string>

namespace ttlplan {

/// `j.dump(indent)` with invalid UTF-8 replaced; -1: one line.
template <typename Json> std::string jsonText(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace ttlplan
