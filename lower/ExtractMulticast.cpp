// Multicast extraction: every ttl.create_pipe evaluated on every core of the grid, grouped into
// nets by planner::multicast::buildNets, with the device's logical -> NoC mapping.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <memory>

namespace ttlplan::lower {

namespace {

/// The create_cb op whose view a pipe's receive copy writes; null when there is none.
ir::Operation* destinationCb(ir::Operation* kernel, ir::Value* pipe) {
  ir::Operation* found = nullptr;
  kernel->walk([&](ir::Operation* op) {
    auto copy = ir::CopyOp::dyn(op);
    if (found || !copy || copy->source() != pipe) return;
    ir::Operation* reserve = copy->destination()->definingOp();
    if (reserve && (reserve->isa("ttl.cb_reserve") || reserve->isa("ttl.cb_wait")) &&
        reserve->operand(0)->definingOp())
      found = reserve->operand(0)->definingOp();
  });
  return found;
}

/// Whether a copy in `kernel` sends on `pipe`.
bool sendsOn(ir::Operation* kernel, ir::Value* pipe) {
  bool found = false;
  kernel->walk([&](ir::Operation* op) {
    auto copy = ir::CopyOp::dyn(op);
    if (copy && copy->destination() == pipe) found = true;
  });
  return found;
}

} // namespace

std::string pipeIdentity(const ir::Operation& createPipe) {
  if (!createPipe.location().known() || createPipe.numOperands() > 0) return {};
  return createPipe.location().str() + "|" + createPipe.attribute("static_coords").str();
}

std::map<const ir::Operation*, std::string> pipeIds(ir::Operation* kernel) {
  std::map<const ir::Operation*, std::string> out;
  std::map<std::string, std::string> first; // identity -> the first creation's name
  kernel->walk([&](ir::Operation* op) {
    if (!op->isa(ir::CreatePipeOp::kName)) return;
    std::string own = valueName(op->result(0));
    std::string identity = pipeIdentity(*op);
    out[op] = identity.empty() ? own : first.emplace(identity, own).first->second;
  });
  return out;
}

std::optional<int> coreLeafSlot(const ir::Operation& op) {
  if (op.isa("ttl.core_x")) return 0;
  if (op.isa("ttl.core_y")) return 1;
  if (!op.isa("ttl.grid_size")) return std::nullopt;
  ir::Attribute dim = op.attribute("dim");
  if (!dim.is(ir::AttrKind::Integer) || dim.intValue() < 0 || dim.intValue() > 1)
    return std::nullopt;
  return 2 + int(dim.intValue());
}

std::vector<std::optional<int64_t>> coreLeafValues(int x, int y, int rows, int cols) {
  return {x, y, rows, cols};
}

ir::LeafEvaluator coreLeaves(int x, int y, int rows, int cols) {
  return [here = coreLeafValues(x, y, rows, cols)](const ir::Operation& op) {
    std::optional<int> slot = coreLeafSlot(op);
    return slot ? here[size_t(*slot)] : std::nullopt;
  };
}

Expected<planner::multicast::Problem> extractMulticast(ir::Operation* kernel,
                                                       const ir::Binding& binding,
                                                       const ir::Device& device,
                                                       planner::cores::Grid grid) {
  namespace mc = planner::multicast;
  mc::Problem problem;
  problem.rows = grid.rows;
  problem.cols = grid.cols;
  problem.semaphoreLimit = device.kernel.semaphoresPerCore;
  const auto& tr = device.grid.translatedRows;
  const auto& tc = device.grid.translatedColumns;
  if (static_cast<int>(tr.size()) < grid.rows || static_cast<int>(tc.size()) < grid.cols)
    return Error{fmt::format("device {} has no translated coordinates for a {} x {} grid",
                             device.name, grid.rows, grid.cols)};
  problem.noc.y.assign(tr.begin(), tr.begin() + grid.rows);
  problem.noc.x.assign(tc.begin(), tc.begin() + grid.cols);

  // Which data-movement thread (0 = NOC0, 1 = NOC1) each pipe lives in.
  std::vector<ir::Operation*> movers;
  std::vector<ir::Operation*> pipes;
  std::map<ir::Operation*, int64_t> cbPosition; // create_cb -> its position: the destination key
  kernel->walk([&](ir::Operation* op) {
    if (op->isa("ttl.datamovement_thread")) movers.push_back(op);
    if (op->isa(ir::CreatePipeOp::kName)) pipes.push_back(op);
    if (op->isa(ir::CreateCBOp::kName)) cbPosition.emplace(op, int64_t(cbPosition.size()));
  });
  std::string error;
  std::vector<mc::PipeSpec> specs;
  std::map<const ir::Operation*, std::string> ids = pipeIds(kernel);
  std::map<std::string, size_t> specOf; // pipe id -> its spec
  for (size_t i = 0; i < pipes.size(); ++i) {
    ir::Operation* pipeOp = pipes[i];
    ir::CreatePipeOp pipe(pipeOp);
    auto nocOf = [&](ir::Operation* op) {
      int noc = 0;
      for (size_t t = 0; t < movers.size(); ++t)
        if (movers[t]->isAncestorOf(op)) noc = static_cast<int>(std::min<size_t>(t, 1));
      return noc;
    };
    if (auto known = specOf.find(ids.at(pipeOp)); known != specOf.end()) {
      // Another thread's creation of a pipe already extracted: the NoC is its sending thread's,
      // the destination CB its receiving thread's.
      mc::PipeSpec& spec = specs[known->second];
      if (sendsOn(kernel, pipe.pipe())) spec.noc = nocOf(pipeOp);
      if (spec.dstAddress < 0)
        if (ir::Operation* cb = destinationCb(kernel, pipe.pipe()))
          spec.dstAddress = cbPosition.at(cb);
      continue;
    }
    specOf.emplace(ids.at(pipeOp), specs.size());
    mc::PipeSpec spec;
    spec.id = ids.at(pipeOp);
    spec.location = pipeOp->location().str();
    spec.source = int(i);
    spec.noc = nocOf(pipeOp);
    ir::Operation* cb = destinationCb(kernel, pipe.pipe());
    // A pipe that never receives into a CB gets a key of its own (no other pipe writes it).
    spec.dstAddress = cb ? cbPosition.at(cb) : -1 - static_cast<int64_t>(i);
    // The coordinates compiled once, then run on every core.
    auto points = pipe.points();
    std::vector<const ir::Value*> coordinates;
    std::vector<std::optional<int64_t>> literals;
    for (const auto& [cx, cy] : points)
      for (const ir::CreatePipeOp::Coord* c : {&cx, &cy}) {
        coordinates.push_back(c->literal ? nullptr : c->value);
        literals.push_back(c->literal);
      }
    auto program = std::make_shared<ir::CompiledValues>(coordinates, coreLeafSlot);
    auto knobs =
        std::make_shared<std::vector<std::optional<int64_t>>>(program->knobValues(binding));
    spec.evaluate = [program, knobs, literals, grid, &error,
                     pipeOp](mc::Core core) -> std::optional<mc::PipeEnds> {
      std::vector<std::optional<int64_t>> values;
      program->run(*knobs, coreLeafValues(core.x, core.y, grid.rows, grid.cols), values);
      std::vector<int64_t> v;
      for (size_t i = 0; i < values.size(); ++i) {
        std::optional<int64_t> value = literals[i] ? literals[i] : values[i];
        if (!value) {
          if (error.empty())
            error =
                fmt::format("{}: error: cannot evaluate the coordinates of {} on core "
                            "({}, {}): only constants, arith, ttl.core_x/core_y/grid_size "
                            "and ttl.param_value are understood",
                            pipeOp->location().str(), valueName(pipeOp->result(0)), core.x, core.y);
          return std::nullopt;
        }
        v.push_back(*value);
      }
      if (v.size() != 4 && v.size() != 6) return std::nullopt;
      mc::PipeEnds ends;
      ends.src = {static_cast<int>(v[0]), static_cast<int>(v[1])};
      int x0 = static_cast<int>(v[2]), y0 = static_cast<int>(v[3]);
      int x1 = v.size() == 6 ? static_cast<int>(v[4]) : x0;
      int y1 = v.size() == 6 ? static_cast<int>(v[5]) : y0;
      ends.dst = {std::min(x0, x1), std::min(y0, y1), std::max(x0, x1), std::max(y0, y1)};
      return ends;
    };
    specs.push_back(std::move(spec));
  }
  if (specs.empty()) return problem;
  mc::NetsResult nets = mc::buildNets(grid.rows, grid.cols, specs);
  if (!error.empty()) return Error{error};
  if (!nets.error.empty()) return Error{nets.error};
  problem.nets = std::move(nets.nets);
  return problem;
}

} // namespace ttlplan::lower
