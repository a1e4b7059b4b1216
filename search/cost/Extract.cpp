#include "ttlplan/search/cost/Extract.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/search/cost/Price.h"
#include "ttlplan/support/Checked.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace ttlplan::search::cost {

namespace {

using planner::multicast::Core;

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

ControlValues controlValues(ir::Operation* kernel) {
  ControlValues c;
  kernel->walk([&](ir::Operation* op) {
    if (op->isa("scf.for"))
      for (size_t i = 0; i < 3 && i < op->numOperands(); ++i)
        c.roots.push_back(op->operand(i));
    if (op->isa("scf.if")) c.roots.push_back(op->operand(0));
  });
  std::vector<const ir::Value*> work = c.roots;
  std::set<const ir::Value*> seen;
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    if (!v || !seen.insert(v).second) continue;
    c.closure.push_back(v);
    const ir::Operation* def = v->definingOp();
    if (def && def->dialect() == "arith")
      for (const ir::Value* operand : def->operands())
        work.push_back(operand);
  }
  // Only what depends on the core can tell cores apart: keep the values computed from ttl.core_x,
  // ttl.core_y or ttl.grid_size (and, for the frontier, loop indices).
  std::map<const ir::Value*, bool> memo;
  std::function<bool(const ir::Value*)> onCore = [&](const ir::Value* v) {
    if (auto it = memo.find(v); it != memo.end()) return it->second;
    const ir::Operation* def = v->definingOp();
    bool result = false;
    if (!def)
      result = true; // a loop index: decided per iteration
    else if (def->isa("ttl.core_x") || def->isa("ttl.core_y") || def->isa("ttl.grid_size"))
      result = true;
    else if (def->dialect() == "arith")
      for (const ir::Value* operand : def->operands())
        result = onCore(operand) || result;
    return memo[v] = result;
  };
  std::erase_if(c.roots, [&](const ir::Value* v) { return !onCore(v); });
  std::erase_if(c.closure, [&](const ir::Value* v) { return !onCore(v); });
  return c;
}

/// The closure positions of the values nearest the roots that fold (depth first from each root,
/// each value once): what the control flow reads on a core. `index` maps a value to its position.
void controlFrontier(const ir::Value* v, const std::unordered_map<const ir::Value*, size_t>& index,
                     const std::vector<bool>& folds, std::set<const ir::Value*>& seen,
                     std::vector<size_t>& out) {
  if (!v || !seen.insert(v).second) return;
  if (auto it = index.find(v); it != index.end() && folds[it->second]) {
    out.push_back(it->second);
    return;
  }
  const ir::Operation* def = v->definingOp();
  if (def && def->dialect() == "arith")
    for (const ir::Value* operand : def->operands())
      controlFrontier(operand, index, folds, seen, out);
}

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
};

// Leaf slots of ttl.core_x and ttl.core_y (lower::coreLeafSlot).
constexpr int kSlotX = 0, kSlotY = 1;

Control prepareControl(ir::Operation* kernel) {
  Control c;
  c.values = controlValues(kernel);
  c.program = ir::CompiledValues(c.values.closure, lower::coreLeafSlot);
  for (size_t i = 0; i < c.values.closure.size(); ++i)
    c.index.emplace(c.values.closure[i], i);
  std::vector<uint64_t> masks = c.program.leafMasks();
  for (size_t i = 0; i < masks.size(); ++i) {
    int part = int((masks[i] >> kSlotX) & 1) | int((masks[i] >> kSlotY) & 1) << 1;
    std::vector<int>* list[] = {nullptr, &c.xOnly, &c.yOnly, &c.mixed};
    c.partOf.push_back(part);
    c.slotOf.push_back(list[part] ? int(list[part]->size()) : -1);
    if (list[part]) list[part]->push_back(int(i));
  }
  return c;
}

using Values = std::vector<std::optional<int64_t>>;

// The index of `row` in `table`, added when new.
template <typename Row> int idOf(const Row& row, std::vector<Row>& table) {
  auto it = std::find(table.begin(), table.end(), row);
  if (it != table.end()) return int(it - table.begin());
  table.push_back(row);
  return int(table.size()) - 1;
}

// The values of `which` out of `values` (into `out`), and the other way.
void gather(const std::vector<int>& which, const Values& values, Values& out) {
  out.resize(which.size());
  for (size_t k = 0; k < which.size(); ++k)
    out[k] = values[size_t(which[k])];
}
void scatter(const std::vector<int>& which, const Values& part, Values& values) {
  for (size_t k = 0; k < which.size(); ++k)
    values[size_t(which[k])] = part[k];
}

// The index in `patterns` of which of `values` fold, added when new.
int patternOf(const Values& values, std::vector<std::vector<bool>>& patterns) {
  auto same = [&](const std::vector<bool>& p) {
    if (p.size() != values.size()) return false;
    for (size_t k = 0; k < values.size(); ++k)
      if (p[k] != values[k].has_value()) return false;
    return true;
  };
  auto it = std::find_if(patterns.begin(), patterns.end(), same);
  if (it != patterns.end()) return int(it - patterns.begin());
  std::vector<bool>& p = patterns.emplace_back(values.size());
  for (size_t k = 0; k < values.size(); ++k)
    p[k] = values[k].has_value();
  return int(patterns.size()) - 1;
}

