#pragma once
// Reads TTL text (custom and generic MLIR form, docs/language.md) into a Module.
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Operation.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ttlplan::ir {

/// Parses `source`; on failure returns null and the error is in `diagnostics` with its location.
/// Top-level ops that are not wrapped in a `module` get an implicit one.
std::unique_ptr<Module> parseSource(std::string_view source, const std::string& fileName,
                                    DiagnosticEngine& diagnostics);

/// Reads and parses a file; a missing file is reported as an error without location. With `chunk`,
/// only that `// -----` chunk of the file is parsed (--split-input-file; locations stay those of
/// the whole file).
std::unique_ptr<Module> parseFile(const std::string& path, DiagnosticEngine& diagnostics,
                                  SourceManager* sources = nullptr,
                                  std::optional<size_t> chunk = std::nullopt);

/// parseFile of a file's text already read (`text`, the whole file named `path`).
std::unique_ptr<Module> parseFileText(std::string text, const std::string& path,
                                      DiagnosticEngine& diagnostics,
                                      SourceManager* sources = nullptr,
                                      std::optional<size_t> chunk = std::nullopt);

} // namespace ttlplan::ir
