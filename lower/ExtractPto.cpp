// The pto target's problem extraction (PtoPlanner.h): CBs with their memory and pipes, the matmul
// staging buffers, the chain temporaries, and the located refusals of what PTO cannot express.
#include "ttlplan/ir/Ops.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/lower/PtoPlanner.h"
#include "ttlplan/planner/colouring/Colouring.h"
#include "ttlplan/planner/l1/Solve.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace ttlplan::lower {

namespace {

namespace pp = planner::pto;

/// Bytes of one L0C accumulator element: fp32.
constexpr int64_t kAccumulatorBytes = 4;

std::string located(const ir::Operation* op, const std::string& what) {
  return fmt::format("{}: error: {}", op->location().str(), what);
}

/// Bytes of one element in a pto-isa tile (half, bfloat16_t, float, int32_t, uint32_t).
Expected<int64_t> elementBytes(ir::DataType type) {
  switch (type) {
  case ir::DataType::BF16:
  case ir::DataType::F16:
    return 2;
  case ir::DataType::F32:
  case ir::DataType::I32:
  case ir::DataType::U32:
    return 4;
  case ir::DataType::BFP8_B:
  case ir::DataType::BFP4_B:
    break;
  }
  return Error{fmt::format("{} is a Tenstorrent block-float format, which pto-isa tiles do not "
                           "hold (they hold half, bfloat16_t, float and 32-bit integers); use bf16",
                           ir::toString(type))};
}

Expected<int64_t> ptoTileBytes(ir::DataType type, const ir::Type& tile) {
  Expected<int64_t> element = elementBytes(type);
  if (!element) return element.error();
  return tile.tileRows() * tile.tileColumns() * *element;
}

/// The first construct of `kernel` that PTO cannot express, as a located error.
std::optional<std::string> refusal(ir::Operation* kernel) {
  static const std::set<std::string_view> multicast = {
      "ttl.create_pipe", "ttl.if_src", "ttl.if_dst",   "ttl.pipenet_scope",
      "ttl.is_src",      "ttl.is_dst", "ttl.is_active"};
  static const std::set<std::string_view> semaphores = {
      "ttl.create_semaphore", "ttl.semaphore_wait", "ttl.semaphore_set", "ttl.semaphore_inc"};
  std::optional<std::string> out;
  kernel->walk([&](ir::Operation* op) {
    if (out) return;
    const std::string_view name = op->name();
    if (multicast.count(name))
      out = located(op, fmt::format("{}: multicast has no meaning under --target pto: an Ascend "
                                    "AI core has no core-to-core multicast (each core loads its "
                                    "own tiles from global memory with TLOAD); read the data on "
                                    "every core instead of sending it through a pipe",
                                    name));
    else if (semaphores.count(name))
      out = located(op, fmt::format("{}: semaphores between cores have no meaning under --target "
                                    "pto: pto-isa's set_flag/wait_flag order the pipes of one "
                                    "core, not one core against another",
                                    name));
    else if (name == "ttl.fill_reduce_scaler")
      out = located(op, "a reduction (ttl.reduce_sum / ttl.reduce_max, with the scaler CB ttlplan "
                        "adds for it): --target pto does not plan reductions yet (pto-isa's "
                        "TROWSUM/TROWMAX take no scaler)");
    else if (const ir::OpDef* def = op->def();
             def && def->compute.kind != ir::ComputeKind::None && def->compute.pto.empty())
      out = located(op, fmt::format("{} has no pto-isa instruction in ttlplan yet; `ttlplan ops` "
                                    "lists each compute op's instruction under --target pto",
                                    name));
  });
  return out;
}

/// How the threads use one CB.
struct CbUse {
  bool filledByCompute = false, filledByMover = false;
  bool drainedByCompute = false, drainedByMover = false;
  int matmulOperand = -1;            ///< 0: a matmul's lhs reads its view, 1: the rhs
  bool readByOtherCompute = false;   ///< a compute op other than matmul reads its view
  bool matmulResult = false;         ///< a matmul result is stored into its view
  ir::Operation* firstUse = nullptr; ///< for messages
};

/// The views of CBs: the value a cb_wait or cb_reserve gives, and the CB's position.
using Views = std::map<const ir::Value*, size_t>;

/// Which threads fill and drain each CB, and how the compute thread reads the views.
Expected<std::vector<CbUse>> cbUses(ir::Operation* kernel, const std::vector<CbInfo>& cbs) {
  std::map<const ir::Value*, size_t> cbIndex;
  for (size_t i = 0; i < cbs.size(); ++i)
    cbIndex[ir::CreateCBOp(cbs[i].op).cb()] = i;
  std::vector<CbUse> uses(cbs.size());
  Views views;
  std::string error;
  for (const std::unique_ptr<ir::Operation>& thread : kernel->body().operations()) {
    std::optional<ir::ThreadOp> t = ir::ThreadOp::dyn(thread.get());
    if (!t) continue;
    const bool compute = t->isCompute();
    thread->walk([&](ir::Operation* op) {
      if (!error.empty() || op->numOperands() == 0) return;
      const std::string_view name = op->name();
      const bool fills = name == "ttl.cb_reserve" || name == "ttl.cb_push";
      const bool drains = name == "ttl.cb_wait" || name == "ttl.cb_pop";
      if (fills || drains) {
        auto it = cbIndex.find(op->operand(0));
        if (it == cbIndex.end()) return;
        CbUse& use = uses[it->second];
        if (!use.firstUse) use.firstUse = op;
        (fills ? (compute ? use.filledByCompute : use.filledByMover)
               : (compute ? use.drainedByCompute : use.drainedByMover)) = true;
        if (op->numResults() == 1) views[op->result(0)] = it->second;
        return;
      }
      if (!compute) return;
      if (auto matmul = ir::MatmulOp::dyn(op)) {
        for (int side = 0; side < 2; ++side) {
          auto it = views.find(side == 0 ? matmul->lhs() : matmul->rhs());
          if (it == views.end()) {
            error = located(op, "ttl.matmul under --target pto reads both operands from CBs "
                                "(TLOAD into L1, TEXTRACT into L0A/L0B); this operand is computed");
            return;
          }
          uses[it->second].matmulOperand = side;
        }
        return;
      }
      if (auto store = ir::StoreOp::dyn(op)) {
        auto it = views.find(store->view());
        if (it != views.end() && ir::MatmulOp::dyn(store->value()->definingOp()))
          uses[it->second].matmulResult = true;
        return;
      }
      for (size_t k = 0; k < op->numOperands(); ++k)
        if (auto it = views.find(op->operand(k)); it != views.end())
          uses[it->second].readByOtherCompute = true;
    });
  }
  if (!error.empty()) return Error{error};
  return uses;
}

/// The memory and pipes of CB `cb` under `use`, or why PTO cannot place it.
Expected<pp::BufferSpec> cbBuffer(const CbInfo& cb, const CbUse& use, int maxBlockCount) {
  pp::BufferSpec b;
  b.name = cb.name;
  b.location = cb.location;
  b.role = pp::BufferRole::Cb;
  b.blockShape = cb.blockShape;
  b.dataType = cb.dataType;
  b.slotBytes = cb.blockBytes();
  b.slots = cb.blockCount;
  b.maxSlots = std::max(1, maxBlockCount);
  b.producer = use.filledByCompute ? pp::Pipe::V : pp::Pipe::Mte2;
  b.consumer = use.drainedByCompute ? pp::Pipe::V : pp::Pipe::Mte3;
  if (!use.filledByCompute && !use.filledByMover) b.producer = b.consumer;
  if (!use.drainedByCompute && !use.drainedByMover) b.consumer = b.producer;
  if (use.matmulOperand >= 0) {
    if (use.readByOtherCompute || use.filledByCompute)
      return Error{fmt::format(
          "{}: error: CB {} feeds a ttl.matmul and is also {}: under --target pto a matmul "
          "operand lives in L1, loaded by TLOAD and read only by the cube (through L0A/L0B)",
          cb.location, cb.name,
          use.filledByCompute ? "filled by the compute thread" : "read by another compute op")};
    b.memory = pp::Memory::L1;
    b.consumer = pp::Pipe::Mte1;
  } else if (use.matmulResult) {
    if (use.drainedByCompute)
      return Error{fmt::format(
          "{}: error: CB {} holds a ttl.matmul result that the compute thread reads again: under "
          "--target pto a matmul accumulates in L0C, which only TSTORE (the FIX pipe) drains; "
          "store the result and read it back in another kernel",
          cb.location, cb.name)};
    b.memory = pp::Memory::L0c;
    b.producer = pp::Pipe::M;
    b.consumer = pp::Pipe::Fix;
    // L0C holds fp32 accumulators whatever type is stored (pto-isa's Acc tiles are float).
    std::optional<ir::DataType> stored = ir::parseDataType(cb.dataType);
    Expected<int64_t> element = elementBytes(stored.value_or(ir::DataType::F32));
    b.slotBytes = cb.blockBytes() / (element ? *element : 4) * kAccumulatorBytes;
  }
  return b;
}

/// A staging buffer in L0A / L0B for the matmul operand CB `source`.
pp::BufferSpec stagingBuffer(const pp::BufferSpec& source, int side, size_t sourceIndex) {
  pp::BufferSpec b = source;
  b.role = pp::BufferRole::Staging;
  b.memory = side == 0 ? pp::Memory::L0a : pp::Memory::L0b;
  b.name = source.name + (side == 0 ? ".l0a" : ".l0b");
  b.slots = std::nullopt; // ping-pong when it fits
  b.maxSlots = 2;
  b.producer = pp::Pipe::Mte1;
  b.consumer = pp::Pipe::M;
  b.source = int(sourceIndex);
  return b;
}

/// Bytes of a block value (a tensor of tiles) under `binding`; nullopt when it is not one.
std::optional<int64_t> blockBytes(const ir::Value* value, const ir::Binding& binding) {
  const ir::Type& type = value->type();
  if (!type.is(ir::TypeKind::Tensor) || !type.elementType().is(ir::TypeKind::Tile))
    return std::nullopt;
  int64_t tiles = 1;
  for (const ir::Dim& d : type.shape()) {
    std::optional<int64_t> v = ir::resolveDim(d, binding);
    if (!v || *v < 1) return std::nullopt;
    tiles *= *v;
  }
  std::optional<ir::DataType> dt = ir::resolveDataType(type.elementType(), binding);
  if (!dt) return std::nullopt;
  Expected<int64_t> tile = ptoTileBytes(*dt, type.elementType());
  if (!tile) return std::nullopt;
  return tiles * *tile;
}

pp::MemoryLimit memoryLimit(const ir::pto::Device& device, pp::Memory memory) {
  const ir::pto::Buffer* buffer = device.buffer(pp::toString(memory));
  if (!buffer) return {0, 1};
  // A reserved window ends the room for tiles (A2/A3's UB: the top 8 KiB, docs/pto-facts.md).
  return {buffer->reserved ? buffer->reserved->start : buffer->sizeBytes,
          std::max<int64_t>(1, buffer->alignmentBytes)};
}

/// A located error when one slot of a buffer is larger than its memory's room.
std::optional<std::string> oversize(const pp::Problem& problem) {
  for (const pp::BufferSpec& b : problem.buffers) {
    const pp::MemoryLimit& limit = problem.memories[size_t(b.memory)];
    if (b.slotBytes <= limit.capacity) continue;
    return fmt::format("{}: error: {} {}: one {} of {} B is larger than the {} B of {} on {}; use "
                       "a smaller block",
                       b.location, b.role == pp::BufferRole::Cb ? "CB" : "buffer", b.name,
                       b.role == pp::BufferRole::Temporary ? "value" : "block",
                       planner::l1::withThousands(b.slotBytes),
                       planner::l1::withThousands(limit.capacity), pp::toString(b.memory),
                       problem.device);
  }
  return std::nullopt;
}

} // namespace