// The control values of every core (GridRoles::controls, each distinct vector once). The closure
// is one program over the core's leaves, so what is computed from ttl.core_x alone is evaluated
// once per column, what is computed from ttl.core_y alone once per row, and only what mixes both
// once per core. A core's control values are the closure's values at the frontier of its fold
// pattern (controlFrontier); cores with the same pattern, the same column values and row values
// at the frontier and the same mixed values there share them, so each combination is assembled
// once.
void evaluateControl(GridRoles& g, const Control& control, const ir::Binding& binding) {
  const ir::CompiledValues& program = control.program;
  Values knobs = program.knobValues(binding);
  Values leaves = lower::coreLeafValues(0, 0, g.rows, g.cols), values;
  program.runAll(knobs, leaves, values); // core (0, 0): the values no core changes
  std::vector<Values> columns(size_t(g.cols)), rows(size_t(g.rows));
  std::vector<std::vector<bool>> patterns; // distinct fold flags of a column, a row or a mix
  std::vector<int> columnPattern(columns.size()), rowPattern(rows.size());
  for (int x = 0; x < g.cols; ++x) {
    leaves[kSlotX] = x;
    program.runSome(control.xOnly, knobs, leaves, values);
    gather(control.xOnly, values, columns[size_t(x)]);
    columnPattern[size_t(x)] = patternOf(columns[size_t(x)], patterns);
  }
  for (int y = 0; y < g.rows; ++y) {
    leaves[kSlotY] = y;
    program.runSome(control.yOnly, knobs, leaves, values);
    gather(control.yOnly, values, rows[size_t(y)]);
    rowPattern[size_t(y)] = patternOf(rows[size_t(y)], patterns);
  }
  // Per distinct fold pattern: the frontier, as instructions.
  struct Frontier {
    std::vector<int> instructions;
    std::vector<int> columnKey, rowKey; // per column (row): its values at the frontier, as an id
  };
  std::map<std::array<int, 3>, Frontier> frontiers;
  std::map<std::vector<int64_t>, int> distinct; // a core's key -> index into g.controls
  std::vector<int64_t> key;
  Values mix;
  g.controls.clear();
  g.controlOf.assign(g.work.size(), 0);
  for (size_t c = 0; c < g.work.size(); ++c) {
    int x = int(c) % g.cols, y = int(c) / g.cols;
    int mixPattern = 0;
    if (!control.mixed.empty()) {
      scatter(control.xOnly, columns[size_t(x)], values);
      scatter(control.yOnly, rows[size_t(y)], values);
      leaves[kSlotX] = x;
      leaves[kSlotY] = y;
      program.runSome(control.mixed, knobs, leaves, values);
      gather(control.mixed, values, mix);
      mixPattern = patternOf(mix, patterns);
    }
    auto [it, fresh] =
        frontiers.try_emplace({columnPattern[size_t(x)], rowPattern[size_t(y)], mixPattern});
    Frontier& frontier = it->second;
    if (fresh) { // this core's values in full, to find the frontier of its pattern
      scatter(control.xOnly, columns[size_t(x)], values);
      scatter(control.yOnly, rows[size_t(y)], values);
      if (!control.mixed.empty()) scatter(control.mixed, mix, values);
      std::vector<bool> folds(program.numRoots());
      for (size_t i = 0; i < folds.size(); ++i)
        folds[i] = values[size_t(program.rootInstruction(i))].has_value();
      std::vector<size_t> positions;
      std::set<const ir::Value*> seen;
      for (const ir::Value* root : control.values.roots)
        controlFrontier(root, control.index, folds, seen, positions);
      for (size_t i : positions)
        frontier.instructions.push_back(program.rootInstruction(i));
      auto keysOf = [&](int part, const std::vector<Values>& table, std::vector<int>& keys) {
        std::vector<Values> seenRows;
        for (const Values& row : table) {
          Values atFrontier;
          for (int i : frontier.instructions)
            if (control.partOf[size_t(i)] == part)
              atFrontier.push_back(row[size_t(control.slotOf[size_t(i)])]);
          keys.push_back(idOf(atFrontier, seenRows));
        }
      };
      keysOf(1, columns, frontier.columnKey);
      keysOf(2, rows, frontier.rowKey);
    }
    key.assign({it->first[0], it->first[1], it->first[2], frontier.columnKey[size_t(x)],
                frontier.rowKey[size_t(y)]});
    if (!control.mixed.empty())
      for (int i : frontier.instructions)
        if (control.partOf[size_t(i)] == 3) key.push_back(*mix[size_t(control.slotOf[size_t(i)])]);
    auto known = distinct.find(key);
    if (known == distinct.end()) {
      std::vector<int64_t>& mine = g.controls.emplace_back();
      for (int i : frontier.instructions) {
        int part = control.partOf[size_t(i)];
        size_t slot = size_t(control.slotOf[size_t(i)]);
        const std::optional<int64_t>& v = part == 0   ? values[size_t(i)]
                                          : part == 1 ? columns[size_t(x)][slot]
                                          : part == 2 ? rows[size_t(y)][slot]
                                                      : mix[slot];
        mine.push_back(*v);
      }
      known = distinct.emplace(key, int(g.controls.size()) - 1).first;
    }
    g.controlOf[c] = known->second;
  }
}

int coreIndex(const GridRoles& g, Core c) {
  return c.y * g.cols + c.x;
}

