#pragma once
// Helpers of the data-movement passes (lower-data-movement, lower-sync): thread functions and
// their kernels, runtime arguments (`ttl.runtime_args` + `ttl.core_values`, docs/lowering.md) and
// the per-core pipe arguments computed from a create_pipe's `ttl.nets` (apply-plan).
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttlplan::lower {

/// The `func.func` thread functions of the module (expand-threads), in order. With `dataMovement`
/// only those whose `ttl.kernel_thread` is "noc0" or "noc1".
std::vector<ir::Operation*> threadFunctions(ir::Module& module, bool dataMovementOnly);

/// The `ttl.kernel` a thread function belongs to (its `ttl.kernel` attribute), or null.
ir::Operation* kernelOfFunction(ir::Module& module, const ir::Operation* func);

/// `ttl.grid_planned = [rows, cols]` of a kernel (apply-plan), or nullopt when it is missing or a
/// side lies outside [1, kMaxGridSide].
std::optional<std::pair<int64_t, int64_t>> plannedGrid(const ir::Operation* kernel);

/// The runtime arguments of one thread function: names in order, and per-core values for the
/// names that are not tensor arguments. Read with `load`, extended with `append`, written back
/// with `store`.
class RuntimeArgs {
public:
  /// Reads `ttl.runtime_args` and `ttl.core_values` of `func` (absent: empty).
  static RuntimeArgs load(const ir::Operation* func);
  /// Index of `name`, or nullopt.
  std::optional<int64_t> indexOf(const std::string& name) const;
  /// Whether `name` is taken.
  bool contains(const std::string& name) const { return indexOf(name).has_value(); }
  /// Appends `name` with one value per core (row-major); returns its index.
  int64_t append(const std::string& name, std::vector<int64_t> perCore);
  /// Says that `name`'s values are logical columns (axis 'x') or rows ('y') that the kernel uses as
  /// NoC coordinates: the host passes each through TT-Metalium's worker_core_from_logical_core
  /// (`ttl.noc_coords`, docs/codegen.md), so no device's translation is baked into the output.
  void markNocCoordinate(const std::string& name, char axis);
  size_t size() const { return names_.size(); }
  /// Writes both attributes back onto `func`.
  void store(ir::Operation* func) const;

private:
  std::vector<std::string> names_;
  std::vector<ir::NamedAttribute> values_; ///< existing entries, kept as they are
  std::vector<ir::NamedAttribute> noc_;    ///< ttl.noc_coords: name -> "x" | "y"
};

/// `"ttkernel.get_arg_val"(%cI) : (index) -> index`, named `name` (dots become underscores).
ir::Value* getArgVal(ir::OpBuilder& builder, int64_t index, const std::string& name);

/// One multicast command of a sender, as the generated code issues it (plain variant).
struct PipeRectArgs {
  /// Logical coordinates of the rectangle's NoC corners (NOC1 already swapped): the host turns
  /// them into NoC coordinates (RuntimeArgs::markNocCoordinate).
  int64_t startX = 0, startY = 0, endX = 0, endY = 0;
  int64_t numDests = 0; ///< cores it writes, the sender excluded (> 0)
  bool operator==(const PipeRectArgs&) const = default;
};

/// What one core does with one pipe: from the pipe's nets, the net it sends (if any) and the net
/// it receives from (if any). A core that is neither gets all zeros.
struct PipeCoreArgs {
  bool sender = false;
  int64_t receivers = 0;    ///< the count its ready semaphore must reach
  int64_t sendReadySem = 0; ///< its net's ready semaphore id (receivers increment it)
  int64_t sendValidSem = 0; ///< its net's valid semaphore id (it multicasts VALID into it)
  std::vector<PipeRectArgs> rects;
  bool receiver = false;
  int64_t senderNocX = 0;   ///< logical x of the sender of the net it receives from (a NoC x on
                            ///< the card, RuntimeArgs::markNocCoordinate)
  int64_t senderNocY = 0;   ///< logical y of that sender
  int64_t recvReadySem = 0; ///< that net's ready semaphore id (on the sender)
  int64_t recvValidSem = 0; ///< that net's valid semaphore id (its own)
};

/// Every core's arguments of one pipe, row-major over the grid.
struct PipeArgTable {
  std::vector<PipeCoreArgs> cores;
  size_t maxRects = 0;        ///< most rectangles of any sender
  size_t minSenderRects = 0;  ///< fewest rectangles of any sender (0 when there is none)
  bool senderInDests = false; ///< some sender is one of its own net's destinations
};

/// Reads the `ttl.nets` attribute of a create_pipe (docs/lowering.md) for a rows x cols grid;
/// sender NoC coordinates come from the device's translated tables. Multicast loopback is folded
/// in: the sender already holds the bytes, so a rectangle with loopback is issued with the plain
/// variant (which skips the sender) and one destination fewer; a rectangle left with no
/// destination is dropped. An error says what is malformed or unsupported (a core that sends two
/// nets of one pipe, or receives from two).
Expected<PipeArgTable> pipeArgTable(const ir::Attribute& nets, int64_t rows, int64_t cols,
                                    const ir::Device& device);

/// The runtime-argument names of pipe `prefix` in the order lower-data-movement appends them.
std::vector<std::string> pipeArgNames(const std::string& prefix, size_t maxRects);
/// The per-core values of those names (same order), from the table.
std::vector<std::vector<int64_t>> pipeArgValues(const PipeArgTable& table, size_t maxRects);
/// 'x' or 'y' when pipe argument `name` (pipeArgNames) is a NoC coordinate, else 0.
char pipeArgNocAxis(const std::string& name);

} // namespace ttlplan::lower
