#include "ttlplan/ir/Ops.h"
#include "ttlplan/search/cost/ExtractDetail.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>

namespace ttlplan::search::cost::detail {

using planner::multicast::Core;

namespace {

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

// Leaf slots of ttl.core_x and ttl.core_y (lower::coreLeafSlot).
constexpr int kSlotX = 0, kSlotY = 1;

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

} // namespace

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
  std::set<int> readsX, readsY;
  for (int i : c.mixed)
    for (int operand : {c.program.instruction(size_t(i)).a, c.program.instruction(size_t(i)).b}) {
      if (operand < 0) continue;
      if (c.partOf[size_t(operand)] == 1) readsX.insert(operand);
      if (c.partOf[size_t(operand)] == 2) readsY.insert(operand);
    }
  c.mixedReadsX.assign(readsX.begin(), readsX.end());
  c.mixedReadsY.assign(readsY.begin(), readsY.end());
  return c;
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
      for (int i : control.mixedReadsX)
        values[size_t(i)] = columns[size_t(x)][size_t(control.slotOf[size_t(i)])];
      for (int i : control.mixedReadsY)
        values[size_t(i)] = rows[size_t(y)][size_t(control.slotOf[size_t(i)])];
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
  // One signature per core, all of one length; a class is the first core with its signature.
  const size_t length = 3 + 2 * g.pipes.size();
  std::vector<int64_t> sigs(cores * length);
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
      int id = -1;
      for (size_t k = 0; k < firsts.size() && id < 0; ++k)
        if (std::equal(sig, sig + length, &sigs[firsts[k] * length])) id = int(k);
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

} // namespace ttlplan::search::cost::detail
