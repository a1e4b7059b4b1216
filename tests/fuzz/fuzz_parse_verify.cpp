// fuzz_parse_verify: arbitrary bytes as a TTL / MLIR module (custom or generic form), parsed from
// memory (ir::parseSource), imported from tt-lang's form and verified, then the diagnostics
// formatted. Any diagnostic is a fine answer. A bug is a crash, a sanitizer report (ASan, UBSan,
// a leak), an abort, an exception escaping the library (whose API never throws), or a hang
// (libFuzzer's -timeout). A parse that returns no module must have reported an error.
#include "FuzzCommon.h"

using namespace ttlplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInputBytes) return -1; // not added to the corpus
  std::string_view text = fuzz::asText(data, size);
  ir::DiagnosticEngine diags;
  std::unique_ptr<ir::Module> module = ir::parseSource(text, "fuzz.ttl", diags);
  if (!module && !diags.hasErrors()) fuzz::fail("parseSource returned no module and no error");
  if (module && !diags.hasErrors() && ir::importTtlang(*module, diags)) ir::verify(*module, diags);
  // Formatting with the source line and caret reads the locations back against the text.
  ir::SourceManager sources;
  sources.add("fuzz.ttl", std::string(text));
  std::string formatted = ir::format(diags.diagnostics(), &sources);
  (void)formatted;
  return 0;
}
