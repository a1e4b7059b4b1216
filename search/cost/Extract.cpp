#include "ttlplan/search/cost/Extract.h"

#include "ttlplan/ir/ImportTtlang.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/search/cost/ExtractDetail.h"
#include "ttlplan/search/cost/Price.h"
#include "ttlplan/support/Checked.h"

#include <algorithm>
#include <fmt/format.h>

namespace ttlplan::search::cost {

using namespace detail;

namespace {

// Loops of at most this many iterations are split where a branch of their body changes with the
// induction variable; longer ones are walked at their first iteration (docs/cost-model.md).
constexpr int64_t kMaxSplitIterations = 64;

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
  /// Whether this core is the source of `pipe` and receives its own block (source_receives).
  bool selfReceives(int pipe) const {
    return pipe >= 0 && ir_.sourceReceives[size_t(pipe)] && netOf(pipe, true) >= 0;
  }
  int planCb(int position) const { return position < 0 ? -1 : c_.planCbOf[size_t(position)]; }
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
  const lower::CbPlan& p = c_.plan.cbs[size_t(cb)];
  s.bytes = p.blockBytes();
  s.requests = p.tileBytes > 0 ? s.bytes / p.tileBytes : 1;
  if (node.direction == D::Read || node.direction == D::Write) {
    s.kind = node.direction == D::Read ? StepKind::Read : StepKind::Write;
  } else if (node.direction == D::Send || node.direction == D::Receive) {
    int net = netOf(node.pipe, node.direction == D::Send);
    // Not a sender / receiver here (guarded elsewhere), or a source receiving its own block: a
    // local copy the model does not price.
    if (net < 0) return Status::success();
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
      if (netOf(node.pipe, node.kind == NodeKind::IfSrc) >= 0 ||
          (node.kind == NodeKind::IfDst && selfReceives(node.pipe)))
        st = walk(node.body, out);
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
    : ir_(kernel ? std::make_shared<const KernelIr>(kernel) : nullptr),
      refusal_(kernel ? ir::outsideEndRefusal(*kernel, "cost") : "") {}

Expected<Program> ProgramExtractor::extract(const lower::KernelPlan& plan,
                                            const ir::Binding& binding,
                                            const ir::Device& device) const {
  if (!ir_) return Error{"cost model: no kernel"};
  if (!refusal_.empty()) return Error{refusal_};
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
    for (const lower::CbPlan& cb : plan.cbs)
      cls.cbs.push_back({cb.name, 1, cb.blockBytes()});
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
