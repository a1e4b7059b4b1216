#pragma once
// Internal to the cost extraction (Extract.cpp): how the cores of a plan's grid form classes
// (ExtractClasses.cpp), and the kernel's threads compiled once for the walk (ExtractKernelIr.cpp).
#include "ttlplan/ir/Params.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/search/cost/Program.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ttlplan::search::cost {
namespace detail {

// What each core of the grid runs, as far as classes are concerned.
struct GridRoles {
  int rows = 0, cols = 0;
  std::vector<std::string> pipes; // distinct pipe ids, first-seen order
  std::vector<int64_t> work;      // per core (row-major)
  std::vector<int> sends;         // [core * pipes + pipe] -> net index sent on, or -1
  std::vector<int> receives;      // [core * pipes + pipe] -> net index received from, or -1
  std::vector<std::vector<int64_t>> controls; // distinct control values (controlValues)
  std::vector<int> controlOf;                 // per core: index into controls
  std::vector<int> classOf;                   // per core
  int classes = 0;

  int sendsOn(size_t core, size_t pipe) const { return sends[core * pipes.size() + pipe]; }
  int receivesOn(size_t core, size_t pipe) const { return receives[core * pipes.size() + pipe]; }
};

// What the kernel's control flow depends on, per core: for each scf.for bound and scf.if
// condition, its value when it folds on the core, else (it depends on a loop index) the values it
// is computed from through arith, again as far as they fold: an edge core's fewer valid blocks.
// Cores on which these differ run different programs, so they cannot share a class.
struct ControlValues {
  std::vector<const ir::Value*> roots;   // bounds and conditions
  std::vector<const ir::Value*> closure; // roots and everything they are computed from (arith)
};

// Prepared once per kernel: the control values and their compiled program.
struct Control {
  ControlValues values;
  ir::CompiledValues program; // the closure, run per core (the same expression DAG on every core)
  std::unordered_map<const ir::Value*, size_t> index; // closure value -> position
  // The program's instructions computed from ttl.core_x and not ttl.core_y, from ttl.core_y and
  // not ttl.core_x, and from both (ascending): what differs between columns, rows and cores.
  std::vector<int> xOnly, yOnly, mixed;
  std::vector<int> partOf; // per instruction: 0 neither, 1 x only, 2 y only, 3 both
  std::vector<int> slotOf; // per instruction: its position in xOnly, yOnly or mixed
  // The x-only and y-only instructions the mixed ones read: what a core must set before it runs
  // the mixed instructions.
  std::vector<int> mixedReadsX, mixedReadsY;
};

/// The control values and their compiled program, prepared once per kernel.
Control prepareControl(ir::Operation* kernel);

/// Per core, the control values that tell cores apart (GridRoles::controls, each distinct vector
/// once) under `binding`.
void evaluateControl(GridRoles& g, const Control& control, const ir::Binding& binding);

/// The core's index in row-major order.
int coreIndex(const GridRoles& g, planner::multicast::Core c);

/// Work and pipe roles per core of `plan`'s grid (classes not yet assigned).
GridRoles gridRoles(const lower::KernelPlan& plan);

/// Classes by (work, control values, roles), refined by the classes of the senders a core
/// receives from until the partition is stable.
void assignClasses(GridRoles& g, const lower::KernelPlan& plan);

// Representative nets: one per (pipe, sender class).
struct NetGroups {
  std::vector<Net> nets;
  std::vector<int> repOfNet; // plan net index -> representative net
};

/// Representative nets: one per (pipe, sender class).
NetGroups groupNets(const GridRoles& g, const lower::KernelPlan& plan);

// What the walk visits, compiled from the IR once per kernel (KernelIr): each op that becomes a
// step or steers the walk, with the positions it refers to, so that a walk per binding and core
// reads no IR and compares no names.
enum class NodeKind : uint8_t {
  WorkLoop,      // ttl.work_loop
  For,           // scf.for
  If,            // scf.if
  IfSrc,         // ttl.if_src
  IfDst,         // ttl.if_dst
  Reserve,       // ttl.cb_reserve
  Push,          // ttl.cb_push
  Wait,          // ttl.cb_wait
  Pop,           // ttl.cb_pop
  Copy,          // ttl.copy
  WaitTransfers, // ttl.wait, ttl.dma_barrier
  Store,         // ttl.store
};

struct Node {
  NodeKind kind = NodeKind::Store;
  int origin = -1;          // index into KernelIr::origins
  int program = -1;         // For, If: index into KernelIr::programs (-1: malformed, nothing folds)
  int indexSlot = -1;       // For: its induction variable's leaf slot (-1: it has none)
  std::vector<int> onIndex; // For: its program's instructions that depend on the index
  int cb = -1;              // CB ops: the CB's create_cb position; Copy, Store: the CB of the view
  int pipe = -1;  // IfSrc, IfDst, Copy: index into KernelIr::pipes (-1: not a created pipe)
  int chain = -1; // Store: index into KernelIr::chains
  ir::CopyOp::Direction direction = ir::CopyOp::Direction::Invalid; // Copy
  std::vector<Node> body;     // loops, If's then-branch, IfSrc and IfDst
  std::vector<Node> elseBody; // If's else-branch
};

struct ThreadNodes {
  bool compute = false; // ttl.compute_thread (else a data-movement thread)
  std::vector<Node> body;
};

// One op of a store's compute chain as the pricing reads it.
struct ChainOp {
  std::vector<int> cbInputs; // create_cb positions of its operands that are CB views
  bool matmul = false;
  int lhsCb = -1; // matmul: the create_cb position of its left operand's view
};

struct Chain {
  int origin = -1; // the store's
  std::vector<ChainOp> ops;
};

} // namespace detail

