#pragma once
// Diagnostics with locations: "file:line:col: error: what" plus notes pointing at related ops.
#include "ttlplan/ir/Location.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir {

enum class Severity { Error, Warning, Note, Remark };
std::string_view toString(Severity severity);

struct Diagnostic {
  Severity severity = Severity::Error;
  Location location;
  std::string message;
  std::vector<Diagnostic> notes; ///< attached notes, printed after the main line
};

/// Collects diagnostics; the library reports problems here instead of throwing.
class DiagnosticEngine {
public:
  /// A handle to the diagnostic just emitted, for attaching notes.
  class Builder {
  public:
    explicit Builder(Diagnostic& diagnostic) : diagnostic_(diagnostic) {}
    Builder& note(Location location, std::string message);

  private:
    Diagnostic& diagnostic_;
  };

  Builder emit(Severity severity, Location location, std::string message);
  Builder error(Location location, std::string message) {
    return emit(Severity::Error, std::move(location), std::move(message));
  }
  Builder warning(Location location, std::string message) {
    return emit(Severity::Warning, std::move(location), std::move(message));
  }

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  size_t errorCount() const;
  bool hasErrors() const { return errorCount() != 0; }
  void clear() { diagnostics_.clear(); }

private:
  // A deque would keep Builder references stable too; notes are attached before the next emit.
  std::vector<Diagnostic> diagnostics_;
};

/// Source text by file name, so that diagnostics can show the offending line with a caret.
class SourceManager {
public:
  void add(std::string file, std::string text);
  /// The 1-based line of `file`, without its newline; empty when unknown.
  std::string_view line(const std::string& file, uint32_t line) const;

private:
  std::vector<std::pair<std::string, std::string>> files_;
};

/// "file:line:col: error: message" followed by the notes, one line each. With `sources`, each
/// line is followed by the source line and a caret under the column.
std::string format(const Diagnostic& diagnostic, const SourceManager* sources = nullptr);
std::string format(const std::vector<Diagnostic>& diagnostics,
                   const SourceManager* sources = nullptr);

} // namespace ttlplan::ir
