// tuneFile: the autotuner on a file (search/Tuner.h), with its records file, the baselines (ttnn's
// default config, tt-mlir's rule) and the pick.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/ir/ImportTtlang.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/search/TuningDb.h"
#include "ttlplan/search/baselines/TtnnBinding.h"

namespace ttlplan::driver {

Result<search::TuneOptions> tuneOptions(const TuneRequest& request) {
  search::TuneOptions options;
  Expected<search::StrategyKind> kind = search::parseStrategy(request.strategy);
  if (!kind) return Error::usage(kind.error().message);
  Expected<search::Shard> shard = request.shard.empty() ? Expected<search::Shard>(search::Shard{})
                                                        : search::parseShard(request.shard);
  if (!shard) return Error::usage(shard.error().message);
  options.strategy = {*kind, request.budgetEvals, request.seed, *shard};
  options.timeLimitSeconds = request.timeLimitSeconds;
  options.threads = request.threads;
  options.top = request.top;
  options.keepPoints = request.keepPoints;
  options.plan.maxBlockCount = request.maxBlockCount;
  options.plan.limits.nodeLimit = request.nodeLimit;
  return options;
}

std::optional<TuneBaseline> evaluateBaseline(std::string_view config, const ir::Module& module,
                                             const ir::Device& device, const ir::Binding& fixed,
                                             const planner::kernel::PlanOptions& plan,
                                             const ir::Binding& anchor, bool keepKernelPlans) {
  auto bind = config == "tt-mlir-rule" ? search::baselines::ttMlirRuleBinding
                                       : search::baselines::ttnnDefaultBinding;
  ir::Binding partial = fixed;
  partial.insert(anchor.begin(), anchor.end());
  Expected<search::baselines::DefaultBinding> bound =
      bind(ir::collectParams(module), partial, device);
  if (!bound) return std::nullopt;
  ir::Binding point;
  for (const auto& [name, value] : bound->binding)
    if (!fixed.count(name)) point[name] = value;
  TuneBaseline b{bound->binding, search::evaluatePoint(module, device, point, fixed, plan, nullptr,
                                                       keepKernelPlans)};
  if (!b.record.ok()) return std::nullopt;
  return b;
}

RulePick pickOverRule(const ir::Module& module, const ir::Device& device, const ir::Binding& fixed,
                      const search::Record& fastest, const planner::kernel::PlanOptions& plan) {
  // The rule sizes a config for the problem and precision the fastest point has: only the
  // config knobs (and the planner's block counts) may differ between the two.
  ir::Binding anchor = search::splitPoint(fastest.point, fixed).knobs;
  for (const char* name : search::baselines::kConfigKnobs)
    anchor.erase(name);
  anchor.erase("grid_x");
  for (const auto& [name, value] : fixed)
    anchor.erase(name);
  RulePick out;
  out.rule = evaluateBaseline("tt-mlir-rule", module, device, fixed, plan, anchor,
                              /*keepKernelPlans=*/true); // it may be the pick
  std::optional<search::Record> baseline;
  if (out.rule) baseline = out.rule->record;
  out.pick = search::choosePick(fastest, baseline, device.cost.rankUncertainty);
  return out;
}

Result<Tuned> tuneFile(const TuneRequest& request, const ir::Device& device, const Log& log,
                       const std::function<void(const search::Space&)>& beforeSearch,
                       const std::function<void(const search::TuneProgress&)>& progress) {
  Result<Source> source = parseVerified(request.input, request.inputChunk);
  if (!source) return source.error();
  const ir::Module& module = *source->module;
  for (ir::Operation* kernel : module.topLevel("ttl.kernel")) // tuning ranks points by cost
    if (std::string why = ir::outsideEndRefusal(*kernel, "tune"); !why.empty())
      return Error::input(why);
  Result<std::optional<ir::Binding>> bound = resolveKnobs(request.knobs, module, device, log);
  if (!bound) return bound.error();
  ir::Binding fixed = bound->value_or(ir::Binding{});
  if (Status s = lower::checkRequested(ir::collectParams(module), fixed); !s)
    return Error::input(s.error().message);
  Result<search::TuneOptions> options = tuneOptions(request);
  if (!options) return options.error();
  options->progress = progress;
  options->keepKernelPlans = request.keepPickPlans;
  Expected<search::Space> space =
      search::tuningSpace(module, fixed, options->plannerDimensions, request.maxBlockCount);
  if (!space) return Error::input(space.error().message);
  if (Expected<std::unique_ptr<search::Strategy>> probe =
          search::makeStrategy(*space, options->strategy);
      !probe)
    return Error::usage(probe.error().message);
  if (request.resume && request.db.empty()) return Error::usage("--resume needs --db FILE");
  if (beforeSearch) beforeSearch(*space);
  std::optional<search::TuningDb> db;
  if (!request.db.empty()) {
    search::DbHeader header = search::tuningHeader(module, device, fixed);
    Expected<search::TuningDb> opened =
        request.resume
            ? search::TuningDb::open(request.db, header, search::OpenMode::CreateIfMissing)
            : search::TuningDb::create(request.db, header);
    if (!opened)
      return Error::input(opened.error().message +
                          (request.resume ? "" : " (use --resume to continue it)"));
    db = std::move(*opened);
    for (const std::string& w : db->warnings())
      log("ttlplan: warning: " + w + "\n");
    options->db = &*db;
  }
  Expected<search::TuneResult> result = search::tune(module, device, fixed, *options);
  if (!result) return Error::input(result.error().message);
  Tuned out{std::move(*source), fixed,        std::move(*result), std::nullopt,
            std::nullopt,       std::nullopt, options->plan};
  out.baseline = evaluateBaseline("ttnn-default", *out.source.module, device, fixed, options->plan);
  if (!out.result.top.empty()) {
    RulePick p =
        pickOverRule(*out.source.module, device, fixed, out.result.top.front(), options->plan);
    out.rule = std::move(p.rule);
    out.pick = std::move(p.pick);
  }
  return out;
}

lower::PlanOptions pointPlanOptions(const ir::Module& module, const ir::Binding& fixed,
                                    const search::Record& record,
                                    const planner::kernel::PlanOptions& searchedWith,
                                    lower::PlanOptions options) {
  search::PointParts parts = search::splitPoint(record.point, fixed);
  options.binding = parts.knobs;
  options.kernelBlockCounts = search::kernelBlockCounts(module, parts.blockCounts);
  if (record.kernelPlans.plans && planner::kernel::samePlanner(options, searchedWith))
    options.kernelPlans = *record.kernelPlans.plans;
  return options;
}

Result<lower::PlanOptions> pickPlanOptions(const Tuned& tuned, int maxBlockCount) {
  if (!tuned.pick) return Error::input("no point fits, so there is no pick to plan");
  lower::PlanOptions options;
  options.maxBlockCount = maxBlockCount;
  return pointPlanOptions(*tuned.source.module, tuned.fixed, tuned.pick->record, tuned.plannedWith,
                          std::move(options));
}

} // namespace ttlplan::driver
