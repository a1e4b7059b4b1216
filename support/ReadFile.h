#pragma once
// Reads a whole file; the one place that turns "cannot open" into a message.
#include "ttlplan/support/Expected.h"

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace ttlplan {

/// `text` without a leading UTF-8 byte order mark (spreadsheets and some editors write one; it is
/// not part of the first word).
inline std::string_view withoutByteOrderMark(std::string_view text) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  return text.starts_with(kByteOrderMark) ? text.substr(kByteOrderMark.size()) : text;
}

inline Expected<std::string> readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open '" + path + "' (does it exist and is it readable?)"};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace ttlplan
