// add-reduce-scaler: TT-Metalium's reduce_init / reduce_tile read a second CB besides their
// input, the scaler: one bf16 tile whose row 0 of every 16x16 face holds the factor each input
// element is multiplied by (1 for a sum or a maximum), zero elsewhere (tenstorrent/tt-metal
// tt_metal/hw/inc/api/compute/reduce.h). A kernel whose compute thread reduces gets that CB
// before planning, so that the L1 plan, the CB indices and the reports count it:
//
//   %reduce_scaler = ttl.create_cb {ttl.reduce_scaler} : !ttl.cb<[1, 1], !ttcore.tile<32x32, bf16>,
//   1> first data-movement thread, first:  cb_reserve, ttl.fill_reduce_scaler {value = 1.0},
//   cb_push compute thread, first: cb_wait {ttl.reduce_scaler} (lower-compute finds the CB by it);
//   compute thread, last:  cb_pop
//
// A kernel that already has its scaler CB is left alone (the pass may run twice).
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/lower/passes/PassUtil.h"
#include "ttlplan/lower/passes/Passes.h"

#include <fmt/format.h>

namespace ttlplan::lower {

namespace {

using ir::Attribute;
using ir::OpBuilder;
using ir::Operation;
using ir::Type;
using ir::Value;

/// The first reduction in `thread`, or null.
Operation* firstReduce(Operation* thread) {
  Operation* found = nullptr;
  thread->walk([&](Operation* op) {
    if (!found && (op->isa("ttl.reduce_sum") || op->isa("ttl.reduce_max"))) found = op;
  });
  return found;
}

/// Adds the scaler CB to `kernel` if it reduces and has none; an error text when it cannot.
std::optional<std::string> addScaler(Operation* kernel, int& added) {
  if (kernel->numRegions() != 1 || kernel->region(0).empty()) return std::nullopt;
  ir::Block& body = kernel->region(0).front();
  Operation* compute = nullptr;
  Operation* mover = nullptr;
  Operation* lastCb = nullptr;
  for (auto& op : body.operations()) {
    if (op->isa("ttl.compute_thread") && !compute) compute = op.get();
    if (op->isa("ttl.datamovement_thread") && !mover) mover = op.get();
    if (op->isa(ir::CreateCBOp::kName)) {
      if (op->attribute(kReduceScalerAttr)) return std::nullopt; // already there
      lastCb = op.get();
    }
  }
  Operation* reduce = compute ? firstReduce(compute) : nullptr;
  if (!reduce) return std::nullopt;
  if (!mover)
    return fmt::format("{}: error: {} needs a reduce scaler tile in a CB, which a data-movement "
                       "thread fills; this kernel has none: add a ttl.datamovement_thread",
                       reduce->location().str(), reduce->name());
  if (compute->numRegions() != 1 || compute->region(0).empty() || mover->numRegions() != 1 ||
      mover->region(0).empty())
    return std::nullopt; // the verifier reports malformed threads

  const Type tile = Type::tile(32, 32, ir::DataType::BF16);
  const Type cbType =
      Type::circularBuffer({ir::Dim::fixed(1), ir::Dim::fixed(1)}, tile, ir::Dim::fixed(1));
  const Type view = Type::tensor({ir::Dim::fixed(1), ir::Dim::fixed(1)}, tile);
  OpBuilder at = lastCb ? OpBuilder::after(lastCb) : OpBuilder::atStart(body);
  at.setLocation(reduce->location());
  Operation* create = at.create(std::string(ir::CreateCBOp::kName), {}, {cbType},
                                {{std::string(kReduceScalerAttr), Attribute::unit()}});
  Value* cb = create->result(0);
  cb->setNameHint("reduce_scaler");

  OpBuilder fill = OpBuilder::atStart(mover->region(0).front()).withLocation(reduce->location());
  Value* space = fill.create(std::string(ir::CBReserveOp::kName), {cb}, {view})->result(0);
  fill.create("ttl.fill_reduce_scaler", {space}, {},
              {{"value", Attribute::floating(1.0, Type::floating(ir::FloatKind::F32))}});
  fill.create(std::string(ir::CBPushOp::kName), {cb});

  ir::Block& computeBody = compute->region(0).front();
  OpBuilder first = OpBuilder::atStart(computeBody).withLocation(reduce->location());
  first.create(std::string(ir::CBWaitOp::kName), {cb}, {view},
               {{std::string(kReduceScalerAttr), Attribute::unit()}});
  OpBuilder last = OpBuilder::atEnd(computeBody).withLocation(reduce->location());
  last.create(std::string(ir::CBPopOp::kName), {cb});
  ++added;
  return std::nullopt;
}

class AddReduceScalerPass : public Pass {
public:
  bool run(PassContext& context) override {
    int added = 0;
    std::optional<std::string> error = addReduceScalers(context.module, &added);
    statistic("scaler-cbs", "reduce scaler CBs added") += added;
    if (error) reportError(context, *error);
    return !error;
  }
};

} // namespace

std::optional<std::string> addReduceScalers(ir::Module& module, int* added) {
  int count = 0;
  for (Operation* kernel : kernelsOf(module))
    if (std::optional<std::string> error = addScaler(kernel, count)) return error;
  if (added) *added = count;
  return std::nullopt;
}

std::unique_ptr<Pass> createAddReduceScalerPass() {
  return std::make_unique<AddReduceScalerPass>();
}

} // namespace ttlplan::lower