GridRoles gridRoles(const lower::KernelPlan& plan) {
  GridRoles g;
  g.rows = plan.grid.rows;
  g.cols = plan.grid.cols;
  size_t cores = size_t(g.rows * g.cols);
  g.work.assign(cores, 0);
  if (plan.coresSolution)
    for (size_t i = 0; i < cores && i < plan.coresSolution->ranges.size(); ++i)
      g.work[i] = plan.coresSolution->ranges[i].count;
  const auto& nets = plan.multicastProblem.nets;
  for (const auto& net : nets)
    if (std::find(g.pipes.begin(), g.pipes.end(), net.id) == g.pipes.end())
      g.pipes.push_back(net.id);
  g.sends.assign(cores * g.pipes.size(), -1);
  g.receives.assign(cores * g.pipes.size(), -1);
  for (size_t n = 0; n < nets.size(); ++n) {
    size_t p = size_t(std::find(g.pipes.begin(), g.pipes.end(), nets[n].id) - g.pipes.begin());
    g.sends[size_t(coreIndex(g, nets[n].sender)) * g.pipes.size() + p] = int(n);
    for (Core d : nets[n].dests)
      if (!(d == nets[n].sender)) g.receives[size_t(coreIndex(g, d)) * g.pipes.size() + p] = int(n);
  }
  return g;
}

// Classes by (work, roles), refined by the classes of the senders a core receives from, until
// the partition is stable.
void assignClasses(GridRoles& g, const lower::KernelPlan& plan) {
  size_t cores = g.work.size();
  g.classOf.assign(cores, 0);
  // Per core and pipe, the core it receives from (-1: none).
  std::vector<int> senderOf(g.receives.size(), -1);
  for (size_t i = 0; i < g.receives.size(); ++i)
    if (int from = g.receives[i]; from >= 0)
      senderOf[i] = coreIndex(g, plan.multicastProblem.nets[size_t(from)].sender);
  // One signature per core, all of one length; a class is the first core with its signature
  // (compared by hash first).
  const size_t length = 3 + 2 * g.pipes.size();
  std::vector<int64_t> sigs(cores * length);
  std::vector<uint64_t> hashes(cores);
  std::vector<size_t> firsts; // per class: its first core
  std::vector<int> next(cores);
  for (int round = 0; round < 8; ++round) {
    firsts.clear();
    for (size_t c = 0; c < cores; ++c) {
      int64_t* sig = &sigs[c * length];
      // Equal control vectors share their index in g.controls.
      sig[0] = round == 0 ? 0 : g.classOf[c];
      sig[1] = g.work[c];
      sig[2] = g.controlOf[c];
      for (size_t p = 0; p < g.pipes.size(); ++p) {
        int from = senderOf[c * g.pipes.size() + p];
        sig[3 + 2 * p] = g.sendsOn(c, p) >= 0;
        sig[4 + 2 * p] = from < 0 ? -1 : round == 0 ? 0 : g.classOf[size_t(from)];
      }
      uint64_t h = 1469598103934665603ull; // FNV-1a over the values
      for (size_t k = 0; k < length; ++k)
        h = (h ^ uint64_t(sig[k])) * 1099511628211ull;
      hashes[c] = h;
      int id = -1;
      for (size_t k = 0; k < firsts.size() && id < 0; ++k)
        if (hashes[firsts[k]] == h && std::equal(sig, sig + length, &sigs[firsts[k] * length]))
          id = int(k);
      if (id < 0) {
        id = int(firsts.size());
        firsts.push_back(c);
      }
      next[c] = id;
    }
    bool stable = int(firsts.size()) == g.classes;
    g.classOf = next;
    g.classes = int(firsts.size());
    if (stable && round > 0) break;
  }
}

// Representative nets: one per (pipe, sender class).
struct NetGroups {
  std::vector<Net> nets;
  std::vector<int> repOfNet; // plan net index -> representative net
};

NetGroups groupNets(const GridRoles& g, const lower::KernelPlan& plan) {
  NetGroups out;
  std::map<std::pair<std::string, int>, int> ids;
  const auto& nets = plan.multicastProblem.nets;
  out.repOfNet.assign(nets.size(), -1);
  for (size_t n = 0; n < nets.size(); ++n) {
    int sender = g.classOf[size_t(coreIndex(g, nets[n].sender))];
    auto [it, fresh] = ids.emplace(std::make_pair(nets[n].id, sender), int(out.nets.size()));
    if (fresh) {
      Net net;
      net.name =
          fmt::format("{} from core ({},{})", nets[n].id, nets[n].sender.x, nets[n].sender.y);
      net.senderClass = sender;
      net.nets = 0;
      for (Core d : nets[n].dests)
        net.destinations += d == nets[n].sender ? 0 : 1;
      out.nets.push_back(net);
    }
    Net& rep = out.nets[size_t(it->second)];
    ++rep.nets;
    for (Core d : nets[n].dests) {
      if (d == nets[n].sender) continue;
      int cls = g.classOf[size_t(coreIndex(g, d))];
      if (std::find(rep.receiverClasses.begin(), rep.receiverClasses.end(), cls) ==
          rep.receiverClasses.end())
        rep.receiverClasses.push_back(cls);
    }
    out.repOfNet[n] = it->second;
  }
  return out;
}

// Loops of at most this many iterations are split where a branch of their body changes with the
// induction variable; longer ones are walked at their first iteration (docs/cost-model.md).
constexpr int64_t kMaxSplitIterations = 64;

