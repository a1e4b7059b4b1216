#pragma once
// The pto target's cost model (docs/pto.md, "Cost"): the predicted time of a planned kernel on an
// Ascend AI core. Every instruction the pto code generator emits for one work item is priced on
// its pipe from the device's cost numbers (ir::pto::CostModel: pto-isa's own A2/A3 model,
// docs/pto-cost-facts.md); the pipes run concurrently, so in steady state an item takes as long
// as its busiest pipe, unless a buffer between two pipes has one slot, which makes them take
// turns. A core runs its share of the items one after another, the first and last partly alone
// (fill and drain).
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/PtoDevice.h"
#include "ttlplan/lower/PtoPlanner.h"
#include "ttlplan/planner/pto/Plan.h"
#include "ttlplan/support/Expected.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ttlplan::search::cost::pto {

/// One instruction of a work item (or of the kernel's start or end) with its price.
struct InstructionCost {
  std::string what;     ///< "TLOAD %cbx", "TEXP", "TEXTRACT %cba.l0a"
  std::string location; ///< the TTL op it comes from
  planner::pto::Pipe pipe = planner::pto::Pipe::V;
  double count = 0;    ///< times per work item (loop trips multiplied); per kernel if once
  double cycles = 0;   ///< cycles of one
  bool perItem = true; ///< inside the work loop (else once per core)
};

/// The prediction for one kernel.
struct KernelCost {
  std::string kernel;                                        ///< "@softmax_row"
  std::string location;                                      ///< of the ttl.kernel
  int64_t items = 1;                                         ///< work items (1 without `work`)
  int cores = 1;                                             ///< cores the items are shared among
  int64_t itemsPerCore = 1;                                  ///< the busiest core's share
  std::array<double, planner::pto::kPipeCount> pipeCycles{}; ///< busy cycles per item, by Pipe
  double intervalCycles = 0; ///< cycles between two items in steady state
  std::string bound;         ///< "V", or "MTE2+V" when a one-slot buffer makes them take turns
  std::string boundDetail;   ///< the sentence behind `bound`
  double onceCycles = 0;     ///< instructions outside the work loop
  double cycles = 0;         ///< the busiest core's total
  double nanoseconds = 0;    ///< cycles at the device's clock
  std::vector<InstructionCost> instructions;
};

/// The cost of `kernel` (verified, planned as `problem` / `plan` under `binding`, with the
/// `temporaries` its problem was extracted with) on `device`; an error when the device has no
/// cost numbers or a loop's trip count is not static.
Expected<KernelCost> costKernel(ir::Operation* kernel, const ir::Binding& binding,
                                const planner::pto::Problem& problem,
                                const planner::pto::Plan& plan,
                                const lower::PtoTemporaries& temporaries,
                                const ir::pto::Device& device);

/// The terminal view of one kernel's cost (per-pipe cycles, the bound, the instructions).
std::string formatKernelCost(const KernelCost& cost, const ir::pto::Device& device);
/// The same as data (docs/pto.md lists the fields).
nlohmann::json toJson(const KernelCost& cost);

} // namespace ttlplan::search::cost::pto
