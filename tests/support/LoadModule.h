#pragma once
// Test support: a TTL file or text parsed and verified, with gtest failures (and the diagnostics)
// when it does not parse or verify.
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace ttlplan::testing {

/// `module` verified (a failure names the diagnostics); returns it.
inline std::unique_ptr<ir::Module> verified(std::unique_ptr<ir::Module> module,
                                            ir::DiagnosticEngine& diags) {
  EXPECT_TRUE(module) << ir::format(diags.diagnostics());
  if (module) {
    EXPECT_TRUE(ir::verify(*module, diags)) << ir::format(diags.diagnostics());
  }
  return module;
}

/// The file at `path`, parsed and verified.
inline std::unique_ptr<ir::Module> loadVerified(const std::string& path) {
  ir::DiagnosticEngine diags;
  return verified(ir::parseFile(path, diags), diags);
}

/// `text` (named test.ttl in diagnostics), parsed and verified.
inline std::unique_ptr<ir::Module> parseVerified(const std::string& text) {
  ir::DiagnosticEngine diags;
  return verified(ir::parseSource(text, "test.ttl", diags), diags);
}

} // namespace ttlplan::testing