// Whether `v` is computed from `iv` through arith.
bool dependsOn(const ir::Value* v, const ir::Value* iv, int depth = 0) {
  if (v == iv) return true;
  const ir::Operation* def = v ? v->definingOp() : nullptr;
  if (!def || def->dialect() != "arith" || depth > 64) return false;
  for (const ir::Value* operand : def->operands())
    if (dependsOn(operand, iv, depth + 1)) return true;
  return false;
}

// The scf.if conditions anywhere in `body` that depend on `iv`.
std::vector<const ir::Value*> conditionsOn(ir::Block& body, const ir::Value* iv) {
  std::vector<const ir::Value*> out;
  for (auto& owned : body.operations())
    owned->walk([&](ir::Operation* op) {
      if (op->isa("scf.if") && dependsOn(op->operand(0), iv)) out.push_back(op->operand(0));
    });
  return out;
}

// The chain feeding a store: compute ops reachable backwards from the stored value.
std::vector<ir::Operation*> chainOps(ir::Operation& store) {
  std::vector<ir::Operation*> ops, work = {ir::StoreOp(&store).value()->definingOp()};
  std::set<ir::Operation*> seen;
  while (!work.empty()) {
    ir::Operation* op = work.back();
    work.pop_back();
    if (!op || !lower::isComputeChainOp(op) || !seen.insert(op).second) continue;
    ops.push_back(op);
    for (ir::Value* v : op->operands())
      work.push_back(v->definingOp());
  }
  // Program order (the planner's chain order): positions in the store's block.
  std::map<const ir::Operation*, size_t> position;
  size_t i = 0;
  for (const auto& o : store.parentBlock()->operations())
    position[o.get()] = i++;
  std::stable_sort(ops.begin(), ops.end(),
                   [&](ir::Operation* a, ir::Operation* b) { return position[a] < position[b]; });
  return ops;
}

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

} // namespace

// What the walk reads from the kernel's IR that does not depend on the binding or the plan,
// prepared once per kernel: the values it folds, compiled (leaf slots: the core's, then one per
// loop index), and the threads compiled to nodes (the create_cb positions, pipes and chains they
// refer to, and the ops' locations).
struct KernelIr {
  explicit KernelIr(ir::Operation* kernel);

  ir::Operation* kernel;
  Control control;
  // Per scf.for (lower bound, upper bound, step, then the conditions of its body that depend on
  // its index) and per scf.if (the condition): a program of its own, so folding one op's values
  // runs a short program.
  std::vector<ir::CompiledValues> programs;
  size_t leaves = 0; // core leaves + loop indices
  int cbCount = 0;   // create_cb ops
  std::vector<ThreadNodes> threads;
  std::vector<Chain> chains;
  std::vector<std::string> pipes; // the created pipes' ids
  std::shared_ptr<std::vector<std::string>> origins = std::make_shared<std::vector<std::string>>();

private:
  std::vector<Node> compile(ir::Block& block);
  Node compile(ir::Operation& op, NodeKind kind);
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
};

KernelIr::KernelIr(ir::Operation* op) : kernel(op), control(prepareControl(op)) {
  std::vector<std::pair<const ir::Operation*, std::vector<const ir::Value*>>> roots;
  const size_t coreLeaves = lower::coreLeafValues(0, 0, 1, 1).size();
  kernel->walk([&](ir::Operation* o) {
    if (o->isa(ir::CreateCBOp::kName)) createPosition_.emplace(o, cbCount++);
    if (o->isa(ir::CreatePipeOp::kName))
      for (const ir::Value* r : o->results()) {
        std::string id = lower::valueName(r);
        auto known = std::find(pipes.begin(), pipes.end(), id);
        pipeIndex_.emplace(r, int(known - pipes.begin()));
        if (known == pipes.end()) pipes.push_back(id);
      }
    if (o->isa("scf.for") && o->numOperands() >= 3) {
      std::vector<const ir::Value*> values = {o->operand(0), o->operand(1), o->operand(2)};
      if (o->body().numArguments() > 0) {
        const ir::Value* iv = o->body().argument(0);
        indexSlot_.emplace(iv, int(coreLeaves + indexSlot_.size()));
        for (const ir::Value* c : conditionsOn(o->body(), iv))
          values.push_back(c);
      }
      roots.push_back({o, values});
    }
    if (o->isa("scf.if") && o->numOperands() >= 1) roots.push_back({o, {o->operand(0)}});
  });
  leaves = coreLeaves + indexSlot_.size();
  auto argumentSlot = [&](const ir::Value& v) {
    auto it = indexSlot_.find(&v);
    return it == indexSlot_.end() ? std::nullopt : std::optional<int>(it->second);
  };
  for (const auto& [o, values] : roots) {
    programOf_.emplace(o, programs.size());
    programs.emplace_back(values, lower::coreLeafSlot, argumentSlot);
  }
  for (auto& owned : kernel->body().operations()) {
    ir::Operation& thread = *owned;
    if (!thread.isa("ttl.datamovement_thread") && !thread.isa("ttl.compute_thread")) continue;
    threads.push_back({thread.isa("ttl.compute_thread"), compile(thread.body())});
  }
}

