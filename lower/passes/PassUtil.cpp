#include "ttlplan/lower/passes/PassUtil.h"

#include <charconv>
#include <regex>

namespace ttlplan::lower {

void reportError(PassContext& context, const std::string& text) {
  static const std::regex prefix(R"(^([^\n:]+):(\d+):(\d+): error: )");
  std::smatch m;
  if (std::regex_search(text, m, prefix)) {
    ir::Location location;
    location.file = std::make_shared<const std::string>(m[1].str());
    location.line = static_cast<uint32_t>(std::stoul(m[2].str()));
    location.column = static_cast<uint32_t>(std::stoul(m[3].str()));
    context.diagnostics.error(location, text.substr(m.length(0)));
    return;
  }
  context.diagnostics.error(ir::Location(), text);
}

void reportError(PassContext& context, const ir::Operation* op, std::string message) {
  context.diagnostics.error(op->location(), std::move(message));
}

std::vector<ir::Operation*> kernelsOf(ir::Module& module) {
  return module.topLevel("ttl.kernel");
}

} // namespace ttlplan::lower
