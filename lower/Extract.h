#pragma once
// Problem extraction (docs/architecture.md, "lower/"): reads a verified kernel under a knob binding
// and fills the planner's plain problem structs. Nothing here decides anything; every function
// reports what it cannot read with the op's location instead of guessing.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/KnobExpr.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/planner/cores/Problem.h"
#include "ttlplan/planner/dst/Problem.h"
#include "ttlplan/planner/multicast/Solve.h"
#include "ttlplan/support/Expected.h"
#include "ttlplan/support/GridLimits.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ttlplan::lower {

/// The knob binding a plan uses, and how it was chosen.
struct ChosenBinding {
  ir::Binding binding;
  std::string
      source; ///< "none" (no knobs), "--bind", or "first binding satisfying every ttl.require"
};

/// `--bind NAME=V,...` parsed (V an integer or a symbol like bf16); an error names the bad entry.
Expected<ir::Binding> parseBindingList(const std::string& text);

/// Why a binding is not legal: the first `ttl.require` that does not hold, or the first knob
/// expression that does not evaluate (division by zero, inexact '/').
struct BindingFailure {
  /// "domain" (a knob's value is not in its domain, or a dependent domain is empty or does not
  /// evaluate), "require" (a ttl.require) or "knob-expression" (an expression that does not
  /// evaluate): the tuner's rejection reason.
  std::string reason;
  std::string location;           ///< file:line:col of the op
  std::string message;            ///< "LOC: error: ttl.require does not hold"
  std::vector<std::string> knobs; ///< the knobs the failing condition or expression reads
};

/// The legality test of bindings of one module: collects its requires and knob expressions once,
/// then checks bindings (from any number of threads: it only reads the module).
class BindingChecker {
public:
  explicit BindingChecker(const ir::Module& module);
  /// nullopt when every knob whose domain reads other knobs has a value in it (or, unbound, a
  /// domain that is not empty), every ttl.require folds to true and every knob expression
  /// evaluates. The other knobs' domains are not read: a Space takes its values from them.
  std::optional<BindingFailure> check(const ir::Binding& binding) const;
  /// Stops checking that the values bound to `knobs` are in their domains: a search::Space draws
  /// them from their domains (evaluated under the knobs they read), so its points hold them by
  /// construction. A knob left unbound (its domain empty under the point) is still reported.
  void trustDomainsOf(const std::set<std::string>& knobs);

private:
  std::optional<BindingFailure> checkDomains(const ir::Binding& binding) const;

  std::vector<ir::Param> dependent_; ///< the knobs whose domains read other knobs
  std::vector<bool> trusted_;        ///< per dependent_ knob: a bound value is not checked
  std::vector<ir::Operation*> requires_;
  ir::CompiledValues conditions_; ///< root i: the condition of requires_[i]
  std::vector<std::pair<ir::KnobExpr, ir::Operation*>> exprs_;
};

/// Every knob of `requested` exists among `params` and its value is in the knob's domain (where
/// the domain reads only knobs of `requested`; the others are checked per binding); the error
/// names the knob, the value and the domain (as `--bind` reports it).
Status checkRequested(const std::vector<ir::Param>& params, const ir::Binding& requested);

/// The knobs of `params` that `fixed` leaves unbound, each counted once.
size_t countUnbound(const std::vector<ir::Param>& params, const ir::Binding& fixed);

/// With no knobs: the empty binding. Otherwise the knobs in `requested` (a partial binding,
/// checked: known knobs, values in their domains) are fixed and the others take the first
/// binding (knobs in declaration order, first knob slowest) for which every `ttl.require` folds
/// to true and every knob expression evaluates (no division by zero, no inexact '/'). At most
/// kMaxBindingsChecked points are tried, and no longer than `limits.timeLimitSeconds` when set (a
/// template of 10^10 points whose first legal one comes late would take hours): past that the
/// error says to bind more knobs or tune.
constexpr int64_t kMaxBindingsChecked = 1'000'000;
Expected<ChosenBinding> chooseBinding(const ir::Module& module,
                                      const std::optional<ir::Binding>& requested,
                                      const planner::SolveLimits& limits = {});

/// The kernel's math settings under the binding (`math_fidelity`, `fp32_dest_acc`; the op
/// registry's defaults when absent).
struct MathOptions {
  std::string mathFidelity = "HiFi4"; ///< LoFi, HiFi2, HiFi3 or HiFi4
  bool fp32DestAcc = false;           ///< fp32 accumulation in DST (halves its capacity)
};
Expected<MathOptions> extractMathOptions(ir::Operation* kernel, const ir::Binding& binding);

/// One `ttl.create_cb` under the binding.
struct CbInfo {
  ir::Operation* op = nullptr;
  std::string name;                ///< "%cba"
  std::string location;            ///< "file:line:col"
  std::vector<int64_t> blockShape; ///< tiles per block dimension
  int64_t blockTiles = 0;          ///< product of blockShape
  std::string dataType;            ///< "bf16"
  int64_t tileBytes = 0;
  std::optional<int64_t> blockCount; ///< nullopt for `?` (the planner chooses)
  int64_t blockBytes() const { return blockTiles * tileBytes; }
};

/// The largest CB extraction accepts: 1 TiB, far above any L1 (at most 4 GiB by the device
/// description), so that the planner's sums of CB sizes stay exact (planner/l1/Problem.h allows
/// 2^52 B in all) and a runaway block count is a located error, not an overflow.
constexpr int64_t kMaxCbBytes = int64_t{1} << 40;