std::vector<Node> KernelIr::compile(ir::Block& block) {
  static const std::pair<std::string_view, NodeKind> kKinds[] = {
      {"ttl.work_loop", NodeKind::WorkLoop},
      {"scf.for", NodeKind::For},
      {"scf.if", NodeKind::If},
      {"ttl.if_src", NodeKind::IfSrc},
      {"ttl.if_dst", NodeKind::IfDst},
      {"ttl.cb_reserve", NodeKind::Reserve},
      {"ttl.cb_push", NodeKind::Push},
      {"ttl.cb_wait", NodeKind::Wait},
      {"ttl.cb_pop", NodeKind::Pop},
      {"ttl.copy", NodeKind::Copy},
      {"ttl.wait", NodeKind::WaitTransfers},
      {"ttl.dma_barrier", NodeKind::WaitTransfers},
      {"ttl.store", NodeKind::Store}};
  std::vector<Node> nodes;
  for (auto& owned : block.operations())
    for (const auto& [name, kind] : kKinds)
      if (owned->name() == name) {
        nodes.push_back(compile(*owned, kind));
        break;
      }
  return nodes;
}

Node KernelIr::compile(ir::Operation& op, NodeKind kind) {
  Node n;
  n.kind = kind;
  n.origin = originOf(op);
  if (auto it = programOf_.find(&op); it != programOf_.end()) n.program = int(it->second);
  switch (kind) {
  case NodeKind::WorkLoop:
    n.body = compile(op.body());
    break;
  case NodeKind::For:
    if (op.body().numArguments() > 0)
      if (auto it = indexSlot_.find(op.body().argument(0)); it != indexSlot_.end())
        n.indexSlot = it->second;
    if (n.program >= 0 && n.indexSlot >= 0 && n.indexSlot < 63) {
      std::vector<uint64_t> masks = programs[size_t(n.program)].leafMasks();
      for (size_t i = 0; i < masks.size(); ++i)
        if ((masks[i] >> n.indexSlot) & 1) n.onIndex.push_back(int(i));
    }
    n.body = compile(op.body());
    break;
  case NodeKind::If:
    n.body = compile(op.body(0));
    if (op.numRegions() > 1 && !op.region(1).blocks().empty()) n.elseBody = compile(op.body(1));
    break;
  case NodeKind::IfSrc:
  case NodeKind::IfDst:
    n.pipe = pipeOf(op.operand(0));
    n.body = compile(op.body());
    break;
  case NodeKind::Reserve:
  case NodeKind::Push:
  case NodeKind::Wait:
  case NodeKind::Pop:
    n.cb = cbOf(op.operand(0));
    break;
  case NodeKind::Copy: {
    ir::CopyOp copy(&op);
    using D = ir::CopyOp::Direction;
    n.direction = copy.direction();
    bool intoCb = n.direction == D::Read || n.direction == D::Receive;
    n.cb = cbOfView(intoCb ? copy.destination() : copy.source());
    if (n.direction == D::Send) n.pipe = pipeOf(copy.destination());
    if (n.direction == D::Receive) n.pipe = pipeOf(copy.source());
    break;
  }
  case NodeKind::WaitTransfers:
    break;
  case NodeKind::Store: {
    Chain chain;
    chain.origin = n.origin;
    for (ir::Operation* chainOp : chainOps(op)) {
      ChainOp c;
      for (ir::Value* v : chainOp->operands())
        if (int cb = cbOfView(v); cb >= 0) c.cbInputs.push_back(cb);
      c.matmul = chainOp->isa("ttl.matmul");
      if (c.matmul) c.lhsCb = cbOfView(ir::MatmulOp(chainOp).lhs());
      chain.ops.push_back(std::move(c));
    }
    n.cb = cbOfView(ir::StoreOp(&op).view());
    n.chain = int(chains.size());
    chains.push_back(std::move(chain));
    break;
  }
  }
  return n;
}

namespace {

// What one extraction (one plan) shares between the walks of its classes.
struct PlanContext {
  const lower::KernelPlan& plan;
  const ir::Device& device;
  const GridRoles& g;
  const NetGroups& nets;
  ComputeSettings settings;
  std::vector<std::vector<std::optional<int64_t>>> knobs; // per program, its knob slots
  std::vector<int> planCbOf;                              // create_cb position -> plan CB, or -1
  std::vector<int> gridPipeOf; // KernelIr::pipes index -> GridRoles::pipes index, or -1
  std::vector<const lower::ChainPlan*> chainPlans; // per KernelIr::chains: its DST plan or null
  std::vector<std::optional<Step>> priced;         // per KernelIr::chains: its step, once priced
};

// Walks one thread of one representative core into steps.
class Walker {
public:
  Walker(const KernelIr& ir, PlanContext& context) : ir_(ir), c_(context) {}

  /// Walks as `core` from now on (the buffers are kept from core to core).
  void setCore(int core) {
    core_ = core;
    leaves_ = lower::coreLeafValues(core % c_.g.cols, core / c_.g.cols, c_.g.rows, c_.g.cols);
    leaves_.resize(ir_.leaves);
  }

