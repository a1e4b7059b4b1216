#pragma once
// Test support: a TTL file or text parsed and verified, with gtest failures (and the diagnostics)
// when it does not parse or verify.
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/support/ReadFile.h"

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

/// The path of a test kernel: test kernels live in .ttl files under tests/ (tests/<area>/kernels/),
/// not in C++ strings.
inline std::string testKernelPath(const std::string& path) {
  return std::string(TTLPLAN_SOURCE_DIR) + "/tests/" + path;
}

/// The text of the test kernel tests/`path` (empty, and a test failure, when it cannot be read).
inline std::string testKernelText(const std::string& path) {
  Expected<std::string> text = readTextFile(testKernelPath(path));
  EXPECT_TRUE(text.ok()) << (text ? std::string() : text.error().message);
  return text ? *text : std::string();
}

} // namespace ttlplan::testing
