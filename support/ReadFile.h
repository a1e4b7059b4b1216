#pragma once
// Reads a whole file; the one place that turns "cannot open" into a message.
#include "ttlplan/support/Expected.h"

#include <fstream>
#include <sstream>
#include <string>

namespace ttlplan {

inline Expected<std::string> readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open '" + path + "' (does it exist and is it readable?)"};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace ttlplan
