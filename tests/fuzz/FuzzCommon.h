#pragma once
// Shared by the libFuzzer harnesses in this folder (docs/fuzzing.md): the input cap and the
// parse + import + verify steps every TTL harness starts with (driver::parseVerified's, in memory).
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/ImportTtlang.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

namespace ttlplan::fuzz {

/// Inputs above this are ignored (returned from at once), so that a run with a large -max_len
/// still spends its time on inputs of a useful size.
inline constexpr size_t kMaxInputBytes = 64 * 1024;

inline std::string_view asText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// The module when `text` parses, imports (tt-lang form) and verifies; null otherwise (any
/// diagnostic is a fine answer to bad input).
inline std::unique_ptr<ir::Module> parseVerify(std::string_view text, ir::DiagnosticEngine& diags,
                                               const std::string& file = "fuzz.ttl") {
  std::unique_ptr<ir::Module> module = ir::parseSource(text, file, diags);
  if (!module || diags.hasErrors()) return nullptr;
  if (!ir::importTtlang(*module, diags) || !ir::verify(*module, diags)) return nullptr;
  return module;
}

/// A broken invariant: prints why (and the texts that show it) and aborts, which libFuzzer
/// reports as a crash and saves the input.
[[noreturn]] inline void fail(const std::string& what, const std::string& detail = "") {
  std::fprintf(stderr, "\n==== FUZZ INVARIANT BROKEN: %s\n%s\n====\n", what.c_str(),
               detail.c_str());
  std::abort();
}

} // namespace ttlplan::fuzz
