// fuzz_print_roundtrip: bytes -> parse + import + verify; when the module is valid, print it in
// the custom form, parse and verify the printed text again, and print that: the two printed texts
// must be equal (the printer is a fixed point after one round). The same for the generic MLIR form
// (ir::PrintOptions::generic) and for the custom form without aliases. A bug is: printed text that
// does not parse or verify, printing that changes on the second round (both texts go to stderr
// before the abort), or any crash / sanitizer report / escaping exception / hang.
#include "FuzzCommon.h"
#include "ttlplan/ir/Printer.h"

using namespace ttlplan;

namespace {

void roundTrip(const ir::Module& module, const ir::PrintOptions& options, const char* form) {
  std::string first = ir::print(module, options);
  ir::DiagnosticEngine diags;
  std::unique_ptr<ir::Module> again = fuzz::parseVerify(first, diags, "printed.ttl");
  if (!again)
    fuzz::fail(std::string(form) + " form: the printed module does not parse and verify",
               "--- printed text:\n" + first + "\n--- diagnostics:\n" +
                   ir::format(diags.diagnostics()));
  std::string second = ir::print(*again, options);
  if (second != first)
    fuzz::fail(std::string(form) + " form: printing the reparsed module gives other text",
               "--- first print:\n" + first + "\n--- second print:\n" + second);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInputBytes) return -1;
  ir::DiagnosticEngine diags;
  std::unique_ptr<ir::Module> module = fuzz::parseVerify(fuzz::asText(data, size), diags);
  if (!module) return 0;
  roundTrip(*module, ir::PrintOptions{}, "custom");
  roundTrip(*module, ir::PrintOptions{/*generic=*/false, /*useAliases=*/false},
            "custom (no aliases)");
  roundTrip(*module, ir::PrintOptions{/*generic=*/true, /*useAliases=*/true}, "generic");
  return 0;
}
