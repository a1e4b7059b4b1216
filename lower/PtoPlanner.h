#pragma once
// The pto target's planning problem of a TTL kernel (docs/pto.md): which on-chip memory each CB
// lives in, which pipes fill and drain it, and the buffers the planner adds (a matmul operand's
// L0A/L0B copy, a compute chain's temporaries), as planner::pto::Problem. The mapping:
//  - a CB filled by a data-movement thread is filled by MTE2 (TLOAD); one drained by a
//    data-movement thread is drained by MTE3 (TSTORE); the compute thread works on V;
//  - a CB whose view a ttl.matmul reads lives in L1 and is drained by MTE1 into an L0A (lhs) or
//    L0B (rhs) buffer, which M drains; the CB a matmul result is stored into lives in L0C (fp32
//    accumulators), filled by M and drained by FIX;
//  - every other CB, and every temporary, lives in UB.
// What has no PTO meaning is a located error naming the construct and the limit: pipes
// (multicast), semaphores (cross-core signalling), ops without a pto-isa instruction, data types
// pto-isa's tiles do not hold, a block larger than its memory.
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/PtoDevice.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/PlanReport.h"
#include "ttlplan/planner/pto/Plan.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::lower {

struct PtoTemporaries;

/// The problem of `kernel` (a verified ttl.kernel) under `binding` on `device`; `?` block counts
/// may reach maxBlockCount slots. The temporaries it appends (ptoTemporaries) go to
/// `temporaries` too when given, for a caller that needs them again (the cost model).
Expected<planner::pto::Problem> extractPtoProblem(ir::Operation* kernel, const ir::Binding& binding,
                                                  const ir::pto::Device& device, int maxBlockCount,
                                                  PtoTemporaries* temporaries = nullptr);

/// A located error when one slot of a buffer of `problem` is larger than its memory's room
/// (which no slot count can fix); planPtoModule reports it before planning.
std::optional<std::string> ptoOversize(const planner::pto::Problem& problem);

/// The type vector ops compute a block value in: float for bf16 (pto-isa's A2/A3 vector ops take
/// half and float, not bf16: docs/isa/TADD.md, TEXP.md), else the block's own; nullopt for a
/// value that is not a block of tiles.
std::optional<ir::DataType> ptoComputeType(const ir::Value* value, const ir::Binding& binding);

/// How the pto target holds a block value of the compute thread (docs/pto.md, "Reductions and
/// broadcasts").
enum class PtoForm : uint8_t {
  Block,    ///< a whole block of rows x cols elements (a row-major tile)
  PerRow,   ///< one element per row: a row reduction's value (ttl.reduce_* dims [1]) and
            ///< elementwise ops on such values; a (32 * rows) x 1 ColMajor tile (TROWSUM's dst)
  Expanded, ///< a ttl.bcast that the elementwise ops reading it fold in (TROWEXPAND<op> for
            ///< dims [1], TCOLEXPAND<op> for dims [0]): no buffer of its own
};

/// The UB temporaries of a kernel's compute thread, in the compute type (ptoComputeType):
///  - a value a vector op (a compute op but matmul) defines, when an op other than a ttl.store
///    reads it, or a store converts it into its view (a bf16 view of a float result); a value
///    stored into a view of its own type is computed straight into the CB's slot;
///  - a CB view (cb_wait) that a vector op reads and whose type is not the compute type: TCVT
///    copies it into float before its first reader;
///  - the scratch tile of an op that needs one: a row reduction's (pto-isa's A2/A3 TROWSUM and
///    TROWMAX use a tmp shaped like the source), a composite op's `t` (ops::ComputeDef::pto).
/// Each lives over [definition or conversion, last read] in program order; values of one tile
/// type that never live together share a buffer (an interval colouring per tile type), each as
/// large as its largest value. A value an Expanded bcast reads lives until the ops reading the
/// bcast. extractPtoProblem appends `buffers` to the problem in this order; the code generator
/// finds a value's buffer through `bufferOf`, an op's scratch through `scratchOf`.
struct PtoTemporaries {
  std::vector<planner::pto::BufferSpec> buffers;
  std::map<const ir::Value*, size_t> bufferOf;      ///< value -> index into buffers
  std::map<const ir::Operation*, size_t> scratchOf; ///< op -> index into buffers
  std::map<const ir::Value*, PtoForm> forms;        ///< a value absent here is a Block
};
/// The temporaries, or a located error for what the pto target does not lower: a reduction but
/// over rows, a bcast but of a row reduction's value along rows or of row 0 down the columns,
/// elementwise ops mixing per-row values with blocks, a per-row value stored.
Expected<PtoTemporaries> ptoTemporaries(ir::Operation* kernel, const ir::Binding& binding);

