// planFile, costFile and lowerFile: the planner alone, with the cost model, and the whole
// lowering pipeline.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/ir/Rewrite.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/lower/PassManager.h"
#include "ttlplan/lower/passes/Passes.h"

#include <algorithm>
#include <fmt/format.h>

namespace ttlplan::driver {

namespace {

/// The planner's options from the request's flags; a bad --solver is a Usage error.
Result<lower::PlanOptions> planOptions(const std::string& solverName, double timeLimitSeconds,
                                       int maxBlockCount, const planner::l1::ExactParams& exact) {
  Expected<planner::l1::L1Solver> solver = planner::l1::parseL1Solver(solverName);
  if (!solver) return Error::usage(solver.error().message);
  lower::PlanOptions options;
  options.solver = *solver;
  options.limits.timeLimitSeconds = timeLimitSeconds;
  options.maxBlockCount = maxBlockCount;
  options.exact = exact;
  return options;
}

/// What planFile and costFile plan: the verified source and the options with the binding chosen.
struct PlanInput {
  Source source;
  lower::PlanOptions options;
};

Result<PlanInput> planInput(const PlanRequest& request, const ir::Device& device, const Log& log) {
  Result<lower::PlanOptions> options =
      planOptions(request.solver, request.timeLimitSeconds, request.maxBlockCount, request.exact);
  if (!options) return options.error();
  options->kernelBlockCounts = request.kernelBlockCounts;
  Result<Source> source = parseVerified(request.input, request.inputChunk);
  if (!source) return source.error();
  Result<lower::PlanOptions> chosen =
      choosePlanBinding(request.knobs, *source->module, device, *options, log);
  if (!chosen) return chosen.error();
  return PlanInput{std::move(*source), std::move(*chosen)};
}

} // namespace

Source copySource(const Source& source) {
  return Source{std::make_unique<ir::Module>(ir::cloneModule(*source.module)), source.sources,
                source.verified};
}

Result<Planned> planSource(Source source, const lower::PlanOptions& options,
                           const ir::Device& device) {
  lower::PlanFailure failure;
  Expected<lower::ModulePlan> plan = lower::planModule(*source.module, device, options, &failure);
  if (!plan) {
    // A rejection of a malformed problem (an extraction error) is an input error, with its data.
    bool infeasible =
        !failure.kernel.empty() && failure.rejection.resource != planner::kernel::Resource::Invalid;
    Error e =
        Error::make(infeasible ? ErrorKind::Infeasible : ErrorKind::Input, plan.error().message);
    if (!failure.kernel.empty()) e.infeasible = std::move(failure);
    return e;
  }
  Planned out{std::move(source), std::move(*plan), std::nullopt, ""};
  Expected<search::cost::CostReport> cost =
      search::cost::costPlan(*out.source.module, out.plan, device, options.maxBlockCount);
  if (cost)
    out.cost = std::move(*cost);
  else
    out.costError = cost.error().message;
  return out;
}

Result<Planned> planFile(const PlanRequest& request, const ir::Device& device, const Log& log) {
  Result<PlanInput> input = planInput(request, device, log);
  if (!input) return input.error();
  return planSource(std::move(input->source), input->options, device);
}

Result<search::cost::CostReport> costFile(const PlanRequest& request, const ir::Device& device,
                                          const Log& log) {
  Result<Planned> planned = planFile(request, device, log);
  if (!planned) return planned.error();
  if (!planned->cost) return Error::input(planned->costError);
  return std::move(*planned->cost);
}

Result<Lowered> lowerFile(const LowerRequest& request, const ir::Device& device, const Log& log) {
  Result<Source> source = parseImported(request.input, request.inputChunk);
  if (!source) return source.error();
  return lowerSource(std::move(*source), request, device, log);
}

Result<Lowered> lowerSource(Source source, const LowerRequest& request, const ir::Device& device,
                            const Log& log, std::optional<lower::PlanOptions> chosen) {
  Result<lower::PlanOptions> options =
      planOptions(request.solver, request.timeLimitSeconds, request.maxBlockCount, request.exact);
  if (!options) return options.error();
  options->kernelBlockCounts = request.kernelBlockCounts;
  Expected<lower::PassManager> manager = lower::PassManager::parse(
      request.pipeline.empty() ? lower::kDefaultPipeline : request.pipeline);
  if (!manager) return Error::usage(manager.error().message);
  for (const std::string& name : request.printIrAfter)
    if (!lower::lookupPass(name))
      return Error::usage(fmt::format("--print-ir-after: unknown pass '{}'", name));

  Lowered out;
  out.sources = std::move(source.sources);
  out.module = std::move(source.module);
  bool verified = source.verified;
  ir::DiagnosticEngine diags;
  if (chosen) {
    options = std::move(*chosen);
  } else {
    // The binding (unbound knobs tuned or read from --db) matters only to a pipeline that plans,
    // and the search needs a verified module (an invalid one fails in the pipeline, as before).
    const std::vector<std::string>& names = manager->passNames();
    const bool hasPlanPass = std::find(names.begin(), names.end(), "plan") != names.end();
    ir::DiagnosticEngine verifyDiags;
    if (!verified && hasPlanPass) verified = ir::verify(*out.module, verifyDiags);
    if (verified && hasPlanPass) {
      // The search plans the kernel as the pipeline will: with its reduce scaler CB when the
      // pipeline adds one (the pass leaves a kernel that has it alone).
      if (std::find(names.begin(), names.end(), "add-reduce-scaler") != names.end())
        if (std::optional<std::string> error = lower::addReduceScalers(*out.module))
          return Error::make(ErrorKind::Input, *error);
      Result<lower::PlanOptions> picked =
          choosePlanBinding(request.knobs, *out.module, device, *options, log);
      if (!picked) return picked.error();
      options = std::move(picked);
    } else {
      Result<std::optional<ir::Binding>> bound =
          resolveKnobs(request.knobs, *out.module, device, log);
      if (!bound) return bound.error();
      options->binding = *bound;
    }
  }
  lower::PassContext context{
      *out.module,          device,  diags, *options, std::nullopt, request.forcedCbAddresses,
      request.validatePlan, verified};
  lower::PipelineOptions pipeline;
  pipeline.printIrAfterAll = request.printIrAfterAll;
  pipeline.printIrAfter = request.printIrAfter;
  pipeline.timePasses = request.timePasses;
  pipeline.generic = request.generic;
  pipeline.dump = [&log](const std::string& text) { log(text); };
  if (!manager->run(context, pipeline)) return Error::located(diags, out.sources);
  out.warnings = diags.diagnostics();
  out.plan = std::move(context.plan);
  return out;
}

} // namespace ttlplan::driver
