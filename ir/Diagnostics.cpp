#include "ttlplan/ir/Diagnostics.h"

#include "ttlplan/support/Text.h"

#include <algorithm>
#include <fmt/format.h>

namespace ttlplan::ir {

std::string Location::str() const {
  if (!file) return "<unknown>";
  if (line == 0) return *file;
  return fmt::format("{}:{}:{}", *file, line, column);
}

std::string_view toString(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  case Severity::Remark:
    return "remark";
  }
  return "?";
}

DiagnosticEngine::Builder& DiagnosticEngine::Builder::note(Location location, std::string message) {
  diagnostic_.notes.push_back({Severity::Note, std::move(location), std::move(message), {}});
  return *this;
}

DiagnosticEngine::Builder DiagnosticEngine::emit(Severity severity, Location location,
                                                 std::string message) {
  diagnostics_.push_back({severity, std::move(location), std::move(message), {}});
  return Builder(diagnostics_.back());
}

size_t DiagnosticEngine::errorCount() const {
  return std::count_if(diagnostics_.begin(), diagnostics_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

void SourceManager::add(std::string file, std::string text) {
  files_.emplace_back(std::move(file), std::move(text));
}

std::string_view SourceManager::line(const std::string& file, uint32_t line) const {
  for (const auto& [name, text] : files_) {
    if (name != file) continue;
    std::string_view rest = text;
    for (uint32_t i = 1; i < line; ++i) {
      size_t newline = rest.find('\n');
      if (newline == std::string_view::npos) return {};
      rest.remove_prefix(newline + 1);
    }
    return rest.substr(0, rest.find('\n'));
  }
  return {};
}

static void formatOne(std::string& out, const Diagnostic& d, const SourceManager* sources) {
  out += fmt::format("{}: {}: {}\n", printableText(d.location.str()), toString(d.severity),
                     printableText(d.message));
  if (!sources || !d.location.known()) return;
  std::string_view text = sources->line(*d.location.file, d.location.line);
  if (text.empty()) return;
  size_t before = std::min<size_t>(d.location.column > 0 ? d.location.column - 1 : 0, text.size());
  // A long line (a 4 MB identifier) shows a window around the column, marked with "...".
  constexpr size_t kContext = 80;
  std::string head, tail;
  if (before > kContext) {
    text.remove_prefix(before - kContext);
    before = kContext;
    head = "...";
  }
  if (text.size() > before + kContext) {
    text = text.substr(0, before + kContext);
    tail = "...";
  }
  // The caret under the column as printed: escaped bytes before it widen the line.
  out += fmt::format("  {}{}{}\n  {}^\n", head, printableText(text), tail,
                     std::string(head.size() + printableText(text.substr(0, before)).size(), ' '));
}

std::string format(const Diagnostic& diagnostic, const SourceManager* sources) {
  std::string out;
  formatOne(out, diagnostic, sources);
  for (const Diagnostic& note : diagnostic.notes)
    formatOne(out, note, sources);
  return out;
}

std::string format(const std::vector<Diagnostic>& diagnostics, const SourceManager* sources) {
  std::string out;
  for (const Diagnostic& d : diagnostics)
    out += format(d, sources);
  return out;
}

} // namespace ttlplan::ir