/// The instruction that broadcasts along `dims` (a ttl.bcast's): "TROWEXPAND" for [1] (a per-row
/// value along the rows), "TCOLEXPAND" for [0] (row 0 down the columns); with `binary` ("TADD"),
/// the form that folds the broadcast into that op: "TROWEXPANDADD", "TCOLEXPANDADD".
std::string ptoExpandInstruction(const std::vector<int64_t>& dims, std::string_view binary = {});

/// The cores a kernel's work items are shared among on `device` (`run --target pto` runs that
/// many, the cost model prices the busiest): cube cores when the kernel has a matmul (an L0C
/// buffer), vector cores otherwise, at most one per item; 1 without `work` (empty workDims).
int ptoCores(const planner::pto::Problem& problem, const std::vector<int64_t>& workDims,
             const ir::pto::Device& device);

/// The scratch tile a composite op's pto program names (`t`), and its instructions: the op
/// registry's `pto` field is either one instruction (`TADD`: y = TADD(x...)) or a program of
/// `dst=INSTR(args)` statements over x (the operand), y (the result), t (scratch) and float
/// literals, separated by `;` (docs/pto.md, "Composite ops").
struct PtoStatement {
  std::string dst;               ///< "y" or "t"
  std::string instruction;       ///< "TMULS"
  std::vector<std::string> args; ///< "x", "t", "-0.071354816"
};
/// The statements of `pto` (a registry field), or why it is malformed.
Expected<std::vector<PtoStatement>> parsePtoProgram(std::string_view pto);

/// One kernel's problem and plan.
struct PtoKernelPlan {
  planner::pto::Problem problem;
  planner::pto::Plan plan;
};

struct PtoModulePlan {
  std::string file;
  std::string device; ///< "ascend_a2a3"
  ChosenBinding binding;
  std::vector<PtoKernelPlan> kernels; ///< in program order
  double totalMilliseconds = 0;
};

struct PtoPlanOptions {
  planner::pto::PlanOptions planner;
  std::optional<ir::Binding> binding; ///< --bind; otherwise the first legal binding
  int maxBlockCount = 4;              ///< --max-block-count: the deepest `?` count
};

/// Plans every kernel of `module` (verified) for `device`; a kernel that does not fit, or that
/// PTO cannot express, is an error located at it with the planner's reason and cheapest fix. When
/// the planner rejected a kernel, `rejection` (if given) receives its reason as data.
Expected<PtoModulePlan> planPtoModule(ir::Module& module, const ir::pto::Device& device,
                                      const PtoPlanOptions& options,
                                      planner::pto::Rejection* rejection = nullptr);

/// The report as JSON ("schema_version": 1, "target": "pto"; docs/pto.md lists the fields).
nlohmann::json toJson(const PtoModulePlan& plan, Timings timings = Timings::Shown);
/// The terminal view: per kernel each buffer with its memory, pipes, slots, addresses and event
/// ids, each memory's use against its room, each pipe pair's event ids, and the solves.
std::string formatReport(const PtoModulePlan& plan, Timings timings = Timings::Shown);

} // namespace ttlplan::lower
