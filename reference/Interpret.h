#pragma once
// The reference interpreter (docs/reference.md): runs a verified, unlowered TTL kernel at block
// level, exactly as docs/language.md ("Ops") defines it. It knows nothing of the
// plan: no L1, no DST, no CB depths (CBs are unbounded FIFOs of dense blocks), and its own core
// assignment for `ttl.work_loop` (split_work_to_cores). `ttlplan run` compares the emulated
// generated code against it, so a planner or code generator bug cannot hide in both.
#include "ttlplan/ir/DataType.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/reference/HostTensor.h"
#include "ttlplan/support/Expected.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::reference {

struct ReferenceOptions {
  /// The core grid for a kernel with `grid = "auto"`; 0 uses the device's compute grid. Ignored
  /// when the kernel names its grid.
  int gridRows = 0, gridCols = 0;
  /// A value for every knob the kernel uses (`ttl.param`).
  ir::Binding binding;
  /// Wall-clock seconds before the run stops with a report of what each thread was executing
  /// or waiting for (a kernel that loops forever); 0 for none.
  double timeLimitSeconds = 0;
};

/// One argument of a kernel under a binding: what `interpretKernel` reads and returns for it.
struct ArgumentInfo {
  std::string name;                     ///< without '%'
  std::vector<int64_t> shape;           ///< elements
  std::optional<ir::DataType> dataType; ///< of the elements; nullopt for f64 and other ints
};

/// The kernel's arguments in order (for making inputs: randomTensor(shape, *dataType, ...)). An
/// Error for an argument the reference cannot hold: not a 2-D tensor of elements, or a
/// dimension with no value under the binding.
Expected<std::vector<ArgumentInfo>> kernelArguments(ir::Operation* kernel,
                                                    const ir::Binding& binding);

/// Runs `kernel` (a `ttl.kernel` of a module that passed ir::verify) on every core of its grid
/// and returns every argument afterwards, keyed by its name without '%'. `inputs` gives initial
/// contents by the same names; an argument not given starts as zeros; a given one must have the
/// argument's shape (in elements). Never throws: unsupported ops or layouts, errors at run time
/// (a slice outside its tensor, a pipe to a core outside the grid) and deadlocks (every unfinished
/// thread blocked; the message lists each thread and what it waits for) come back as an Error
/// whose lines start with "file:line:col: error: reference: ".
Expected<std::map<std::string, HostTensor>>
interpretKernel(ir::Operation* kernel, const std::map<std::string, HostTensor>& inputs,
                const ir::Device& device, const ReferenceOptions& options);

/// The interpreter's own arithmetic for the elementwise ops (independent of the compiler's op
/// records): the function of one element, or null when the reference has none for `op`.
using UnaryFunction = double (*)(double);
using BinaryFunction = double (*)(double, double);
UnaryFunction unaryFunction(std::string_view op);
BinaryFunction binaryFunction(std::string_view op);
/// True when the interpreter runs `op` (an elementwise op through the functions above).
bool supportsOp(std::string_view op);

/// Which `work` items core `coreIndex` (row-major in the grid) runs: split_work_to_cores
/// (docs/hardware-facts.md): target = min(items, cores), q = items / target, r = items % target;
/// the first r cores take q + 1 consecutive items, the next target - r take q, the rest none.
/// Returns [first, first + count) as {first, count}.
std::pair<int64_t, int64_t> splitWorkToCores(int64_t items, int64_t cores, int64_t coreIndex);

} // namespace ttlplan::reference
