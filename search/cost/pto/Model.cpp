// The pto cost model (Model.h): the instructions of one work item, priced per pipe.
#include "ttlplan/search/cost/pto/Model.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/PtoPlanner.h"
#include "ttlplan/planner/l1/Problem.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

namespace ttlplan::search::cost::pto {

namespace {

namespace pp = planner::pto;

/// Bytes of one element of a TTL data type in a pto-isa tile.
int64_t elementBytes(std::optional<ir::DataType> type) {
  return type == ir::DataType::BF16 || type == ir::DataType::F16 ? 2 : 4;
}

/// Elements of a block value: its tiles times the tile's elements; one per row when perRow.
int64_t elements(const ir::Value* value, const ir::Binding& binding, bool perRow) {
  const ir::Type& type = value->type();
  if (!type.is(ir::TypeKind::Tensor) || !type.elementType().is(ir::TypeKind::Tile)) return 0;
  const ir::Type& tile = type.elementType();
  std::vector<int64_t> shape;
  for (const ir::Dim& d : type.shape())
    shape.push_back(ir::resolveDim(d, binding).value_or(0));
  if (shape.empty()) return 0;
  int64_t n = shape[0] * tile.tileRows();
  if (!perRow)
    for (size_t d = 1; d < shape.size(); ++d)
      n *= shape[d] * tile.tileColumns();
  return n;
}

/// Walks a kernel's threads, pricing each instruction the pto code generator emits for it.
class Pricer {
public:
  Pricer(ir::Operation* kernel, const ir::Binding& binding, const pp::Problem& problem,
         const ir::pto::CostModel& model, const lower::PtoTemporaries& temporaries)
      : binding_(binding), problem_(problem), model_(model), temps_(temporaries) {
    size_t position = 0;
    kernel->walk([&](ir::Operation* op) {
      if (auto create = ir::CreateCBOp::dyn(op))
        for (size_t b = 0; b < problem.buffers.size(); ++b)
          if (problem.buffers[b].role == pp::BufferRole::Cb &&
              problem.buffers[b].source == int(position))
            cbBuffer_[create->cb()] = b;
      if (ir::CreateCBOp::dyn(op)) ++position;
    });
  }

  Status walk(ir::Block& block, double count, bool perItem) {
    for (const std::unique_ptr<ir::Operation>& op : block.operations())
      if (Status s = visit(op.get(), count, perItem); !s) return s;
    return Status::success();
  }

  std::vector<InstructionCost> instructions;

private:
  Status visit(ir::Operation* op, double count, bool perItem) {
    const std::string_view name = op->name();
    if (name == "ttl.work_loop") return walk(op->body(), count, true);
    if (name == "scf.for") {
      std::optional<int64_t> lo = ir::evaluate(op->operand(0), binding_);
      std::optional<int64_t> hi = ir::evaluate(op->operand(1), binding_);
      std::optional<int64_t> step = ir::evaluate(op->operand(2), binding_);
      if (!lo || !hi || !step || *step <= 0)
        return Error{fmt::format("{}: error: cost --target pto: this loop's trip count is not "
                                 "known under the binding",
                                 op->location().str())};
      const double trips = double(std::max<int64_t>(0, (*hi - *lo + *step - 1) / *step));
      return walk(op->body(), count * trips, perItem);
    }
    if (op->numRegions() > 0 && !op->region(0).empty()) // threads and other regions
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (const std::unique_ptr<ir::Block>& b : op->region(r).blocks())
          if (Status s = walk(*b, count, perItem); !s) return s;
    if (name == "ttl.cb_reserve" || name == "ttl.cb_wait") {
      auto it = cbBuffer_.find(op->operand(0));
      if (it != cbBuffer_.end()) viewBuffer_[op->result(0)] = it->second;
    } else if (name == "ttl.copy") {
      copy(op, count, perItem);
    } else if (auto matmul = ir::MatmulOp::dyn(op)) {
      this->matmul(op, *matmul, count, perItem);
    } else if (auto store = ir::StoreOp::dyn(op)) {
      this->store(op, *store, count, perItem);
    } else if (op->def() && op->def()->compute.kind != ir::ComputeKind::None &&
               op->numResults() == 1) {
      vector(op, count, perItem);
    }
    return Status::success();
  }