std::optional<ir::DataType> ptoComputeType(const ir::Value* value, const ir::Binding& binding) {
  const ir::Type& type = value->type();
  if (!type.is(ir::TypeKind::Tensor) || !type.elementType().is(ir::TypeKind::Tile))
    return std::nullopt;
  std::optional<ir::DataType> dt = ir::resolveDataType(type.elementType(), binding);
  if (dt == ir::DataType::BF16) return ir::DataType::F32;
  return dt;
}

namespace {

/// The block value's data type as stored (its tile type under the binding).
std::optional<ir::DataType> storedType(const ir::Value* value, const ir::Binding& binding) {
  const ir::Type& type = value->type();
  if (!type.is(ir::TypeKind::Tensor) || !type.elementType().is(ir::TypeKind::Tile))
    return std::nullopt;
  return ir::resolveDataType(type.elementType(), binding);
}

/// A vector op of the pto target: a compute op with a pto-isa instruction but a matmul's.
bool isVectorOp(ir::Operation* op) {
  return isComputeChainOp(op) && !ir::MatmulOp::dyn(op);
}

} // namespace

// Positions are those of one walk of the kernel (PtoPlanner.h says what needs a temporary).
PtoTemporaries ptoTemporaries(ir::Operation* kernel, const ir::Binding& binding) {
  std::vector<const ir::Value*> values;
  std::vector<ir::Operation*> defs; ///< the defining op, or the first op that converts a view
  std::vector<planner::colouring::Interval> live;
  std::map<const ir::Value*, size_t> index;
  std::set<const ir::Value*> views; ///< cb_wait results
  auto add = [&](const ir::Value* v, ir::Operation* at, int64_t lower, int64_t upper) {
    index[v] = values.size();
    values.push_back(v);
    defs.push_back(at);
    live.push_back({lower, upper});
  };
  int64_t position = 0;
  kernel->walk([&](ir::Operation* op) {
    ++position;
    if (op->name() == "ttl.cb_wait" && op->numResults() == 1) views.insert(op->result(0));
    for (size_t k = 0; k < op->numOperands(); ++k) {
      const ir::Value* v = op->operand(k);
      auto store = ir::StoreOp::dyn(op);
      auto it = index.find(v);
      if (it != index.end()) {
        // A store reads the value only when it converts it into the view (bf16 from float).
        if (!store || storedType(store->view(), binding) != ptoComputeType(v, binding))
          live[it->second].upper = position + 1;
      } else if (views.count(v) && isVectorOp(op) &&
                 storedType(v, binding) != ptoComputeType(v, binding)) {
        add(v, op, position, position + 1); // TCVT into float right before its first reader
      }
    }
    if (!isVectorOp(op)) return;
    add(op->result(0), op, position, position); // empty until something needs it in a buffer
  });
  std::vector<int> colours = planner::colouring::colourIntervals(live);
  PtoTemporaries out;
  out.buffers.resize(size_t(planner::colouring::span(colours)));
  for (size_t v = 0; v < values.size(); ++v) {
    if (colours[v] < 0) continue;
    out.bufferOf[values[v]] = size_t(colours[v]);
    pp::BufferSpec& b = out.buffers[size_t(colours[v])];
    const std::string name = valueName(values[v]);
    const std::optional<ir::DataType> compute = ptoComputeType(values[v], binding);
    if (b.name.empty()) {
      b.location = defs[v]->location().str();
      b.role = pp::BufferRole::Temporary;
      b.memory = pp::Memory::Ub;
      b.slots = 1;
      b.producer = b.consumer = pp::Pipe::V;
      // The first value's block (a value sharing the buffer may differ: its own tile type is
      // assigned at the same address), in the type vector ops compute in.
      for (const ir::Dim& d : values[v]->type().shape())
        b.blockShape.push_back(ir::resolveDim(d, binding).value_or(0));
      if (compute) b.dataType = std::string(ir::toString(*compute));
    }
    b.name += (b.name.empty() ? "" : "/") + name;
    int64_t bytes = 1;
    if (std::optional<int64_t> stored = blockBytes(values[v], binding)) {
      Expected<int64_t> from =
          elementBytes(storedType(values[v], binding).value_or(ir::DataType::F32));
      Expected<int64_t> to = elementBytes(compute.value_or(ir::DataType::F32));
      bytes = from && to ? *stored / *from * *to : *stored;
    }
    b.slotBytes = std::max(b.slotBytes, bytes);
  }
  return out;
}

