// The registry of lowering passes, in default-pipeline order (docs/lowering.md). One entry per
// pass: name, summary, options (OptionRecords: name, doc, type, range, default) and factory.
#include "ttlplan/lower/PassManager.h"
#include "ttlplan/lower/passes/Passes.h"
#include "ttlplan/planner/Options.h"

#include <fmt/format.h>

namespace ttlplan::lower {

std::span<const PassInfo> registeredPasses() {
  static const std::vector<PassInfo> passes = {
      {"import-ttlang",
       "convert a module in tt-lang's form (a func.func per thread) into one ttl.kernel "
       "(docs/ttlang-interop.md); other modules are left as they are",
       {},
       createImportTtlangPass},
      {"verify",
       "check the module (ir::verify): structure, CB protocol, types, knobs",
       {},
       createVerifyPass},
      {"infer-pipe-semaphores",
       "number the pipes of each kernel and mark each pipe copy as a send or a receive",
       {},
       createInferPipeSemaphoresPass},
      {"insert-sync",
       "add the ttl.wait a copy lacks, before the first later push or pop of its CB (or a later "
       "copy that overwrites or reads the view it writes or reads)",
       {},
       createInsertSyncPass},
      {"add-reduce-scaler",
       "give a kernel whose compute thread reduces the bf16 scaler CB TT-Metalium's reduce_tile "
       "reads, filled by its first data-movement thread (the planner's entry points add it too)",
       {},
       createAddReduceScalerPass},
      {"plan", "plan L1, CB indices, DST, cores and multicast (lower::planModule)",
       planner::plannerOptions().records, createPlanPass},
      {"apply-plan",
       "write the plan into the IR (ttl.bind_cb, grid, work ranges, pipe nets), substitute the "
       "knob binding and derive the pad value of each tensor that is not whole tiles "
       "(ttl.pad_values)",
       {},
       createApplyPlanPass},
      {"infer-dst",
       "put the DST plan on the compute ops: dst_idx and the sub-block of each store",
       {},
       createInferDstPass},
      {"expand-threads",
       "turn each thread into a func.func with CB arguments, launched from the kernel; work loops "
       "read their ranges from runtime args",
       {},
       createExpandThreadsPass},
      {"lower-compute",
       "lower block compute ops to per-tile DST code over the planned sub-blocks",
       {},
       createLowerComputePass},
      {"lower-data-movement",
       "lower copies to tile reads and writes, and pipes to multicast with the semaphore handshake",
       {kMaxUnrolledTiles},
       createLowerDataMovementPass},
      {"lower-sync",
       "lower CB, wait, barrier, semaphore and core-coordinate ops to kernel API calls",
       {},
       createLowerSyncPass},
  };
  return passes;
}

std::vector<OptionTable> passOptionTables() {
  std::vector<OptionTable> out;
  for (const PassInfo& p : registeredPasses()) {
    if (p.options.empty() || p.name == "plan") continue;
    out.push_back(
        {fmt::format("pass {}", p.name),
         fmt::format("Options of the `{0}` pass: `--pipeline ...,{0}{{NAME=VALUE}}`.", p.name),
         p.options});
  }
  return out;
}

} // namespace ttlplan::lower