  void add(const ir::Operation* op, std::string what, pp::Pipe pipe, double count, bool perItem,
           double cycles) {
    instructions.push_back({std::move(what), op->location().str(), pipe, count, cycles, perItem});
  }

  double transfer(int64_t bytes, double bytesPerCycle) const {
    return bytesPerCycle > 0 ? double(bytes) / bytesPerCycle : 0;
  }

  void copy(ir::Operation* op, double count, bool perItem) {
    const ir::Value* src = op->operand(0);
    const ir::Value* dst = op->operand(1);
    const bool load = viewBuffer_.count(dst) > 0;
    auto it = viewBuffer_.find(load ? dst : src);
    if (it == viewBuffer_.end()) return; // not a CB view: the generator refuses it
    const pp::BufferSpec& b = problem_.buffers[it->second];
    const ir::Value* global = load ? src : dst;
    const int64_t bytes = elements(global, binding_, false) *
                          elementBytes(ir::resolveDataType(global->type().elementType(), binding_));
    if (load)
      add(op, "TLOAD " + b.name, pp::Pipe::Mte2, count, perItem,
          transfer(bytes, b.memory == pp::Memory::L1 ? model_.gmToL1 : model_.gmToUb));
    else if (b.memory == pp::Memory::L0c)
      add(op, "TSTORE " + b.name, pp::Pipe::Fix, count, perItem, transfer(bytes, model_.l0cToGm));
    else
      add(op, "TSTORE " + b.name, pp::Pipe::Mte3, count, perItem, transfer(bytes, model_.ubToGm));
  }

  void matmul(ir::Operation* op, ir::MatmulOp matmul, double count, bool perItem) {
    const ir::Value* lhs = matmul.lhs();
    const ir::Value* rhs = matmul.rhs();
    const int64_t bytes = elementBytes(ir::resolveDataType(lhs->type().elementType(), binding_));
    const int64_t lhsElements = elements(lhs, binding_, false);
    const int64_t rhsElements = elements(rhs, binding_, false);
    add(op, "TEXTRACT (L0A)", pp::Pipe::Mte1, count, perItem,
        transfer(lhsElements * bytes, model_.l1ToL0a));
    add(op, "TEXTRACT (L0B)", pp::Pipe::Mte1, count, perItem,
        transfer(rhsElements * bytes, model_.l1ToL0b));
    // m x k times k x n, in fractals of 16 x (32 B of A) x 16; fp32 takes two cycles each.
    const int64_t m = elements(lhs, binding_, true);
    const int64_t k = m > 0 ? lhsElements / m : 0;
    const int64_t n = k > 0 ? rhsElements / k : 0;
    auto up = [](int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; };
    const int64_t f = std::max<int64_t>(1, model_.fractal);
    const double fractals = double(up(m, f)) * double(up(k, 32 / bytes)) * double(up(n, f));
    add(op, "TMATMUL", pp::Pipe::M, count, perItem,
        model_.cubeHead + fractals * (bytes == 4 ? 2 : 1));
  }

  /// Cycles of the vector instruction `name` over `n` elements of `bytes` each.
  double vectorCycles(const std::string& name, int64_t n, int64_t bytes) const {
    auto it = model_.instructionCyclesPerRepeat.find(name);
    const double perRepeat =
        it == model_.instructionCyclesPerRepeat.end() ? model_.cyclesPerRepeat : it->second;
    const int64_t repeat = std::max<int64_t>(1, model_.repeatBytes);
    return model_.vectorHead + perRepeat * double((n * bytes + repeat - 1) / repeat);
  }

  lower::PtoForm form(const ir::Value* v) const {
    auto it = temps_.forms.find(v);
    return it == temps_.forms.end() ? lower::PtoForm::Block : it->second;
  }