// What the walk reads from the kernel's IR that does not depend on the binding or the plan,
// prepared once per kernel: the values it folds, compiled (leaf slots: the core's, then one per
// loop index), and the threads compiled to nodes (the create_cb positions, pipes and chains they
// refer to, and the ops' locations).
struct KernelIr {
  explicit KernelIr(ir::Operation* kernel);

  ir::Operation* kernel;
  detail::Control control;
  // Per scf.for (lower bound, upper bound, step, then the conditions of its body that depend on
  // its index) and per scf.if (the condition): a program of its own, so folding one op's values
  // runs a short program.
  std::vector<ir::CompiledValues> programs;
  size_t leaves = 0; // core leaves + loop indices
  int cbCount = 0;   // create_cb ops
  std::vector<detail::ThreadNodes> threads;
  std::vector<detail::Chain> chains;
  std::vector<std::string> pipes;   // the created pipes' ids
  std::vector<bool> sourceReceives; // per pipe: its source receives its own block (local copy)
  std::shared_ptr<std::vector<std::string>> origins = std::make_shared<std::vector<std::string>>();

private:
  std::vector<detail::Node> compile(ir::Block& block);
  detail::Node compile(ir::Operation& op, detail::NodeKind kind);
  int originOf(const ir::Operation& op) {
    origins->push_back(op.location().str());
    return int(origins->size()) - 1;
  }
  int cbOf(const ir::Value* cb) const {
    auto it = createPosition_.find(cb ? cb->definingOp() : nullptr);
    return it == createPosition_.end() ? -1 : it->second;
  }
  // The CB a view (cb_reserve / cb_wait result) belongs to.
  int cbOfView(const ir::Value* view) const {
    const ir::Operation* def = view ? view->definingOp() : nullptr;
    if (!def || !(def->isa("ttl.cb_reserve") || def->isa("ttl.cb_wait"))) return -1;
    return cbOf(def->operand(0));
  }
  int pipeOf(const ir::Value* pipe) const {
    auto it = pipeIndex_.find(pipe);
    return it == pipeIndex_.end() ? -1 : it->second;
  }

  std::unordered_map<const ir::Operation*, int> createPosition_; // create_cb -> program order
  std::unordered_map<const ir::Value*, int> pipeIndex_;          // pipe value -> index in pipes
  std::unordered_map<const ir::Value*, int> indexSlot_;          // loop index -> its leaf slot
  std::unordered_map<const ir::Operation*, size_t> programOf_;   // op -> index into programs
  lower::ProgramOrder order_{kernel}; // for each store's chain (lower::computeChainOps)
};

} // namespace ttlplan::search::cost
