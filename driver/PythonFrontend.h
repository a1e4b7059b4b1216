#pragma once
// tt-lang Python kernels as input (docs/python.md): a `.py` file is translated to TTL text by the
// Python front end (python/ttlplan/frontend, run as `python3 -m ttlplan.frontend`), which parses
// it with Python's ast module and never runs it. Every workflow that reads a file goes through
// readInput, so print, verify, plan, cost, tune, lower, compile and run all take `.py` kernels.
#include "ttlplan/driver/Error.h"
#include "ttlplan/ir/KnobValue.h"
#include "ttlplan/ir/Operation.h"

#include <optional>
#include <string>
#include <vector>

namespace ttlplan::driver {

/// How a Python kernel is read: the flags `--args`, `--knob`, `--buffer-factor` (also in the
/// kernel's sidecar KERNEL.ttlplan.toml, which the command line adds to).
struct PythonInput {
  std::vector<std::string> args;  ///< "a=2048x2048:bf16,b=..." entries (comma lists allowed)
  std::vector<std::string> knobs; ///< "GRANULARITY=1,2,4,8": a constant or default as a knob
  std::string bufferFactor;       ///< "" (the kernel's block_count), "auto" (`?`) or "keep"
  /// The nodes grid="auto" and grid="full" mean, "COLSxROWS" (the device's compute grid);
  /// empty: the front end's default, 8x8.
  std::string deviceGrid;
  /// The interpreter; empty: the one found when ttlplan was configured (TTLPLAN_PYTHON, Debian's
  /// /usr/bin/python3 where it exists), else python3 from PATH.
  std::string python;
};

/// The PythonInput every later read of a `.py` file uses (the command line sets it once; the
/// Python bindings per call). Not for several threads reading files at once.
void setPythonInput(PythonInput input);
const PythonInput& pythonInput();

/// `path` names a Python kernel (ends in ".py").
bool isPythonKernel(const std::string& path);

/// What readInput returns: the text to parse and the name its diagnostics use.
struct InputText {
  std::string text;     ///< TTL
  std::string origin;   ///< the Python file's path, or the TTL file's
  std::string original; ///< the file as written (the Python source for a `.py`)
};

/// The TTL text of `path`: the file itself, or for a `.py` kernel the front end's translation
/// with pythonInput(). A front-end error is an Input error located at the Python line (a Usage
/// error for a bad --args/--knob); no Python traceback reaches the caller.
Result<InputText> readInput(const std::string& path);

/// The text of a kernel file (TTL or Python), or why not: above the input limit is a usage
/// error (exit 2, docs/cli.md: `/dev/zero` is no source file), anything else an io error.
Result<std::string> readSourceFile(const std::string& path);

/// `tune --emit` of a Python kernel: the tuned values as the lines to change by hand, one per
/// knob and per block count of `point`, each at its Python location ("kernel.py:9:1: GRANULARITY
/// = 4", "kernel.py:17:13: a_dfb: block_count=2"), after a comment naming `kernel` and
/// `predictedNs`. The locations are those of the module's ttl.param and ttl.create_cb ops.
std::string tunedValuesReport(const ir::Module& module, const ir::Binding& point,
                              const std::string& kernel, std::optional<double> predictedNs);

} // namespace ttlplan::driver