  Status walk(const std::vector<Node>& nodes, std::vector<Step>& out);

private:
  // The values of `node`'s program (KernelIr::programs) on this core with the loop indices set
  // now.
  const std::vector<std::optional<int64_t>>& fold(const Node& node) {
    if (node.program < 0) { // malformed (too few operands): nothing folds
      folded_.assign(node.kind == NodeKind::For ? 3 : 1, std::nullopt);
      return folded_;
    }
    size_t p = size_t(node.program);
    const ir::CompiledValues& program = ir_.programs[p];
    program.runAll(c_.knobs[p], leaves_, scratch_);
    return roots(program);
  }
  // fold() again after only `node`'s loop index changed (node.onIndex; the indices of loops
  // around are as in the last fold, which was of this node).
  const std::vector<std::optional<int64_t>>& refold(const Node& node) {
    size_t p = size_t(node.program);
    const ir::CompiledValues& program = ir_.programs[p];
    program.runSome(node.onIndex, c_.knobs[p], leaves_, scratch_);
    return roots(program);
  }
  const std::vector<std::optional<int64_t>>& roots(const ir::CompiledValues& program) {
    folded_.resize(program.numRoots());
    for (size_t r = 0; r < folded_.size(); ++r)
      folded_[r] = scratch_[size_t(program.rootInstruction(r))];
    return folded_;
  }
  // The plan's net this core sends (receives) on pipe `pipe`, or -1 when it does not.
  int netOf(int pipe, bool send) const {
    int p = pipe < 0 ? -1 : c_.gridPipeOf[size_t(pipe)];
    if (p < 0) return -1;
    return send ? c_.g.sendsOn(size_t(core_), size_t(p))
                : c_.g.receivesOn(size_t(core_), size_t(p));
  }
  int planCb(int position) const { return position < 0 ? -1 : c_.planCbOf[size_t(position)]; }
  int64_t viewBytes(int cb) const {
    const lower::CbPlan& p = c_.plan.cbs[size_t(cb)];
    int64_t tiles = 1;
    for (int64_t d : p.blockShape)
      tiles *= d;
    return tiles * p.tileBytes;
  }
  Status error(const Node& node, const std::string& what) const {
    return Error{
        fmt::format("{}: error: cost model: {}", (*ir_.origins)[size_t(node.origin)], what)};
  }
  Status loop(const Node& node, std::vector<Step>& out);
  Status copy(const Node& node, std::vector<Step>& out);
  Status store(const Node& node, std::vector<Step>& out);

