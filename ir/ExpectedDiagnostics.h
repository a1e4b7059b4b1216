#pragma once
// MLIR-style `--verify-diagnostics` and `--split-input-file`: a test file states the diagnostics
// it must produce in comments (`// expected-error@+1 {{substring}}`), and the run passes when the
// produced and the expected diagnostics match one to one.
#include "ttlplan/ir/Diagnostics.h"

#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir {

/// Splits `text` at lines starting with `// -----`. Each chunk is padded with empty lines so that
/// line numbers stay those of the whole file.
std::vector<std::string> splitInputFile(std::string_view text);

struct ExpectedDiagnostic {
  Severity severity;       ///< error, warning, note or remark
  uint32_t line;           ///< the line the diagnostic must be reported on
  std::string substring;   ///< text the message must contain
  uint32_t annotationLine; ///< where the annotation itself is written
  bool matched = false;    ///< set by checkExpectedDiagnostics
  bool malformed = false;  ///< `expected-error` with a bad offset or no {{text}}: a test bug
};

/// Reads every `expected-<severity>[@+N|@-N|@above|@below] {{text}}` annotation in `text`;
/// a malformed one is returned with `malformed` set so that the check fails on it.
std::vector<ExpectedDiagnostic> parseExpectedDiagnostics(std::string_view text);

/// Matches `actual` (notes included) against `expected`. Returns true when every diagnostic was
/// expected and every expectation was met; otherwise `report` lists each mismatch with its line.
bool checkExpectedDiagnostics(const std::string& file, const std::vector<Diagnostic>& actual,
                              std::vector<ExpectedDiagnostic>& expected, std::string& report);

} // namespace ttlplan::ir