/// The CBs of `kernel` in program order. A CB whose block, or whose blocks together, exceed
/// kMaxCbBytes is an error naming it.
Expected<std::vector<CbInfo>> extractCbs(ir::Operation* kernel, const ir::Binding& binding,
                                         const ir::Device& device);
/// The bytes of one tile of a data type (the tile type gives its shape) on a target; an error
/// says why the target cannot hold such tiles.
using TileBytes = std::function<Expected<int64_t>(ir::DataType, const ir::Type& tile)>;
/// The same with the tile sizes of another target (the pto target's, lower/PtoPlanner.h).
Expected<std::vector<CbInfo>> extractCbs(ir::Operation* kernel, const ir::Binding& binding,
                                         const TileBytes& tileBytes);

/// One fused chain of the compute thread: the ops feeding one `ttl.store`.
struct ChainInfo {
  std::string id;       ///< "%s -> %o" (stored value -> view)
  std::string location; ///< of the ttl.store
  std::string dataType; ///< the stored view's tile type
  planner::dst::Problem problem;
  std::vector<ir::Operation*> ops; ///< ops[i] is problem.chain.ops[i]
};

/// A compute op whose result is a tile value of a chain: an op whose registry record has a
/// compute kind other than store (ir::OpDef::compute) and whose result is a block of tiles. CB
/// protocol ops and views are chain inputs.
bool isComputeChainOp(const ir::Operation* op);

/// Program order of the ops nested in a scope: their positions in one walk of it (an op outside
/// the scope comes before every op in it).
class ProgramOrder {
public:
  explicit ProgramOrder(ir::Operation* scope) : scope_(scope) {}
  /// The op's position in a walk of the scope (0 for an op outside it). The positions are
  /// numbered on the first call (a chain of one op never sorts, so it never pays for them);
  /// an object is therefore not to be shared between threads.
  size_t operator()(const ir::Operation* op) const;

private:
  ir::Operation* scope_;
  mutable std::unordered_map<const ir::Operation*, size_t> position_;
};

/// The compute chain feeding `values` (what one or more ttl.store store): every op reachable
/// backwards from them through ops isComputeChainOp accepts, in program order. The one walk of a
/// chain: DST extraction (extractChains), infer-dst and lower-compute (findComputeChains) and the
/// cost model's programs (search/cost) all take their chains from it, so they agree on a chain's
/// ops and on their order.
std::vector<ir::Operation*> computeChainOps(const std::vector<ir::Value*>& values,
                                            const ProgramOrder& order);

/// Every chain of the compute thread(s) of `kernel`, in program order.
Expected<std::vector<ChainInfo>> extractChains(ir::Operation* kernel, const ir::Binding& binding,
                                               const ir::Device& device);

/// The kernel's `work` dims under the binding; empty when it has none (it divides work itself). An
/// error names a dim without a positive value, or a product past 64 bits.
Expected<std::vector<int64_t>> extractWorkDims(ir::Operation* kernel, const ir::Binding& binding);

/// The kernel's work and grid as a core-assignment problem; nullopt problem when the kernel has
/// no `work` attribute (it divides work itself). `grid` is always set (auto: the device grid).
struct CoresInfo {
  std::optional<planner::cores::Problem> problem;
  planner::cores::Grid grid;
  bool autoGrid = false;
  std::vector<int64_t> workDims;
};
Expected<CoresInfo> extractCores(ir::Operation* kernel, const ir::Binding& binding,
                                 const ir::Device& device);

/// The leaf slots of core-dependent values for ir::CompiledValues: ttl.core_x 0, ttl.core_y 1,
/// ttl.grid_size dim 0 (rows) 2 and dim 1 (columns) 3; coreLeafValues() gives their values.
std::optional<int> coreLeafSlot(const ir::Operation& op);
std::vector<std::optional<int64_t>> coreLeafValues(int x, int y, int rows, int cols);

/// ttl.core_x/core_y/grid_size on core (x, y) of a rows x cols grid, for ir::evaluate (the
/// other ops an index expression may use: constants, arith, ttl.param_value, fold by themselves).
ir::LeafEvaluator coreLeaves(int x, int y, int rows, int cols);

/// The pipes of `kernel` evaluated on every core of the grid, grouped into nets, with the device's
/// NoC mapping. A net's `source` is its create_pipe's position in program order and its
/// destination key (`dstAddress`) the position of the create_cb it receives into.
Expected<planner::multicast::Problem> extractMulticast(ir::Operation* kernel,
                                                       const ir::Binding& binding,
                                                       const ir::Device& device,
                                                       planner::cores::Grid grid);

/// "%name" of a value, or "%<op name>" when it has none.
std::string valueName(const ir::Value* value);

/// One name per pipe of `kernel`, for each of its create_pipe ops: each thread creates its own
/// value of a pipe (tt-lang sends in one data-movement thread and receives in the other), so
/// create_pipes at one known location with the same literal coordinates are one pipe, named
/// after the first (valueName); any other is a pipe of its own.
std::map<const ir::Operation*, std::string> pipeIds(ir::Operation* kernel);

/// The text two thread-local creations of one pipe share (location and literal coordinates), or
/// empty when the op has no known location or a computed coordinate.
std::string pipeIdentity(const ir::Operation& createPipe);

} // namespace ttlplan::lower