  const KernelIr& ir_;
  PlanContext& c_;
  int core_ = 0;
  std::vector<std::optional<int64_t>> leaves_;  // this core's coordinates, then the loop indices
  std::vector<std::optional<int64_t>> scratch_; // every instruction of the program fold() ran
  std::vector<std::optional<int64_t>> folded_;  // its roots
};

Status Walker::loop(const Node& node, std::vector<Step>& out) {
  Step s;
  s.kind = StepKind::Loop;
  s.origin = node.origin;
  if (node.kind == NodeKind::WorkLoop) {
    s.workLoop = true;
    s.count = c_.g.work[size_t(core_)];
    if (Status st = walk(node.body, s.body); !st) return st;
    out.push_back(std::move(s));
    return Status::success();
  }
  const std::vector<std::optional<int64_t>>& bounds = fold(node);
  std::optional<int64_t> lb = bounds[0], ub = bounds[1], step = bounds[2];
  size_t conditions = bounds.size() - 3; // the body's branches on the index
  if (!lb || !ub || !step || *step <= 0)
    return error(node, "the loop bounds do not fold to constants on this core");
  std::optional<int64_t> trips = tripCount(*lb, *ub, *step);
  if (!trips) return error(node, "the loop runs more than 2^63 iterations");
  int64_t count = *trips;
  int iv = node.indexSlot;
  // Runs of iterations in which every branch of the body goes the same way: one Loop step each
  // (an edge core that skips its last blocks, say).
  std::vector<std::pair<int64_t, int64_t>> runs; // (first iteration, iterations)
  if (iv < 0 || conditions == 0 || count > kMaxSplitIterations || count == 0) {
    runs.push_back({0, count});
  } else {
    std::vector<std::optional<int64_t>> last;
    for (int64_t i = 0; i < count; ++i) {
      leaves_[size_t(iv)] = *lb + i * *step;
      const std::vector<std::optional<int64_t>>& values = i == 0 ? fold(node) : refold(node);
      if (i == 0 || !std::equal(values.begin() + 3, values.end(), last.begin(), last.end()))
        runs.push_back({i, 0});
      ++runs.back().second;
      last.assign(values.begin() + 3, values.end());
    }
  }
  for (const auto& [first, iterations] : runs) {
    if (iv >= 0) leaves_[size_t(iv)] = *lb + first * *step;
    Step run = s;
    run.count = iterations;
    if (runs.size() > 1) {
      run.sourceCount = count;
      run.sourceOffset = first;
    }
    if (Status st = walk(node.body, run.body); !st) return st;
    out.push_back(std::move(run));
  }
  if (iv >= 0) leaves_[size_t(iv)] = std::nullopt;
  return Status::success();
}

Status Walker::copy(const Node& node, std::vector<Step>& out) {
  Step s;
  s.origin = node.origin;
  using D = ir::CopyOp::Direction;
  int cb = planCb(node.cb);
  if (cb < 0) return error(node, "a copy whose view is not a CB block");
  s.bytes = viewBytes(cb);
  const lower::CbPlan& p = c_.plan.cbs[size_t(cb)];
  s.requests = p.tileBytes > 0 ? s.bytes / p.tileBytes : 1;
  if (node.direction == D::Read || node.direction == D::Write) {
    s.kind = node.direction == D::Read ? StepKind::Read : StepKind::Write;
  } else if (node.direction == D::Send || node.direction == D::Receive) {
    int net = netOf(node.pipe, node.direction == D::Send);
    if (net < 0) return Status::success(); // not a sender / receiver here (guarded elsewhere)
    s.kind = node.direction == D::Send ? StepKind::Send : StepKind::Receive;
    s.net = c_.nets.repOfNet[size_t(net)];
  } else {
    return error(node, "a copy of unknown direction");
  }
  out.push_back(std::move(s));
  return Status::success();
}

// The compute step of a store: its chain priced under the plan (once per extraction: every class
// runs the same chain on the same CBs).
Status Walker::store(const Node& node, std::vector<Step>& out) {
  std::optional<Step>& priced = c_.priced[size_t(node.chain)];
  if (priced) {
    out.push_back(*priced);
    return Status::success();
  }
  const lower::ChainPlan* chain = c_.chainPlans[size_t(node.chain)];
  if (!chain) return error(node, "no DST plan for this store");
  std::vector<OpShape> shapes;
  for (const ChainOp& chainOp : ir_.chains[size_t(node.chain)].ops) {
    OpShape shape;
    for (int position : chainOp.cbInputs) {
      int cb = planCb(position);
      if (cb < 0) continue;
      ++shape.cbInputs;
      shape.inputTileBytes = c_.plan.cbs[size_t(cb)].tileBytes;
    }
    if (chainOp.matmul) {
      int cb = planCb(chainOp.lhsCb);
      const auto& shapeA = cb >= 0 ? c_.plan.cbs[size_t(cb)].blockShape : std::vector<int64_t>{};
      shape.inner = shapeA.size() == 2 ? shapeA[1] : 1;
    }
    shapes.push_back(shape);
  }
  ComputeSettings settings = c_.settings;
  int outCb = planCb(node.cb);
  settings.outputTileBytes =
      outCb >= 0 ? c_.plan.cbs[size_t(outCb)].tileBytes : c_.device.tiles.bf16;
  Step s;
  s.kind = StepKind::Compute;
  s.origin = node.origin;
  s.split = priceChain(chain->problem, chain->solution, shapes, settings, c_.device);
  s.cycles = s.split.math + s.split.unpack + s.split.pack + s.split.overhead;
  s.idealCycles = idealMathCycles(chain->problem, shapes, settings.fidelityPhases, c_.device);
  priced = s;
  out.push_back(std::move(s));
  return Status::success();
}

Status Walker::walk(const std::vector<Node>& nodes, std::vector<Step>& out) {
  if (out.empty()) out.reserve(nodes.size());
  for (const Node& node : nodes) {
    auto cbStep = [&](StepKind kind) {
      int cb = planCb(node.cb);
      if (cb < 0) return error(node, "a CB operation on a CB the plan does not know");
      out.push_back(Step::onCb(kind, cb));
      out.back().origin = node.origin;
      return Status::success();
    };
    Status st = Status::success();
    switch (node.kind) {
    case NodeKind::WorkLoop:
    case NodeKind::For:
      st = loop(node, out);
      break;
    case NodeKind::If: {
      std::optional<int64_t> cond = fold(node)[0];
      if (!cond) return error(node, "the condition does not fold to a constant on this core");
      st = walk(*cond ? node.body : node.elseBody, out);
      break;
    }
    case NodeKind::IfSrc:
    case NodeKind::IfDst:
      if (netOf(node.pipe, node.kind == NodeKind::IfSrc) >= 0) st = walk(node.body, out);
      break;
    case NodeKind::Reserve:
      st = cbStep(StepKind::Reserve);
      break;
    case NodeKind::Push:
      st = cbStep(StepKind::Push);
      break;
    case NodeKind::Wait:
      st = cbStep(StepKind::Wait);
      break;
    case NodeKind::Pop:
      st = cbStep(StepKind::Pop);
      break;
    case NodeKind::Copy:
      st = copy(node, out);
      break;
    case NodeKind::WaitTransfers:
      out.push_back(Step::waitTransfers());
      out.back().origin = node.origin;
      break;
    case NodeKind::Store:
      st = store(node, out);
      break;
    }
    if (!st) return st;
  }
  return Status::success();
}

ThreadRole roleOf(const ThreadNodes& thread, int& movers) {
  if (thread.compute) return ThreadRole::Compute;
  return movers++ == 0 ? ThreadRole::Noc0 : ThreadRole::Noc1;
}

std::string className(const GridRoles& g, int core, bool workItems) {
  std::string roles;
  for (size_t p = 0; p < g.pipes.size(); ++p) {
    if (g.sendsOn(size_t(core), p) >= 0) roles += ", sends " + g.pipes[p];
    if (g.receivesOn(size_t(core), p) >= 0) roles += ", receives " + g.pipes[p];
  }
  std::string work = workItems ? fmt::format(", {} work item{}", g.work[size_t(core)],
                                             g.work[size_t(core)] == 1 ? "" : "s")
                               : "";
  return fmt::format("core ({},{}){}{}", core % g.cols, core / g.cols, work, roles);
}

// A thread's top-level nest: while its steps are exactly one unsplit scf.for loop, that loop's
// trip count, then the same for its body.
std::vector<int64_t> nestOf(const std::vector<Step>& steps) {
  std::vector<int64_t> counts;
  for (const std::vector<Step>* level = &steps; level->size() == 1;) {
    const Step& s = level->front();
    if (s.kind != StepKind::Loop || s.workLoop || s.sourceCount != 0) break;
    counts.push_back(s.count);
    level = &s.body;
  }
  return counts;
}

// The outer loops that every thread of every class runs as one perfect nest with the same trip
// counts (a core's block rows and block columns) merge into one loop of their product. The model
// then samples that loop as one long loop (the steady state per block, as for ttnn's kernels'
// block loops) instead of simulating every iteration of the outer levels. Only a nest every
// thread shares merges: the threads' CB handshakes and the classes' multicasts pair the
// iterations of loops with equal trip counts, so a thread must not merge what another does not.
void mergeSharedNest(Program& program) {
  std::optional<std::vector<int64_t>> shared;
  for (const CoreClass& cls : program.classes)
    for (const Thread& thread : cls.threads) {
      if (thread.steps.empty()) continue; // idle: pairs with nothing
      std::vector<int64_t> nest = nestOf(thread.steps);
      if (!shared) {
        shared = std::move(nest);
        continue;
      }
      size_t common = 0;
      while (common < shared->size() && common < nest.size() && (*shared)[common] == nest[common])
        ++common;
      shared->resize(common);
    }
  if (!shared || shared->size() < 2) return;
  std::optional<int64_t> product = checkedProduct(*shared);
  if (!product) return;
  for (CoreClass& cls : program.classes)
    for (Thread& thread : cls.threads) {
      if (thread.steps.empty()) continue;
      Step& outer = thread.steps.front();
      std::vector<Step> body = std::move(outer.body);
      for (size_t level = 1; level < shared->size(); ++level) {
        std::vector<Step> inner = std::move(body.front().body);
        body = std::move(inner);
      }
      outer.count = *product;
      outer.body = std::move(body);
    }
}

} // namespace