  void vector(ir::Operation* op, double count, bool perItem) {
    const ir::Value* result = op->result(0);
    if (form(result) == lower::PtoForm::Expanded) return; // folded into its readers
    const int64_t bytes = elementBytes(lower::ptoComputeType(result, binding_));
    std::optional<std::vector<int64_t>> expandDims; ///< of a bcast folded into this op
    for (size_t k = 0; k < op->numOperands(); ++k) {
      const ir::Value* v = op->operand(k);
      if (form(v) == lower::PtoForm::Expanded) {
        ir::ReduceOrBcastOp bcast(v->definingOp());
        expandDims = bcast.dims();
        v = bcast.input();
      }
      // A CB view in bf16 is converted to float before its first reader (once per walk).
      if (viewBuffer_.count(v) && temps_.bufferOf.count(v) && converted_.insert(v).second)
        add(op, "TCVT", pp::Pipe::V, count, perItem,
            vectorCycles("TCVT", elements(v, binding_, false), 4));
    }
    const bool perRow = form(result) == lower::PtoForm::PerRow;
    const int64_t n = elements(result, binding_, perRow);
    const std::string pto(op->def()->compute.pto);
    if (auto rb = ir::ReduceOrBcastOp::dyn(op); rb && !rb->isBroadcast()) {
      const int64_t source = elements(rb->input(), binding_, false);
      add(op, pto, pp::Pipe::V, count, perItem,
          model_.rowReduceHead + model_.rowReduceCyclesPerElement * double(source));
      return;
    }
    if (auto rb = ir::ReduceOrBcastOp::dyn(op)) { // materialised broadcast
      const std::string name = lower::ptoExpandInstruction(rb->dims());
      add(op, name, pp::Pipe::V, count, perItem, vectorCycles(name, n, bytes));
      return;
    }
    if (expandDims) {
      const std::string name = lower::ptoExpandInstruction(*expandDims, pto);
      add(op, name, pp::Pipe::V, count, perItem, vectorCycles(name, n, bytes));
      return;
    }
    Expected<std::vector<lower::PtoStatement>> program = lower::parsePtoProgram(pto);
    if (!program) return;
    for (const lower::PtoStatement& st : *program)
      add(op, st.instruction, pp::Pipe::V, count, perItem, vectorCycles(st.instruction, n, bytes));
  }

  void store(ir::Operation* op, ir::StoreOp store, double count, bool perItem) {
    const ir::Value* value = store.value();
    if (ir::MatmulOp::dyn(value->definingOp())) return; // the cube wrote the L0C block
    const bool converts = lower::ptoComputeType(value, binding_) !=
                          ir::resolveDataType(store.view()->type().elementType(), binding_);
    if (!converts && !temps_.bufferOf.count(value)) return; // computed in place
    const std::string name = converts ? "TCVT" : "TMOV";
    add(op, name, pp::Pipe::V, count, perItem,
        vectorCycles(name, elements(value, binding_, false), 4));
  }

  const ir::Binding& binding_;
  const pp::Problem& problem_;
  const ir::pto::CostModel& model_;
  const lower::PtoTemporaries& temps_;
  std::map<const ir::Value*, size_t> cbBuffer_;   ///< create_cb results -> buffer
  std::map<const ir::Value*, size_t> viewBuffer_; ///< CB views -> buffer
  std::set<const ir::Value*> converted_;          ///< views a TCVT already copied
};

/// The steady-state interval and what bounds it: the busiest pipe, or two pipes that take turns
/// at a one-slot buffer between them.
void bound(KernelCost& cost, const pp::Problem& problem, const pp::Plan& plan) {
  size_t busiest = 0;
  for (size_t p = 1; p < cost.pipeCycles.size(); ++p)
    if (cost.pipeCycles[p] > cost.pipeCycles[busiest]) busiest = p;
  cost.intervalCycles = cost.pipeCycles[busiest];
  cost.bound = std::string(pp::toString(pp::Pipe(busiest)));
  cost.boundDetail = fmt::format("{} is the busiest pipe", cost.bound);
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const pp::BufferSpec& spec = problem.buffers[b];
    if (plan.buffers[b].slots != 1 || spec.producer == spec.consumer) continue;
    const double turns =
        cost.pipeCycles[size_t(spec.producer)] + cost.pipeCycles[size_t(spec.consumer)];
    if (turns <= cost.intervalCycles) continue;
    cost.intervalCycles = turns;
    cost.bound = fmt::format("{}+{}", pp::toString(spec.producer), pp::toString(spec.consumer));
    cost.boundDetail = fmt::format("{} has one slot: {} and {} take turns", spec.name,
                                   pp::toString(spec.producer), pp::toString(spec.consumer));
  }
}

} // namespace

