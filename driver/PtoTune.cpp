// The pto target's `cost` and `tune` (docs/pto.md, "Cost" and "Tuning").
#include "ttlplan/driver/Driver.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/search/PtoEvaluator.h"

#include <fmt/format.h>

namespace ttlplan::driver {

namespace {

/// Usage errors for `device` without cost numbers and for Tenstorrent-only tuning flags.
std::optional<Error> refuseCostless(const ir::pto::Device& device, std::string_view command) {
  if (device.cost) return std::nullopt;
  return Error::usage(fmt::format("{} --target pto: {} has no cost model (pto-isa models the "
                                  "transfers and the cube of A2/A3 only, docs/pto-cost-facts.md); "
                                  "use --device ascend_a2a3",
                                  command, device.name));
}

} // namespace

Result<PtoCosted> costPtoFile(const PlanRequest& request, const ir::pto::Device& device,
                              const Log& log) {
  if (std::optional<Error> refused = refuseCostless(device, "cost")) return *refused;
  Result<PtoPlanned> planned = planPtoFile(request, device, log);
  if (!planned) return planned.error();
  PtoCosted out{std::move(*planned), {}, 0};
  std::vector<ir::Operation*> kernels = out.planned.source.module->topLevel(ir::KernelOp::kName);
  for (size_t k = 0; k < kernels.size() && k < out.planned.plan.kernels.size(); ++k) {
    const lower::PtoKernelPlan& kp = out.planned.plan.kernels[k];
    const ir::Binding& binding = out.planned.plan.binding.binding;
    Expected<lower::PtoTemporaries> temporaries = lower::ptoTemporaries(kernels[k], binding);
    if (!temporaries) return Error::input(temporaries.error().message);
    Expected<search::cost::pto::KernelCost> cost = search::cost::pto::costKernel(
        kernels[k], binding, kp.problem, kp.plan, *temporaries, device);
    if (!cost) return Error::input(cost.error().message);
    out.nanoseconds += cost->nanoseconds;
    out.kernels.push_back(std::move(*cost));
  }
  return out;
}

nlohmann::json ptoCostJson(const PtoCosted& costed) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const search::cost::pto::KernelCost& k : costed.kernels)
    kernels.push_back(search::cost::pto::toJson(k));
  nlohmann::json binding = nlohmann::json::object();
  for (const auto& [name, value] : costed.planned.plan.binding.binding)
    binding[name] = value;
  return {{"schema_version", 1},
          {"target", "pto"},
          {"file", costed.planned.plan.file},
          {"device", costed.planned.plan.device},
          {"binding", binding},
          {"predicted_ns", costed.nanoseconds},
          {"kernels", kernels}};
}

std::string formatPtoCost(const PtoCosted& costed, const ir::pto::Device& device) {
  std::string out =
      fmt::format("cost of {} on {} (--target pto)\n", costed.planned.plan.file, device.name);
  out += fmt::format("binding: {}\n\n", costed.planned.plan.binding.binding.empty()
                                            ? "none (the module has no knobs)"
                                            : ir::str(costed.planned.plan.binding.binding));
  for (const search::cost::pto::KernelCost& k : costed.kernels)
    out += search::cost::pto::formatKernelCost(k, device) + "\n";
  out += fmt::format("predicted {:.3f} us for {} kernel{}\n", costed.nanoseconds / 1000.0,
                     costed.kernels.size(), costed.kernels.size() == 1 ? "" : "s");
  return out;
}

Result<PtoTuned> tunePtoFile(const TuneRequest& request, const ir::pto::Device& device,
                             const std::function<void(const search::Space&)>& beforeSearch,
                             const std::function<void(const search::TuneProgress&)>& progress) {
  if (std::optional<Error> refused = refuseCostless(device, "tune")) return *refused;
  if (!request.db.empty() || request.resume || !request.knobs.config.empty() ||
      !request.knobs.db.empty())
    return Error::usage("--db, --resume and --config are for Tenstorrent tuning so far; "
                        "`tune --target pto` takes --bind, --strategy, --budget-evals, "
                        "--time-limit, --threads, --seed, --shard and --top");
  Result<Source> source = parseVerified(request.input, request.inputChunk, ScalerCbs::Omit);
  if (!source) return source.error();
  const ir::Module& module = *source->module;
  Result<std::optional<ir::Binding>> bound = parseBindFlag(request.knobs.bind);
  if (!bound) return bound.error();
  ir::Binding fixed = bound->value_or(ir::Binding{});
  if (Status s = lower::checkRequested(ir::collectParams(module), fixed); !s)
    return Error::input(s.error().message);
  Result<search::TuneOptions> options = tuneOptions(request);
  if (!options) return options.error();
  options->progress = progress;
  Result<search::TuneResult> result =
      searchPto(module, device, fixed, *options, request.maxBlockCount, beforeSearch);
  if (!result) return result.error();
  return PtoTuned{std::move(*source), std::move(fixed), std::move(*result)};
}

Result<search::TuneResult>
searchPto(const ir::Module& module, const ir::pto::Device& device, const ir::Binding& fixed,
          const search::TuneOptions& options, int maxBlockCount,
          const std::function<void(const search::Space&)>& beforeSearch) {
  // The pto planner chooses the `?` slot counts itself: the space is the knobs alone.
  Expected<search::Space> space =
      search::tuningSpace(module, fixed, /*plannerDimensions=*/false, maxBlockCount);
  if (!space) return Error::input(space.error().message);
  if (beforeSearch) beforeSearch(*space);
  planner::pto::PlanOptions plan;
  plan.limits = options.plan.limits;
  search::PtoPointEvaluator evaluator(module, device, fixed, plan, maxBlockCount);
  Expected<search::TuneResult> result = search::tuneWith(*space, evaluator, options);
  if (!result) return Error::input(result.error().message);
  return std::move(*result);
}

} // namespace ttlplan::driver
