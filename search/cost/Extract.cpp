#include "ttlplan/search/cost/Extract.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/search/cost/Price.h"
#include "ttlplan/support/Checked.h"

#include <algorithm>
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
  std::vector<std::string> pipes;            // distinct pipe ids, first-seen order
  std::vector<int64_t> work;                 // per core (row-major)
  std::vector<std::vector<int>> sends;       // [core][pipe] -> net index sent on, or -1
  std::vector<std::vector<int>> receives;    // [core][pipe] -> net index received from, or -1
  std::vector<std::vector<int64_t>> control; // per core: the control values (controlValues)
  std::vector<int> classOf;                  // per core
  int classes = 0;
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
};

Control prepareControl(ir::Operation* kernel) {
  Control c;
  c.values = controlValues(kernel);
  c.program = ir::CompiledValues(c.values.closure, lower::coreLeafSlot);
  for (size_t i = 0; i < c.values.closure.size(); ++i)
    c.index.emplace(c.values.closure[i], i);
  return c;
}

void evaluateControl(GridRoles& g, const Control& control, const ir::Binding& binding) {
  g.control.assign(g.work.size(), {});
  // Which values fold is the same on almost every core: the frontier is found once per pattern.
  std::map<std::vector<bool>, std::vector<size_t>> frontiers;
  std::vector<std::optional<int64_t>> knobs = control.program.knobValues(binding), results;
  for (size_t c = 0; c < g.work.size(); ++c) {
    control.program.run(
        knobs, lower::coreLeafValues(int(c) % g.cols, int(c) / g.cols, g.rows, g.cols), results);
    std::vector<bool> folds(results.size());
    for (size_t i = 0; i < results.size(); ++i)
      folds[i] = results[i].has_value();
    auto [it, added] = frontiers.try_emplace(folds);
    if (added) {
      std::set<const ir::Value*> seen;
      for (const ir::Value* root : control.values.roots)
        controlFrontier(root, control.index, folds, seen, it->second);
    }
    for (size_t i : it->second)
      g.control[c].push_back(*results[i]);
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
  g.sends.assign(cores, std::vector<int>(g.pipes.size(), -1));
  g.receives.assign(cores, std::vector<int>(g.pipes.size(), -1));
  for (size_t n = 0; n < nets.size(); ++n) {
    size_t p = size_t(std::find(g.pipes.begin(), g.pipes.end(), nets[n].id) - g.pipes.begin());
    g.sends[size_t(coreIndex(g, nets[n].sender))][p] = int(n);
    for (Core d : nets[n].dests)
      if (!(d == nets[n].sender)) g.receives[size_t(coreIndex(g, d))][p] = int(n);
  }
  return g;
}

// Classes by (work, roles), refined by the classes of the senders a core receives from, until
// the partition is stable.
void assignClasses(GridRoles& g, const lower::KernelPlan& plan) {
  size_t cores = g.work.size();
  g.classOf.assign(cores, 0);
  for (int round = 0; round < 8; ++round) {
    std::map<std::vector<int64_t>, int> ids;
    std::vector<int> next(cores);
    for (size_t c = 0; c < cores; ++c) {
      std::vector<int64_t> sig = {round == 0 ? 0 : g.classOf[c], g.work[c]};
      sig.insert(sig.end(), g.control[c].begin(), g.control[c].end());
      for (size_t p = 0; p < g.pipes.size(); ++p) {
        sig.push_back(g.sends[c][p] >= 0);
        int from = g.receives[c][p];
        Core sender = from >= 0 ? plan.multicastProblem.nets[size_t(from)].sender : Core{};
        sig.push_back(from < 0 ? -1 : round == 0 ? 0 : g.classOf[size_t(coreIndex(g, sender))]);
      }
      next[c] = ids.emplace(sig, int(ids.size())).first->second;
    }
    bool stable = int(ids.size()) == g.classes;
    g.classOf = next;
    g.classes = int(ids.size());
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

} // namespace

// What the walk reads from the kernel's IR that does not depend on the binding or the plan,
// prepared once per kernel: the values it folds, compiled (leaf slots: the core's, then one per
// loop index), the create_cb positions, the ops' locations, the chain each store ends and the
// pipes' ids.
struct KernelIr {
  explicit KernelIr(ir::Operation* kernel);

  ir::Operation* kernel;
  Control control;
  // Per scf.for (lower bound, upper bound, step, then the conditions of its body that depend on
  // its index) and per scf.if (the condition): a program of its own, so folding one op's values
  // runs a short program.
  std::vector<ir::CompiledValues> programs;
  std::unordered_map<const ir::Operation*, size_t> programOf;   // op -> index into programs
  size_t leaves = 0;                                            // core leaves + loop indices
  std::unordered_map<const ir::Value*, int> indexSlot;          // loop index -> its leaf slot
  std::unordered_map<const ir::Operation*, int> createPosition; // create_cb -> program order
  std::unordered_map<const ir::Operation*, std::string> origin; // op -> file:line:col
  std::unordered_map<const ir::Operation*, std::vector<ir::Operation*>> chains; // store's
  std::unordered_map<const ir::Value*, std::string> pipeIds; // pipe value -> its id
};

KernelIr::KernelIr(ir::Operation* op) : kernel(op), control(prepareControl(op)) {
  std::vector<std::pair<const ir::Operation*, std::vector<const ir::Value*>>> roots;
  const size_t coreLeaves = lower::coreLeafValues(0, 0, 1, 1).size();
  kernel->walk([&](ir::Operation* o) {
    origin.emplace(o, o->location().str());
    if (o->isa(ir::CreateCBOp::kName)) createPosition.emplace(o, int(createPosition.size()));
    if (o->isa(ir::CreatePipeOp::kName))
      for (const ir::Value* r : o->results())
        pipeIds.emplace(r, lower::valueName(r));
    if (o->isa("scf.for") && o->numOperands() >= 3) {
      std::vector<const ir::Value*> values = {o->operand(0), o->operand(1), o->operand(2)};
      if (o->body().numArguments() > 0) {
        const ir::Value* iv = o->body().argument(0);
        indexSlot.emplace(iv, int(coreLeaves + indexSlot.size()));
        for (const ir::Value* c : conditionsOn(o->body(), iv))
          values.push_back(c);
      }
      roots.push_back({o, values});
    }
    if (o->isa("scf.if") && o->numOperands() >= 1) roots.push_back({o, {o->operand(0)}});
    if (o->isa("ttl.store")) chains.emplace(o, chainOps(*o));
  });
  leaves = coreLeaves + indexSlot.size();
  auto argumentSlot = [&](const ir::Value& v) {
    auto it = indexSlot.find(&v);
    return it == indexSlot.end() ? std::nullopt : std::optional<int>(it->second);
  };
  for (const auto& [o, values] : roots) {
    programOf.emplace(o, programs.size());
    programs.emplace_back(values, lower::coreLeafSlot, argumentSlot);
  }
}

namespace {

// Walks one thread of one representative core into steps.
class Walker {
public:
  Walker(const KernelIr& ir, const lower::KernelPlan& plan,
         const std::vector<std::vector<std::optional<int64_t>>>& knobs,
         const std::vector<int>& planCbOf, const ir::Device& device, const GridRoles& g,
         const NetGroups& nets, int core, ComputeSettings settings)
      : ir_(ir), plan_(plan), knobs_(knobs), planCbOf_(planCbOf), device_(device), g_(g),
        nets_(nets), core_(core), settings_(settings) {
    leaves_ = lower::coreLeafValues(core % g.cols, core / g.cols, g.rows, g.cols);
    leaves_.resize(ir.leaves);
  }

  Status walk(ir::Block& block, std::vector<Step>& out);

private:
  // The values of `op`'s program (KernelIr::programs) on this core with the loop indices set now.
  const std::vector<std::optional<int64_t>>& fold(const ir::Operation& op) {
    auto it = ir_.programOf.find(&op);
    if (it == ir_.programOf.end()) { // malformed (too few operands): nothing folds
      folded_.assign(op.isa("scf.for") ? 3 : 1, std::nullopt);
      return folded_;
    }
    size_t p = it->second;
    const ir::CompiledValues& program = ir_.programs[p];
    program.runAll(knobs_[p], leaves_, scratch_);
    folded_.resize(program.numRoots());
    for (size_t r = 0; r < folded_.size(); ++r)
      folded_[r] = scratch_[size_t(program.rootInstruction(r))];
    return folded_;
  }
  void setIndex(const ir::Value* iv, std::optional<int64_t> v) {
    leaves_[size_t(ir_.indexSlot.at(iv))] = v;
  }
  const std::string& origin(const ir::Operation& op) const { return ir_.origin.at(&op); }
  // The plan's net this core sends (receives) `pipe` on, or -1 when it does not.
  int netOf(const ir::Value* pipe, bool send) const {
    auto id = ir_.pipeIds.find(pipe);
    if (id == ir_.pipeIds.end()) return -1;
    auto it = std::find(g_.pipes.begin(), g_.pipes.end(), id->second);
    if (it == g_.pipes.end()) return -1;
    size_t p = size_t(it - g_.pipes.begin());
    return send ? g_.sends[size_t(core_)][p] : g_.receives[size_t(core_)][p];
  }
  int cbOf(const ir::Value* cbValue) const {
    auto it = ir_.createPosition.find(cbValue ? cbValue->definingOp() : nullptr);
    return it == ir_.createPosition.end() ? -1 : planCbOf_[size_t(it->second)];
  }
  // The CB a view (cb_reserve / cb_wait result) belongs to.
  int cbOfView(const ir::Value* view) const {
    const ir::Operation* def = view ? view->definingOp() : nullptr;
    if (!def || !(def->isa("ttl.cb_reserve") || def->isa("ttl.cb_wait"))) return -1;
    return cbOf(def->operand(0));
  }
  int64_t viewBytes(int cb) const {
    const lower::CbPlan& p = plan_.cbs[size_t(cb)];
    int64_t tiles = 1;
    for (int64_t d : p.blockShape)
      tiles *= d;
    return tiles * p.tileBytes;
  }
  Status error(const ir::Operation& op, const std::string& what) const {
    return Error{fmt::format("{}: error: cost model: {}", origin(op), what)};
  }
  Status loop(ir::Operation& op, std::vector<Step>& out);
  Status copy(ir::Operation& op, std::vector<Step>& out);
  Status store(ir::Operation& op, std::vector<Step>& out);

  const KernelIr& ir_;
  const lower::KernelPlan& plan_;
  const std::vector<std::vector<std::optional<int64_t>>>& knobs_; // per program, its knob slots
  const std::vector<int>& planCbOf_; // create_cb position -> plan CB, or -1
  const ir::Device& device_;
  const GridRoles& g_;
  const NetGroups& nets_;
  int core_;
  ComputeSettings settings_;
  std::vector<std::optional<int64_t>> leaves_;  // this core's coordinates, then the loop indices
  std::vector<std::optional<int64_t>> scratch_; // every instruction of the program fold() ran
  std::vector<std::optional<int64_t>> folded_;  // its roots
};

Status Walker::loop(ir::Operation& op, std::vector<Step>& out) {
  Step s;
  s.kind = StepKind::Loop;
  s.origin = origin(op);
  if (op.isa("ttl.work_loop")) {
    s.workLoop = true;
    s.count = g_.work[size_t(core_)];
    if (Status st = walk(op.body(), s.body); !st) return st;
    out.push_back(std::move(s));
    return Status::success();
  }
  const std::vector<std::optional<int64_t>>& bounds = fold(op);
  std::optional<int64_t> lb = bounds[0], ub = bounds[1], step = bounds[2];
  size_t conditions = bounds.size() - 3; // the body's branches on the index
  if (!lb || !ub || !step || *step <= 0)
    return error(op, "the loop bounds do not fold to constants on this core");
  std::optional<int64_t> trips = tripCount(*lb, *ub, *step);
  if (!trips) return error(op, "the loop runs more than 2^63 iterations");
  int64_t count = *trips;
  const ir::Value* iv = op.body().numArguments() > 0 ? op.body().argument(0) : nullptr;
  // Runs of iterations in which every branch of the body goes the same way: one Loop step each
  // (an edge core that skips its last blocks, say).
  std::vector<std::pair<int64_t, int64_t>> runs; // (first iteration, iterations)
  if (!iv || conditions == 0 || count > kMaxSplitIterations || count == 0) {
    runs.push_back({0, count});
  } else {
    std::vector<std::optional<int64_t>> last;
    for (int64_t i = 0; i < count; ++i) {
      setIndex(iv, *lb + i * *step);
      const std::vector<std::optional<int64_t>>& values = fold(op);
      std::vector<std::optional<int64_t>> now(values.begin() + 3, values.end());
      if (i == 0 || now != last) runs.push_back({i, 0});
      ++runs.back().second;
      last = std::move(now);
    }
  }
  for (const auto& [first, iterations] : runs) {
    if (iv) setIndex(iv, *lb + first * *step);
    Step run = s;
    run.count = iterations;
    if (runs.size() > 1) {
      run.sourceCount = count;
      run.sourceOffset = first;
    }
    if (Status st = walk(op.body(), run.body); !st) return st;
    out.push_back(std::move(run));
  }
  if (iv) setIndex(iv, std::nullopt);
  return Status::success();
}

Status Walker::copy(ir::Operation& op, std::vector<Step>& out) {
  ir::CopyOp copy(&op);
  Step s;
  s.origin = origin(op);
  using D = ir::CopyOp::Direction;
  D dir = copy.direction();
  int cb = cbOfView(dir == D::Read || dir == D::Receive ? copy.destination() : copy.source());
  if (cb < 0) return error(op, "a copy whose view is not a CB block");
  s.bytes = viewBytes(cb);
  const lower::CbPlan& p = plan_.cbs[size_t(cb)];
  s.requests = p.tileBytes > 0 ? s.bytes / p.tileBytes : 1;
  if (dir == D::Read || dir == D::Write) {
    s.kind = dir == D::Read ? StepKind::Read : StepKind::Write;
  } else if (dir == D::Send || dir == D::Receive) {
    int net = dir == D::Send ? netOf(copy.destination(), true) : netOf(copy.source(), false);
    if (net < 0) return Status::success(); // not a sender / receiver here (guarded elsewhere)
    s.kind = dir == D::Send ? StepKind::Send : StepKind::Receive;
    s.net = nets_.repOfNet[size_t(net)];
  } else {
    return error(op, "a copy of unknown direction");
  }
  out.push_back(std::move(s));
  return Status::success();
}

Status Walker::store(ir::Operation& op, std::vector<Step>& out) {
  const std::string& where = origin(op);
  const lower::ChainPlan* chain = nullptr;
  for (const lower::ChainPlan& c : plan_.chains)
    if (c.location == where) chain = &c;
  if (!chain) return error(op, "no DST plan for this store");
  const std::vector<ir::Operation*>& ops = ir_.chains.at(&op);
  std::vector<OpShape> shapes;
  for (ir::Operation* chainOp : ops) {
    OpShape shape;
    for (ir::Value* v : chainOp->operands()) {
      int cb = cbOfView(v);
      if (cb < 0) continue;
      ++shape.cbInputs;
      shape.inputTileBytes = plan_.cbs[size_t(cb)].tileBytes;
    }
    if (chainOp->isa("ttl.matmul")) {
      int cb = cbOfView(ir::MatmulOp(chainOp).lhs());
      const auto& shapeA = cb >= 0 ? plan_.cbs[size_t(cb)].blockShape : std::vector<int64_t>{};
      shape.inner = shapeA.size() == 2 ? shapeA[1] : 1;
    }
    shapes.push_back(shape);
  }
  ComputeSettings settings = settings_;
  int outCb = cbOfView(ir::StoreOp(&op).view());
  settings.outputTileBytes = outCb >= 0 ? plan_.cbs[size_t(outCb)].tileBytes : device_.tiles.bf16;
  Step s;
  s.kind = StepKind::Compute;
  s.origin = where;
  s.split = priceChain(chain->problem, chain->solution, shapes, settings, device_);
  s.cycles = s.split.math + s.split.unpack + s.split.pack + s.split.overhead;
  s.idealCycles = idealMathCycles(chain->problem, shapes, settings.fidelityPhases, device_);
  out.push_back(std::move(s));
  return Status::success();
}

Status Walker::walk(ir::Block& block, std::vector<Step>& out) {
  for (auto& owned : block.operations()) {
    ir::Operation& op = *owned;
    std::string_view name = op.name();
    auto cbStep = [&](StepKind kind) {
      int cb = cbOf(op.operand(0));
      if (cb < 0) return error(op, "a CB operation on a CB the plan does not know");
      out.push_back(Step::onCb(kind, cb));
      out.back().origin = origin(op);
      return Status::success();
    };
    Status st = Status::success();
    if (name == "ttl.work_loop" || name == "scf.for") {
      st = loop(op, out);
    } else if (name == "scf.if") {
      std::optional<int64_t> cond = fold(op)[0];
      if (!cond) return error(op, "the condition does not fold to a constant on this core");
      if (*cond)
        st = walk(op.body(0), out);
      else if (op.numRegions() > 1 && !op.region(1).blocks().empty())
        st = walk(op.body(1), out);
    } else if (name == "ttl.if_src" || name == "ttl.if_dst") {
      if (netOf(op.operand(0), name == "ttl.if_src") >= 0) st = walk(op.body(), out);
    } else if (name == "ttl.cb_reserve") {
      st = cbStep(StepKind::Reserve);
    } else if (name == "ttl.cb_push") {
      st = cbStep(StepKind::Push);
    } else if (name == "ttl.cb_wait") {
      st = cbStep(StepKind::Wait);
    } else if (name == "ttl.cb_pop") {
      st = cbStep(StepKind::Pop);
    } else if (name == "ttl.copy") {
      st = copy(op, out);
    } else if (name == "ttl.wait" || name == "ttl.dma_barrier") {
      out.push_back(Step::waitTransfers());
      out.back().origin = origin(op);
    } else if (name == "ttl.store") {
      st = store(op, out);
    }
    if (!st) return st;
  }
  return Status::success();
}

ThreadRole roleOf(const ir::Operation& thread, int& movers) {
  if (thread.isa("ttl.compute_thread")) return ThreadRole::Compute;
  return movers++ == 0 ? ThreadRole::Noc0 : ThreadRole::Noc1;
}

std::string className(const GridRoles& g, int core, bool workItems) {
  std::string roles;
  for (size_t p = 0; p < g.pipes.size(); ++p) {
    if (g.sends[size_t(core)][p] >= 0) roles += ", sends " + g.pipes[p];
    if (g.receives[size_t(core)][p] >= 0) roles += ", receives " + g.pipes[p];
  }
  std::string work = workItems ? fmt::format(", {} work item{}", g.work[size_t(core)],
                                             g.work[size_t(core)] == 1 ? "" : "s")
                               : "";
  return fmt::format("core ({},{}){}{}", core % g.cols, core / g.cols, work, roles);
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
  ComputeSettings settings;
  settings.fidelityPhases = fidelityPhases(plan.mathFidelity);
  settings.fp32DestAcc = plan.fp32DestAcc;
  // The plan's CBs name their create_cb by position in program order.
  std::vector<int> planCbOf(ir.createPosition.size(), -1);
  for (size_t i = 0; i < plan.cbs.size(); ++i)
    if (int s = plan.cbs[i].source; s >= 0 && size_t(s) < planCbOf.size())
      planCbOf[size_t(s)] = int(i);
  std::vector<std::vector<std::optional<int64_t>>> knobs;
  for (const ir::CompiledValues& p : ir.programs)
    knobs.push_back(p.knobValues(binding));
  Program program;
  program.kernel = plan.name;
  program.gridRows = g.rows;
  program.gridCols = g.cols;
  program.nets = nets.nets;
  program.classes.resize(size_t(g.classes));
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
    Walker walker(ir, plan, knobs, planCbOf, device, g, nets, core, settings);
    int movers = 0;
    for (auto& owned : ir.kernel->body().operations()) {
      ir::Operation& op = *owned;
      if (!op.isa("ttl.datamovement_thread") && !op.isa("ttl.compute_thread")) continue;
      Thread thread;
      thread.role = roleOf(op, movers);
      if (Status st = walker.walk(op.body(), thread.steps); !st) return st.error();
      cls.threads.push_back(std::move(thread));
    }
  }
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
