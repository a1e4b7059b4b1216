// The pto target's workflows (docs/pto.md): its device and `plan --target pto`.
#include "ttlplan/codegen/pto/KernelWriter.h"
#include "ttlplan/driver/Driver.h"
#include "ttlplan/ir/Ops.h"
#include "ttlplan/support/JsonText.h"
#include "ttlplan/support/ReadFile.h"

#include <fmt/format.h>

namespace ttlplan::driver {

PlanRequest planRequestOf(const LowerRequest& lower) {
  PlanRequest plan;
  plan.input = lower.input;
  plan.inputChunk = lower.inputChunk;
  plan.solver = lower.solver;
  plan.timeLimitSeconds = lower.timeLimitSeconds;
  plan.knobs = lower.knobs;
  plan.maxBlockCount = lower.maxBlockCount;
  plan.exact = lower.exact;
  return plan;
}

Result<ir::pto::Device> loadPtoDevice(const DeviceRequest& request) {
  if (!request.grid.empty())
    return Error::usage("--grid sets a Tenstorrent compute grid; under --target pto each AI core "
                        "plans alone, so drop --grid");
  if (!request.file.empty()) {
    Expected<std::string> text = readTextFile(request.file);
    if (!text) return Error::input(text.error().message);
    Expected<ir::pto::Device> device = ir::pto::parseDevice(*text, request.file);
    if (!device) return Error::input(device.error().message);
    return std::move(*device);
  }
  Expected<ir::pto::Device> device = ir::pto::builtinDevice(request.name);
  if (!device) return Error::usage(device.error().message);
  return std::move(*device);
}

namespace {

/// "memory 3, require 12": rejections by reason.
std::string rejectionSummary(const std::map<std::string, uint64_t>& rejected) {
  std::string out;
  for (const auto& [reason, count] : rejected)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", reason, count);
  return out.empty() ? "none" : out;
}

} // namespace

Result<PtoPlanned> planPtoFile(const PlanRequest& request, const ir::pto::Device& device,
                               const Log& log) {
  if (!request.knobs.config.empty() || !request.knobs.db.empty())
    return Error::usage(fmt::format("--{} picks Tenstorrent matmul configs or records; it has no "
                                    "meaning under --target pto",
                                    request.knobs.config.empty() ? "db" : "config"));
  lower::PtoPlanOptions options;
  Expected<planner::l1::L1Solver> solver = planner::l1::parseL1Solver(request.solver);
  if (!solver) return Error::usage(solver.error().message);
  options.planner.solver = *solver;
  options.planner.limits.timeLimitSeconds = request.timeLimitSeconds;
  options.planner.exact = request.exact;
  options.maxBlockCount = request.maxBlockCount;
  Result<std::optional<ir::Binding>> bound = parseBindFlag(request.knobs.bind);
  if (!bound) return bound.error();
  options.binding = *bound;
  Result<Source> source = parseVerified(request.input, request.inputChunk, ScalerCbs::Omit);
  if (!source) return source.error();
  const size_t unbound = lower::countUnbound(ir::collectParams(*source->module),
                                             options.binding.value_or(ir::Binding{}));
  if (unbound > 0) {
    if (request.knobs.noTune)
      return Error::input(fmt::format("--no-tune: {} knob{} unbound; bind {} with --bind", unbound,
                                      unbound == 1 ? " is" : "s are",
                                      unbound == 1 ? "it" : "them"));
    if (!device.cost) {
      log(fmt::format("note: --target pto: {} unbound knob{} take{} the first legal binding "
                      "({} has no cost model to tune them with)\n",
                      unbound, unbound == 1 ? "" : "s", unbound == 1 ? "s" : "", device.name));
    } else {
      // As for Tenstorrent: the unbound knobs are tuned, exhaustively, and the fastest taken.
      const ir::Binding fixed = options.binding.value_or(ir::Binding{});
      search::TuneOptions tune;
      tune.top = 1;
      tune.plan.limits = options.planner.limits;
      Result<search::TuneResult> found =
          searchPto(*source->module, device, fixed, tune, request.maxBlockCount);
      if (!found) return found.error();
      if (found->top.empty())
        return Error::make(ErrorKind::Infeasible,
                           fmt::format("{}: no binding of the {} unbound knob{} fits {} ({} "
                                       "points; rejected: {})",
                                       request.input, unbound, unbound == 1 ? "" : "s", device.name,
                                       found->space.size(), rejectionSummary(found->rejected)));
      ir::Binding picked = fixed;
      for (const auto& [name, value] : found->top.front().point)
        picked[name] = value;
      log(fmt::format("tuned {} unbound knobs over {} points (exhaustive), {} fit: picked {} "
                      "(predicted {:.3f} us on {})\n",
                      unbound, found->space.size(), found->feasible,
                      ir::str(found->top.front().point),
                      found->top.front().predictedNs.value_or(0) / 1000.0, device.name));
      options.binding = picked;
    }
  }
  planner::pto::Rejection rejection;
  Expected<lower::PtoModulePlan> plan =
      lower::planPtoModule(*source->module, device, options, &rejection);
  if (!plan) {
    // A malformed problem or a solver failure is an input error; a shortfall is infeasible.
    const bool infeasible = rejection.resource == planner::pto::Resource::Memory ||
                            rejection.resource == planner::pto::Resource::Events;
    return Error::make(infeasible ? ErrorKind::Infeasible : ErrorKind::Input, plan.error().message);
  }
  return PtoPlanned{std::move(*source), std::move(*plan)};
}

Result<Compiled> compilePtoFile(const CompileRequest& request, const ir::pto::Device& device,
                                const Log& log) {
  if (request.output.empty()) return Error::usage("compile needs -o DIR");
  PlanRequest plan = planRequestOf(request.lower);
  Result<PtoPlanned> planned = planPtoFile(plan, device, log);
  if (!planned) return planned.error();
  Compiled out;
  out.sources = planned->source.sources;
  std::vector<ir::Operation*> kernels = planned->source.module->topLevel(ir::KernelOp::kName);
  for (size_t k = 0; k < kernels.size() && k < planned->plan.kernels.size(); ++k) {
    const lower::PtoKernelPlan& kp = planned->plan.kernels[k];
    codegen::pto::KernelInput input;
    input.kernel = kernels[k];
    input.problem = &kp.problem;
    input.plan = &kp.plan;
    input.binding = planned->plan.binding.binding;
    input.file = request.lower.input;
    input.sources = out.sources.get();
    Expected<std::string> text = codegen::pto::writeKernel(input);
    if (!text) return Error::input(text.error().message);
    out.files.push_back({std::string(ir::KernelOp(kernels[k]).symbolName()) + ".cpp", *text});
  }
  const lower::Timings timings = request.timings ? lower::Timings::Shown : lower::Timings::Omitted;
  out.files.push_back({"plan.json", jsonText(lower::toJson(planned->plan, timings), 2) + "\n"});
  out.files.push_back({"report.txt", lower::formatReport(planned->plan, timings)});
  Expected<std::vector<bool>> written = codegen::writeFiles(request.output, out.files);
  if (!written) return Error::input(written.error().message);
  out.written = *written;
  return out;
}

} // namespace ttlplan::driver
