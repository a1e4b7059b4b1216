#include "ttlplan/lower/passes/PassUtil.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <string_view>

namespace ttlplan::lower {

namespace {

// Reads an unsigned number at text[pos..] up to `stop`; false unless it is one or more digits
// that fit (a too-long number is no location, never an exception).
bool readNumber(const std::string& text, size_t& pos, char stop, uint32_t& out) {
  const char* first = text.data() + pos;
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, out);
  if (ec != std::errc() || end == first || end == last || *end != stop) return false;
  pos = size_t(end - text.data()) + 1;
  return true;
}

// Splits "FILE:LINE:COL: error: MESSAGE" (FILE without ':' or a line break) into the location and
// where MESSAGE starts; false when `text` does not start that way.
bool splitLocation(const std::string& text, ir::Location& location, size_t& message) {
  size_t colon = text.find_first_of(":\n");
  if (colon == 0 || colon == std::string::npos || text[colon] != ':') return false;
  size_t pos = colon + 1;
  uint32_t line = 0, column = 0;
  if (!readNumber(text, pos, ':', line) || !readNumber(text, pos, ':', column)) return false;
  constexpr std::string_view kError = " error: ";
  if (text.compare(pos, kError.size(), kError) != 0) return false;
  location.file = std::make_shared<const std::string>(text.substr(0, colon));
  location.line = line;
  location.column = column;
  message = pos + kError.size();
  return true;
}

} // namespace

void reportError(PassContext& context, const std::string& text) {
  ir::Location location;
  size_t message = 0;
  if (splitLocation(text, location, message)) {
    context.diagnostics.error(location, text.substr(message));
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

ir::Value* isNonZero(ir::OpBuilder& b, ir::Value* v) {
  ir::Value* zero = b.constant(0);
  ir::Operation* cmp = b.create("arith.cmpi", {v, zero}, {ir::Type::integer(1)},
                                {{"predicate", ir::Attribute::integer(1, ir::Type::integer(64))}});
  return cmp->result(0);
}

ir::Type l1PtrType() {
  return ir::Type::opaque("!ttkernel.l1_ptr");
}

std::optional<int64_t> takeSemaphoreId(PassContext& context, ir::Operation& kernel,
                                       const ir::Operation* at, std::string_view what) {
  int64_t next = 0;
  if (ir::Attribute n = kernel.attribute("ttl.semaphore_count"); n.is(ir::AttrKind::Integer))
    next = n.intValue();
  for (auto& op : kernel.body().operations())
    if (ir::Attribute id = op->attribute("ttl.semaphore_id"); id.is(ir::AttrKind::Integer))
      next = std::max(next, id.intValue() + 1);
  if (next >= context.device.kernel.semaphoresPerCore) {
    reportError(context, at,
                fmt::format("{} needs semaphore id {}, beyond the {} semaphores per core of {}: "
                            "use fewer semaphores or pipes",
                            what, next, context.device.kernel.semaphoresPerCore,
                            context.device.name));
    return std::nullopt;
  }
  kernel.setAttribute("ttl.semaphore_count", ir::Attribute::integer(next + 1));
  return next;
}

} // namespace ttlplan::lower