Expected<pp::Problem> extractPtoProblem(ir::Operation* kernel, const ir::Binding& binding,
                                        const ir::pto::Device& device, int maxBlockCount) {
  if (std::optional<std::string> why = refusal(kernel)) return Error{*why};
  Expected<std::vector<CbInfo>> cbs = extractCbs(kernel, binding, ptoTileBytes);
  if (!cbs) return cbs.error();
  Expected<std::vector<CbUse>> uses = cbUses(kernel, *cbs);
  if (!uses) return uses.error();
  ir::KernelOp view(kernel);
  pp::Problem problem;
  problem.kernel = fmt::format("@{}", view.symbolName());
  problem.location = kernel->location().str();
  problem.device = device.name;
  problem.eventIds = device.eventIdsPerPipePair;
  for (int m = 0; m < pp::kMemoryCount; ++m)
    problem.memories[size_t(m)] = memoryLimit(device, pp::Memory(m));
  std::vector<pp::BufferSpec> staging;
  for (size_t i = 0; i < cbs->size(); ++i) {
    Expected<pp::BufferSpec> b = cbBuffer((*cbs)[i], (*uses)[i], maxBlockCount);
    if (!b) return b.error();
    b->source = int(i);
    if ((*uses)[i].matmulOperand >= 0)
      staging.push_back(stagingBuffer(*b, (*uses)[i].matmulOperand, i));
    problem.buffers.push_back(std::move(*b));
  }
  for (pp::BufferSpec& b : staging)
    problem.buffers.push_back(std::move(b));
  for (pp::BufferSpec& b : ptoTemporaries(kernel, binding).buffers)
    problem.buffers.push_back(std::move(b));
  if (std::optional<std::string> why = oversize(problem)) return Error{*why};
  return problem;
}

} // namespace ttlplan::lower
