#include "ttlplan/driver/Options.h"

#include "ttlplan/driver/Driver.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/PtoDevice.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ttlplan::driver {

const OptionTable& targetOptions() {
  using enum OptionType;
  static const std::string deviceDoc = fmt::format(
      "Target device, a built-in description: {} (`ttlplan devices`); under --target pto one of "
      "{} (default {})",
      fmt::join(ir::builtinDeviceNames(), ", "), fmt::join(ir::pto::builtinDeviceNames(), ", "),
      kDefaultPtoDevice);
  static const std::string bindDoc = fmt::format(
      "Knob values NAME=V,... (V an integer or a symbol like bf16). The planning commands tune "
      "the knobs left out like `ttlplan tune` (exhaustive up to {0} points, else {0} of a seeded "
      "evolve search) or read them from --db; `tune` searches them",
      kPlanTuneBudget);
  static const OptionTable table{
      "target",
      "What `plan`, `cost`, `lower`, `compile`, `run` and `tune` work on besides the file: the "
      "device and the knob binding (`tune` has a --db of its own, see tune).",
      {
          {"target",
           "What to plan for: tenstorrent (Tensix cores through TT-Metalium) or pto (Ascend AI "
           "cores through pto-isa: `plan`, `cost`, `tune`, `compile` and `run`, docs/pto.md)",
           Choice,
           0,
           0,
           {kTenstorrentTarget, kPtoTarget},
           kTenstorrentTarget},
          {"device", deviceDoc, Text, 0, 0, {}, ir::kDefaultDevice},
          {"device-file",
           "A device description JSON file (docs/devices.md); wins over --device",
           Text,
           0,
           0,
           {},
           ""},
          {"grid",
           "Use a YxX compute grid instead of the device's (at most its Tensix grid)",
           Text,
           0,
           0,
           {},
           ""},
          {"bind", bindDoc, Text, 0, 0, {}, ""},
          {"config",
           "Bind a matmul template's config knobs (in0_block_w, out_subblock_h/w, "
           "out_block_h/w, per_core_M/N) as a baseline picks them for the bound M, K, N, DTYPE "
           "and grid: ttnn-default (ttnn's default matmul heuristic) or tt-mlir-rule (tt-mlir's "
           "TTNNSetMatmulProgramConfig rule over the sweeps' candidates) (docs/baselines.md)",
           Choice,
           0,
           0,
           {"ttnn-default", "tt-mlir-rule"},
           ""},
          {"db",
           "Take the knobs --bind leaves out (and the `?` block counts) from the best record of "
           "this tuning db (`ttlplan tune FILE --bind .. --db DB`) instead of searching",
           Text,
           0,
           0,
           {},
           ""},
          {"no-tune",
           "A knob that --bind and --config leave unbound is an error instead of tuned (builds "
           "that must not search; ttlplan_add_kernel without TUNE)",
           Flag,
           0,
           0,
           {},
           "false"},
      }};
  return table;
}

} // namespace ttlplan::driver
