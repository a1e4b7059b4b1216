#include "ttlplan/driver/Error.h"

#include "ttlplan/support/Text.h"

#include <cctype>

namespace ttlplan::driver {

std::string_view errorKindName(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::Usage:
    return "usage";
  case ErrorKind::Input:
    return "input";
  case ErrorKind::Infeasible:
    return "infeasible";
  case ErrorKind::Io:
    return "io";
  case ErrorKind::Build:
    return "build";
  }
  return "?";
}

namespace {

/// Whether `message` starts "FILE:LINE:COL: error: " (FILE without spaces or newlines).
bool isLocated(std::string_view message) {
  size_t colon = message.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  if (message.substr(0, colon).find_first_of(" \n") != std::string_view::npos) return false;
  size_t p = colon + 1;
  for (int field = 0; field < 2; ++field) { // LINE: and COL:
    size_t digits = p;
    while (p < message.size() && std::isdigit(static_cast<unsigned char>(message[p])))
      ++p;
    if (p == digits || p >= message.size() || message[p] != ':') return false;
    ++p;
  }
  return message.substr(p).starts_with(" error: ");
}

} // namespace

std::string errorLine(std::string_view message) {
  std::string line = printableText(message);
  if (!isLocated(message)) line = "ttlplan: error: " + line;
  if (!line.ends_with('\n')) line += '\n';
  return line;
}

std::string Error::text() const {
  std::string out = ir::format(diagnostics, sources.get());
  if (!message.empty()) out += errorLine(message);
  return out;
}

Error Error::located(const ir::DiagnosticEngine& diagnostics,
                     std::shared_ptr<const ir::SourceManager> sources) {
  Error e;
  e.kind = ErrorKind::Input;
  e.diagnostics = diagnostics.diagnostics();
  e.sources = std::move(sources);
  return e;
}

} // namespace ttlplan::driver
