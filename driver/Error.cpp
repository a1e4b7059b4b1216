#include "ttlplan/driver/Error.h"

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

std::string Error::text() const {
  std::string out = ir::format(diagnostics, sources.get());
  if (!message.empty()) out += "ttlplan: error: " + message + "\n";
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
