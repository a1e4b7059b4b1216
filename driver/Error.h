#pragma once
// The driver's errors: what went wrong as data (the kind, the located diagnostics with their
// notes, the planner's rejection) for library callers, and the exact text `ttlplan` prints for it.
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/support/Expected.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ttlplan::driver {

/// What kind of failure; decides the exit status (`ttlplan`: 2 for Usage, 1 for the others).
enum class ErrorKind {
  Usage,      ///< a bad request: unknown device or pass, malformed --bind, --grid, --solver
  Input,      ///< the input is invalid: diagnostics from parsing, verifying or lowering, a bad file
  Infeasible, ///< the input is valid but no plan fits the device: `rejection` says why
  Io,         ///< a file or folder could not be read, written or created
  Build,      ///< the generated C++ did not build against the emulator, or did not start
};

/// "usage", "input", "infeasible", "io", "build".
std::string_view errorKindName(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::Input;
  /// The failure in words when it has no source location ("--grid '9' is not ROWSxCOLUMNS");
  /// empty when `diagnostics` say it.
  std::string message;
  /// Located errors (and warnings) with their notes, in order.
  std::vector<ir::Diagnostic> diagnostics;
  /// The source text, so that text() can show the offending lines; may be null.
  std::shared_ptr<const ir::SourceManager> sources;
  /// Infeasible (planFile): the kernel that did not fit and the planner's reason (resource,
  /// needed and available, the CBs and knobs involved), with what was planned before it.
  std::optional<lower::PlanFailure> infeasible;

  /// What `ttlplan` prints: the diagnostics as "file:line:col: error: ..." with source lines and
  /// notes, then "ttlplan: error: MESSAGE" when there is a message.
  std::string text() const;
  /// 2 for ErrorKind::Usage, else 1.
  int exitCode() const { return kind == ErrorKind::Usage ? 2 : 1; }

  static Error make(ErrorKind kind, std::string message) {
    Error e;
    e.kind = kind;
    e.message = std::move(message);
    return e;
  }
  static Error usage(std::string message) { return make(ErrorKind::Usage, std::move(message)); }
  static Error input(std::string message) { return make(ErrorKind::Input, std::move(message)); }
  static Error io(std::string message) { return make(ErrorKind::Io, std::move(message)); }
  /// Input errors that `diagnostics` hold (parse, verify, pipeline).
  static Error located(const ir::DiagnosticEngine& diagnostics,
                       std::shared_ptr<const ir::SourceManager> sources);
};

/// The one line `ttlplan` prints for an error message: "ttlplan: error: MESSAGE", or MESSAGE as it
/// is when it already starts "FILE:LINE:COL: error: " (a located message from lowering or the
/// planner), so that no line carries two prefixes. Ends in a newline.
std::string errorLine(std::string_view message);

/// A value or a driver::Error.
template <typename T> using Result = Expected<T, Error>;

} // namespace ttlplan::driver
