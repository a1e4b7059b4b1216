#pragma once
// One lowered thread function (a `func.func` with `ttl.kernel_thread`, after the full pipeline of
// docs/lowering.md) as a TT-Metalium kernel source file: `void kernel_main()` with the CB
// compile-time args, then the body translated op by op. Codegen decides nothing (DESIGN.md): an op
// without a C++ translation is a bug in a pass and is reported at its location.
#include "ir/Diagnostics.h"
#include "ir/Operation.h"

#include <optional>
#include <string>
#include <string_view>

namespace ttlplan::codegen {

/// The three kernels of a Tensix core, named as the generated files are.
enum class ThreadKind { Reader, Compute, Writer };

/// From `ttl.kernel_thread`: "noc0" -> Reader, "compute" -> Compute, "noc1" -> Writer; nullopt
/// when the attribute is absent or has another value.
std::optional<ThreadKind> threadKindOf(const ir::Operation& func);
/// "reader", "compute", "writer": the file stem of the generated kernel.
std::string_view fileStem(ThreadKind kind);
/// "noc0", "compute", "noc1": the `ttl.kernel_thread` value.
std::string_view threadAttrValue(ThreadKind kind);

struct EmitOptions {
  /// Source text for the `// FILE:LINE:COL: text` comments; without it they carry no text.
  const ir::SourceManager* sources = nullptr;
  /// The TTL file named in the header comment (Module::fileName).
  std::string inputFile;
};

/// The C++ source of one thread function. Errors (an op that has no C++ translation, a value of
/// a type C++ cannot hold, a missing attribute) go to `diagnostics` at the op's location, and the
/// result is nullopt.
std::optional<std::string> emitKernel(ir::Operation& func, const EmitOptions& options,
                                      ir::DiagnosticEngine& diagnostics);

} // namespace ttlplan::codegen
