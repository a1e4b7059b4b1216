// --bind, --config and --grid (tools/Knobs.h).
#include "tools/Knobs.h"

#include "ttlplan/lower/Extract.h"
#include "ttlplan/search/baselines/TtnnBinding.h"

#include <algorithm>
#include <fmt/format.h>
#include <iostream>
#include <optional>

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
                                       kPlanTuneBudget));
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

namespace {

// "8" -> 8; nullopt unless 1 to 4 digits.
std::optional<int> smallNumber(const std::string& text) {
  if (text.empty() || text.size() > 4 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoi(text);
}

} // namespace

bool applyGridFlag(const std::string& grid, ir::Device& device, int& exitCode) {
  size_t x = grid.find('x');
  std::optional<int> rows = x == std::string::npos ? std::nullopt : smallNumber(grid.substr(0, x));
  std::optional<int> cols = x == std::string::npos ? std::nullopt : smallNumber(grid.substr(x + 1));
  if (!rows || !cols) {
    std::cerr << fmt::format("ttlplan: error: --grid '{}' is not ROWSxCOLUMNS (e.g. 8x8)\n", grid);
    exitCode = kUsageError;
    return false;
  }
  Status ok = ir::setComputeGrid(device, *rows, *cols);
  if (ok) return true;
  std::cerr << "ttlplan: error: --grid: " << ok.error().message << "\n";
  exitCode = kUsageError;
  return false;
}

bool resolveKnobs(const KnobFlags& flags, const ir::Module& module, const ir::Device& device,
                  std::optional<ir::Binding>& binding, int& exitCode) {
  binding.reset();
  if (!flags.bind.empty()) {
    Expected<ir::Binding> parsed = lower::parseBindingList(flags.bind);
    if (!parsed) {
      std::cerr << "ttlplan: error: " << parsed.error().message << "\n";
      exitCode = kUsageError;
      return false;
    }
    binding = *parsed;
  }
  if (flags.config.empty()) return true;
  Expected<search::baselines::DefaultBinding> config = search::baselines::ttnnDefaultBinding(
      ir::collectParams(module), binding.value_or(ir::Binding{}), device);
  if (!config) {
    std::cerr << "ttlplan: error: " << config.error().message << "\n";
    exitCode = kInvalidInput;
    return false;
  }
  std::cerr << fmt::format("ttnn-default: {} (in0_block_w {}, out_subblock {}x{}, out_block {}x{}, "
                           "per_core {}x{}): {}\n",
                           search::baselines::familyName(config->config.family),
                           config->config.in0BlockW, config->config.outSubblockH,
                           config->config.outSubblockW, config->config.outBlockH,
                           config->config.outBlockW, config->config.perCoreM,
                           config->config.perCoreN, config->config.why);
  binding = config->binding;
  return true;
}

} // namespace ttlplan::tools
