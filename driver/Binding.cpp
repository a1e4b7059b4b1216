// The binding the planning workflows plan with (Driver.h, choosePlanBinding): --bind and
// --config, then the knobs they leave unbound tuned by search::tune, or read from the best record
// of a tuning db (--db). lower/ keeps its own default (the first legal binding) for callers that
// want no search; the search lives here because lower/ must not depend on search/.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/driver/RecordJson.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/search/Tuner.h"
#include "ttlplan/search/TuningDb.h"
#include "ttlplan/search/baselines/TtnnBinding.h"
#include "ttlplan/search/cost/Model.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>
#include <set>

namespace ttlplan::driver {

namespace {

std::string plural(size_t n, const std::string& word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

/// The `ttlplan tune` command that writes the records --db needs for this run.
std::string tuneCommand(const KnobRequest& flags, const ir::Module& module) {
  std::string out = "ttlplan tune " + module.fileName;
  if (!flags.bind.empty()) out += " --bind " + flags.bind;
  if (!flags.config.empty()) out += " --config " + flags.config;
  return out + " --db NEW_DB";
}

/// "--bind, then WHAT" or "WHAT" when nothing was bound (the plan report's binding source).
std::string sourceText(const ir::Binding& fixed, const std::string& what) {
  return fixed.empty() ? what : "--bind, then " + what;
}

/// What choosePlanBinding picked: the record and how it was found.
struct Pick {
  search::Record record;
  std::string line; ///< the stderr line, without "picked ..."
  std::string what; ///< how it was found, for the report ("tuned: the fastest predicted of ...")
};

/// The best point search::tune finds over the unbound knobs (and `?` block counts).
Result<Pick> tuneBest(const ir::Module& module, const ir::Device& device, const ir::Binding& fixed,
                      size_t unbound, const planner::kernel::PlanOptions& planWith) {
  Expected<search::Space> space = search::tuningSpace(module, fixed, true, planWith.maxBlockCount);
  if (!space) return Error::input(space.error().message);
  bool exhaustive = space->size() <= kPlanTuneBudget;
  search::TuneOptions options;
  options.strategy.kind =
      exhaustive ? search::StrategyKind::Exhaustive : search::StrategyKind::Evolve;
  options.strategy.budgetEvals = exhaustive ? 0 : kPlanTuneBudget;
  options.strategy.seed = 1;
  options.top = 1;
  options.plan = planWith;
  options.keepKernelPlans = true; // the pick is lowered without planning it again
  Expected<search::TuneResult> result = search::tune(module, device, fixed, options);
  if (!result) return Error::input(result.error().message);
  std::string points = exhaustive ? fmt::format("{} points (exhaustive)", result->evaluated)
                                  : fmt::format("{} of {} points (evolve, seed 1)",
                                                result->evaluated, space->size());
  if (result->top.empty()) {
    std::vector<std::string> reasons;
    for (const auto& [reason, count] : result->rejected)
      reasons.push_back(fmt::format("{} by {}", count, reason));
    Error e = Error::make(
        ErrorKind::Infeasible,
        fmt::format("no binding of the {} fits: {} evaluated; rejected {}{}",
                    plural(unbound, "unbound knob"), points, fmt::join(reasons, ", "),
                    exhaustive ? "; bind other values with --bind"
                               : "; bind more knobs with --bind, or search longer with "
                                 "`ttlplan tune --budget-evals N --db DB` and plan with --db "
                                 "DB"));
    return e;
  }
  size_t counts = size_t(std::count_if(
      space->dimensions().begin(), space->dimensions().end(),
      [](const search::Dimension& d) { return search::isBlockCountDimension(d.name); }));
  std::string what = plural(unbound, "unbound knob");
  if (counts) what += " and " + plural(counts, "block count");
  std::string searched = exhaustive ? fmt::format("all {} points", result->evaluated)
                                    : fmt::format("{} points of {} searched by evolve, seed 1",
                                                  result->evaluated, space->size());
  return Pick{result->top.front(),
              fmt::format("tuned {} over {}, {} fit", what, points, result->feasible),
              "tuned: the fastest predicted of " + searched};
}

/// The best usable record of --db for this kernel, binding and device.
Result<Pick> dbBest(const KnobRequest& flags, const ir::Module& module, const ir::Device& device,
                    const ir::Binding& fixed, const Log& log) {
  Expected<search::DbFile> file = search::read(flags.db);
  if (!file) return Error::input("--db: " + file.error().message);
  for (const std::string& w : file->warnings)
    log("ttlplan: warning: " + w + "\n");
  search::DbHeader now = search::tuningHeader(module, device, fixed);
  if (!search::keyDifferences(file->header, now).empty()) {
    return Error::input(fmt::format("--db: the records of '{}' are not for this kernel, --bind "
                                    "and device ({}); `{}` writes them",
                                    flags.db, search::keyDifferenceText(file->header, now),
                                    tuneCommand(flags, module)));
  }
  if (!search::versionDifferences(file->header, now).empty())
    log(fmt::format("ttlplan: warning: '{}' was costed by {} / {}, this ttlplan is {} / "
                    "{}; `ttlplan db rerank {} --kernel {}` re-costs it\n",
                    flags.db, file->header.planner, file->header.costModel,
                    planner::kernel::kPlannerVersion, search::cost::kModelVersion, flags.db,
                    module.fileName));
  const search::Record* best = search::best(file->records);
  if (!best) {
    size_t ok = 0, stale = 0;
    for (const search::Record& r : file->records) {
      ok += r.ok() && !r.stale;
      stale += r.stale;
    }
    return Error::input(fmt::format("--db: '{}' has no feasible record for this kernel ({}: "
                                    "{} rejected, {} stale); `{}` writes them",
                                    flags.db, plural(file->records.size(), "record"),
                                    file->records.size() - ok - stale, stale,
                                    tuneCommand(flags, module)));
  }
  return Pick{*best, fmt::format("best record of --db {}", flags.db),
              "the best record of tuning db " + flags.db};
}

} // namespace

Result<std::optional<ir::Binding>> parseBindFlag(const std::string& bind) {
  if (bind.empty()) return std::optional<ir::Binding>();
  Expected<ir::Binding> parsed = lower::parseBindingList(bind);
  if (!parsed) return Error::usage(parsed.error().message);
  return std::optional<ir::Binding>(*parsed);
}

Result<std::optional<ir::Binding>> resolveKnobs(const KnobRequest& flags, const ir::Module& module,
                                                const ir::Device& device, const Log& log) {
  Result<std::optional<ir::Binding>> parsed = parseBindFlag(flags.bind);
  if (!parsed) return parsed.error();
  const std::optional<ir::Binding> binding = *parsed;
  if (flags.config.empty()) return binding;
  auto bind = flags.config == "tt-mlir-rule" ? search::baselines::ttMlirRuleBinding
                                             : search::baselines::ttnnDefaultBinding;
  Expected<search::baselines::DefaultBinding> config =
      bind(ir::collectParams(module), binding.value_or(ir::Binding{}), device);
  if (!config) return Error::input(config.error().message);
  log(fmt::format("{}: {} (in0_block_w {}, out_subblock {}x{}, out_block {}x{}, per_core {}x{}): "
                  "{}\n",
                  flags.config, search::baselines::familyName(config->config.family),
                  config->config.in0BlockW, config->config.outSubblockH,
                  config->config.outSubblockW, config->config.outBlockH, config->config.outBlockW,
                  config->config.perCoreM, config->config.perCoreN, config->config.why));
  return std::optional<ir::Binding>(config->binding);
}

Result<lower::PlanOptions> choosePlanBinding(const KnobRequest& flags, const ir::Module& module,
                                             const ir::Device& device, lower::PlanOptions options,
                                             const Log& log) {
  Result<std::optional<ir::Binding>> bound = resolveKnobs(flags, module, device, log);
  if (!bound) return bound.error();
  options.binding = *bound;
  ir::Binding fixed = bound->value_or(ir::Binding{});
  std::vector<ir::Param> params = ir::collectParams(module);
  size_t unbound = lower::countUnbound(params, fixed);
  if (flags.db.empty() && unbound == 0) return options; // lower plans the binding as it is
  if (flags.db.empty() && flags.noTune) {
    std::set<std::string> names;
    for (const ir::Param& p : params)
      if (!fixed.count(p.name)) names.insert("@" + p.name);
    return Error::input(fmt::format("--no-tune: {} {} unbound ({}); bind {} with --bind, or drop "
                                    "--no-tune to tune {} (TUNE in ttlplan_add_kernel)",
                                    unbound, unbound == 1 ? "knob is" : "knobs are",
                                    fmt::join(names, ", "), unbound == 1 ? "it" : "them",
                                    unbound == 1 ? "it" : "them"));
  }
  if (Status s = lower::checkRequested(params, fixed); !s) return Error::input(s.error().message);
  // The search plans with the default solver and no limits (only the deepest block count is
  // the request's); its plans stand for the request's when those are the same options.
  planner::kernel::PlanOptions searchPlan;
  searchPlan.maxBlockCount = options.maxBlockCount;
  Result<Pick> pick = flags.db.empty() ? tuneBest(module, device, fixed, unbound, searchPlan)
                                       : dbBest(flags, module, device, fixed, log);
  if (!pick) return pick.error();
  // The fastest point, or tt-mlir's rule's config when the model cannot tell them apart
  // (docs/tuning.md, "The pick"), as `tune` reports it.
  RulePick chosen = pickOverRule(module, device, fixed, pick->record, searchPlan);
  if (chosen.pick.keptBaseline) {
    pick->line += fmt::format("; kept tt-mlir's rule (the fastest is predicted {:.1f} % faster, "
                              "within the cost model's ranking uncertainty of {:.1f} %)",
                              100 * chosen.pick.predictedGain, 100 * chosen.pick.margin);
    const bool tuned = pick->what.starts_with("tuned: ");
    pick->what = fmt::format("{}tt-mlir's rule, kept over {} ({:.1f} % faster, within the cost "
                             "model's ranking uncertainty of {:.1f} %)",
                             tuned ? "tuned: " : "", pick->what.substr(tuned ? 7 : 0),
                             100 * chosen.pick.predictedGain, 100 * chosen.pick.margin);
    pick->record = chosen.pick.record;
  }
  options.bindingSource = sourceText(fixed, pick->what);
  // The search's plans of the pick, when it kept them (a db record's is planned again).
  options = pointPlanOptions(module, fixed, pick->record, searchPlan, std::move(options));
  log(fmt::format("{}: picked {} (predicted {:.1f} us)\n", pick->line, pointText(pick->record),
                  pick->record.predictedNs.value_or(0) / 1000.0));
  return options;
}

} // namespace ttlplan::driver
