// The pto target's workflows (docs/pto.md): its device and `plan --target pto`.
#include "ttlplan/driver/Driver.h"
#include "ttlplan/support/ReadFile.h"

#include <fmt/format.h>

namespace ttlplan::driver {

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
  if (!request.knobs.bind.empty()) {
    Expected<ir::Binding> bound = lower::parseBindingList(request.knobs.bind);
    if (!bound) return Error::usage(bound.error().message);
    options.binding = *bound;
  }
  Result<Source> source = parseVerified(request.input, request.inputChunk);
  if (!source) return source.error();
  std::vector<ir::Param> params = ir::collectParams(*source->module);
  size_t unbound = 0;
  for (const ir::Param& p : params)
    unbound += options.binding && options.binding->count(p.name) ? 0 : 1;
  if (unbound > 0) {
    if (request.knobs.noTune)
      return Error::input(fmt::format("--no-tune: {} knob{} unbound; bind {} with --bind", unbound,
                                      unbound == 1 ? " is" : "s are",
                                      unbound == 1 ? "it" : "them"));
    log(fmt::format("note: --target pto: {} unbound knob{} take{} the first legal binding "
                    "(`tune` does not search the pto target yet)\n",
                    unbound, unbound == 1 ? "" : "s", unbound == 1 ? "s" : ""));
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

} // namespace ttlplan::driver
