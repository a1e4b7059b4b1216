// --bind, --config and --grid (tools/Knobs.h).
#include "tools/Knobs.h"

#include <fmt/format.h>

namespace ttlplan::tools {

void addKnobFlags(CLI::App& command, KnobFlags& knobs, DeviceFlags& device, KnobUse use) {
  command.add_option("--bind", knobs.bind,
                     use == KnobUse::Tune
                         ? "Knob values NAME=V,... (V an integer or a symbol like bf16): the "
                           "knobs not searched"
                         : fmt::format("Knob values NAME=V,... (V an integer or a symbol "
                                       "like bf16); the knobs left out are tuned like `ttlplan "
                                       "tune` (exhaustive up to {0} points, else {0} of a "
                                       "seeded evolve search) or read from --db",
                                       driver::kPlanTuneBudget));
  if (use == KnobUse::Plan)
    command
        .add_option("--db", knobs.db,
                    "Take the knobs --bind leaves out (and the `?` block counts) from the best "
                    "record of this tuning db (`ttlplan tune FILE --bind .. --db DB`) instead of "
                    "searching")
        ->check(CLI::ExistingFile);
  if (use == KnobUse::Plan)
    command.add_flag("--no-tune", knobs.noTune,
                     "A knob that --bind and --config leave unbound is an error instead of "
                     "tuned (for builds that must not search; ttlplan_add_kernel without TUNE)");
  command
      .add_option("--config", knobs.config,
                  "ttnn-default: bind a matmul template's config knobs (in0_block_w, "
                  "out_subblock_h/w, out_block_h/w, per_core_M/N) the way ttnn's default matmul "
                  "heuristic picks them for the bound M, K, N, DTYPE and grid (docs/baselines.md)")
      ->check(CLI::IsMember({"ttnn-default"}));
  command.add_option("--grid", device.grid,
                     "Use a YxX compute grid instead of the device's (at most its Tensix grid)");
}

} // namespace ttlplan::tools