ProgramExtractor::ProgramExtractor(ir::Operation* kernel)
    : ir_(kernel ? std::make_shared<const KernelIr>(kernel) : nullptr) {}

Expected<Program> ProgramExtractor::extract(const lower::KernelPlan& plan,
                                            const ir::Binding& binding,
                                            const ir::Device& device) const {
  if (!ir_) return Error{"cost model: no kernel"};
  const KernelIr& ir = *ir_;
  GridRoles g = gridRoles(plan);
  evaluateControl(g, ir.control, binding);
  assignClasses(g, plan);
  NetGroups nets = groupNets(g, plan);
  PlanContext context{plan, device, g, nets, {}, {}, {}, {}, {}, {}};
  context.settings.fidelityPhases = fidelityPhases(plan.mathFidelity);
  context.settings.fp32DestAcc = plan.fp32DestAcc;
  // The plan's CBs name their create_cb by position in program order.
  context.planCbOf.assign(size_t(ir.cbCount), -1);
  for (size_t i = 0; i < plan.cbs.size(); ++i)
    if (int s = plan.cbs[i].source; s >= 0 && s < ir.cbCount) context.planCbOf[size_t(s)] = int(i);
  for (const std::string& id : ir.pipes) {
    auto it = std::find(g.pipes.begin(), g.pipes.end(), id);
    context.gridPipeOf.push_back(it == g.pipes.end() ? -1 : int(it - g.pipes.begin()));
  }
  for (const Chain& chain : ir.chains) {
    const lower::ChainPlan* found = nullptr;
    for (const lower::ChainPlan& c : plan.chains)
      if (c.location == (*ir.origins)[size_t(chain.origin)]) found = &c;
    context.chainPlans.push_back(found);
  }
  context.priced.resize(ir.chains.size());
  for (const ir::CompiledValues& p : ir.programs)
    context.knobs.push_back(p.knobValues(binding));
  Program program;
  program.kernel = plan.name;
  program.gridRows = g.rows;
  program.gridCols = g.cols;
  program.nets = nets.nets;
  program.origins.names = ir.origins;
  program.classes.resize(size_t(g.classes));
  Walker walker(ir, context);
  for (int core = 0; core < int(g.classOf.size()); ++core) {
    CoreClass& cls = program.classes[size_t(g.classOf[size_t(core)])];
    if (!cls.threads.empty() || !cls.name.empty()) {
      ++cls.cores;
      continue;
    }
    cls.name = className(g, core, plan.coresSolution.has_value());
    cls.representativeX = core % g.cols;
    cls.representativeY = core / g.cols;
    cls.workItems = g.work[size_t(core)];
    for (const lower::CbPlan& cb : plan.cbs) {
      int64_t tiles = 1;
      for (int64_t d : cb.blockShape)
        tiles *= d;
      cls.cbs.push_back({cb.name, 1, tiles * cb.tileBytes});
    }
    walker.setCore(core);
    int movers = 0;
    for (const ThreadNodes& nodes : ir.threads) {
      Thread thread;
      thread.role = roleOf(nodes, movers);
      if (Status st = walker.walk(nodes.body, thread.steps); !st) return st.error();
      cls.threads.push_back(std::move(thread));
    }
  }
  mergeSharedNest(program);
  setCbDepths(program, plan);
  return program;
}

Expected<Program> extractProgram(ir::Operation* kernel, const lower::KernelPlan& plan,
                                 const ir::Binding& binding, const ir::Device& device) {
  return ProgramExtractor(kernel).extract(plan, binding, device);
}

void setCbDepths(Program& program, const lower::KernelPlan& plan) {
  for (CoreClass& cls : program.classes)
    for (size_t i = 0; i < cls.cbs.size() && i < plan.cbs.size(); ++i)
      cls.cbs[i].depth = std::max<int64_t>(1, plan.cbs[i].blockCount);
}

} // namespace ttlplan::search::cost