Expected<KernelCost> costKernel(ir::Operation* kernel, const ir::Binding& binding,
                                const pp::Problem& problem, const pp::Plan& plan,
                                const lower::PtoTemporaries& temporaries,
                                const ir::pto::Device& device) {
  if (!device.cost)
    return Error{fmt::format("{} has no cost model: pto-isa models the transfers and the cube of "
                             "A2/A3 only (docs/pto-cost-facts.md, section 1.9); cost and tune "
                             "--target pto take --device ascend_a2a3",
                             device.name)};
  Expected<std::vector<int64_t>> work = lower::extractWorkDims(kernel, binding);
  if (!work) return work.error();
  KernelCost cost;
  cost.kernel = problem.kernel;
  cost.location = problem.location;
  Pricer pricer(kernel, binding, problem, *device.cost, temporaries);
  if (Status s = pricer.walk(kernel->body(), 1, work->empty()); !s) return s.error();
  cost.instructions = std::move(pricer.instructions);
  for (const InstructionCost& i : cost.instructions)
    (i.perItem ? cost.pipeCycles[size_t(i.pipe)] : cost.onceCycles) += i.count * i.cycles;
  for (int64_t d : *work)
    cost.items *= d;
  cost.cores = lower::ptoCores(problem, *work, device);
  cost.itemsPerCore = (cost.items + cost.cores - 1) / cost.cores;
  bound(cost, problem, plan);
  double allPipes = 0;
  for (double c : cost.pipeCycles)
    allPipes += c;
  // The first item fills the pipeline and the last drains it: one item's pipes end to end, less
  // the interval already counted.
  cost.cycles = double(cost.itemsPerCore) * cost.intervalCycles +
                std::max(0.0, allPipes - cost.intervalCycles) + cost.onceCycles;
  cost.nanoseconds = cost.cycles / device.cost->clockMhz * 1000.0;
  return cost;
}

std::string formatKernelCost(const KernelCost& cost, const ir::pto::Device& device) {
  std::string out = fmt::format("kernel {} ({})\n", cost.kernel, cost.location);
  out +=
      fmt::format("  predicted {:.3f} us: {} cycles at {} MHz on the busiest of {} core{} "
                  "({} of {} work item{})\n",
                  cost.nanoseconds / 1000.0, planner::l1::withThousands(int64_t(cost.cycles)),
                  device.cost ? device.cost->clockMhz : 0, cost.cores, cost.cores == 1 ? "" : "s",
                  cost.itemsPerCore, cost.items, cost.items == 1 ? "" : "s");
  out += fmt::format("  per item: {} cycles, bound by {} ({})\n",
                     planner::l1::withThousands(int64_t(std::ceil(cost.intervalCycles))),
                     cost.bound, cost.boundDetail);
  out += "  busy cycles per item by pipe:";
  for (size_t p = 0; p < cost.pipeCycles.size(); ++p)
    if (cost.pipeCycles[p] > 0)
      out += fmt::format("  {} {}", pp::toString(pp::Pipe(p)),
                         planner::l1::withThousands(int64_t(std::ceil(cost.pipeCycles[p]))));
  out += "\n  instructions (per item unless `once`):\n";
  for (const InstructionCost& i : cost.instructions)
    out += fmt::format("    {:<5} {:>8} x {:>9.1f} cycles  {:<24} {}{}\n", pp::toString(i.pipe),
                       i.count, i.cycles, i.what, i.location, i.perItem ? "" : "  (once)");
  return out;
}

nlohmann::json toJson(const KernelCost& cost) {
  nlohmann::json pipes = nlohmann::json::object();
  for (size_t p = 0; p < cost.pipeCycles.size(); ++p)
    pipes[std::string(pp::toString(pp::Pipe(p)))] = cost.pipeCycles[p];
  nlohmann::json instructions = nlohmann::json::array();
  for (const InstructionCost& i : cost.instructions)
    instructions.push_back({{"what", i.what},
                            {"location", i.location},
                            {"pipe", pp::toString(i.pipe)},
                            {"count", i.count},
                            {"cycles", i.cycles},
                            {"per_item", i.perItem}});
  return {{"kernel", cost.kernel},
          {"location", cost.location},
          {"items", cost.items},
          {"cores", cost.cores},
          {"items_per_core", cost.itemsPerCore},
          {"pipe_cycles_per_item", pipes},
          {"interval_cycles", cost.intervalCycles},
          {"bound", cost.bound},
          {"bound_detail", cost.boundDetail},
          {"once_cycles", cost.onceCycles},
          {"cycles", cost.cycles},
          {"predicted_ns", cost.nanoseconds},
          {"instructions", instructions}};
}

} // namespace ttlplan::search::cost::pto
