#include "ttlplan/search/cost/Report.h"

#include "ttlplan/ir/Ops.h"
#include "ttlplan/search/cost/Extract.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ttlplan::search::cost {

namespace {

double microseconds(double ns) {
  return ns / 1000.0;
}

nlohmann::json threadJson(const ThreadReport& t) {
  return {{"thread", toString(t.role)},
          {"end_cycles", t.stats.end},
          {"busy_cycles", t.stats.busy},
          {"stall_cb_full_cycles", t.stats.stallCbFull},
          {"stall_cb_empty_cycles", t.stats.stallCbEmpty},
          {"stall_transfer_cycles", t.stats.stallTransfer},
          {"stall_net_cycles", t.stats.stallNet}};
}

nlohmann::json kernelJson(const KernelCost& k) {
  const Prediction& p = k.prediction;
  const CoreClass& critical = k.program.classes[size_t(p.criticalClass)];
  nlohmann::json cbs = nlohmann::json::array();
  for (size_t i = 0; i < critical.cbs.size() && i < p.criticalCbStall.size(); ++i)
    cbs.push_back({{"cb", critical.cbs[i].name}, {"stall_cycles", p.criticalCbStall[i]}});
  nlohmann::json threads = nlohmann::json::array();
  for (const ThreadReport& t : p.criticalThreads)
    threads.push_back(threadJson(t));
  return {{"kernel", k.kernel},
          {"location", k.location},
          {"grid", {k.gridRows, k.gridCols}},
          {"predicted_ns", p.deviceNs},
          {"predicted_host_ns", p.hostNs},
          {"cycles", p.cycles},
          {"ideal_cycles", p.idealCycles},
          {"utilization", p.utilization},
          {"bound", std::string(toString(p.bound))},
          {"bounds_cycles",
           {{"compute", p.analytic.compute},
            {"dram", p.analytic.dram},
            {"noc", p.analytic.noc},
            {"latency", p.analytic.latency},
            {"imbalance", p.analytic.imbalance}}},
          {"dram_bytes", p.analytic.dramBytes},
          {"multicast_bytes", p.analytic.mcastBytes},
          {"core_classes", k.program.classes.size()},
          {"critical_core",
           {{"class", critical.name},
            {"cores", critical.cores},
            {"threads", threads},
            {"cb_stalls", cbs}}},
          {"tradeoffs", toJson(k.tradeoffs)},
          {"simulations", p.simulations},
          {"simulated_steps", p.simulatedSteps}};
}

void formatKernel(const KernelCost& k, int64_t clockMhz, std::string& out) {
  const Prediction& p = k.prediction;
  out +=
      fmt::format("{} ({}x{} grid): predicted {:.2f} us ({:.0f} cycles at {} MHz + launch)\n",
                  k.kernel, k.gridRows, k.gridCols, microseconds(p.deviceNs), p.cycles, clockMhz);
  out += fmt::format("  utilization {:.1f} % (ideal {:.0f} cycles); bound: {}\n",
                     100 * p.utilization, p.idealCycles, toString(p.bound));
  const Analytic& a = p.analytic;
  out += fmt::format("  bounds in cycles: compute {:.0f}, dram {:.0f}, noc {:.0f}, latency {:.0f}, "
                     "imbalance {:.0f}\n",
                     a.compute, a.dram, a.noc, a.latency, a.imbalance);
  const CoreClass& critical = k.program.classes[size_t(p.criticalClass)];
  out += fmt::format("  critical core: {} ({} core{} like it, {} class{} of cores in all)\n",
                     critical.name, critical.cores, critical.cores == 1 ? "" : "s",
                     k.program.classes.size(), k.program.classes.size() == 1 ? "" : "es");
  out += fmt::format("    {:<8} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "thread", "busy", "CB full",
                     "CB empty", "transfers", "multicast");
  for (const ThreadReport& t : p.criticalThreads)
    out += fmt::format("    {:<8} {:>12.0f} {:>12.0f} {:>12.0f} {:>12.0f} {:>12.0f}\n",
                       toString(t.role), t.stats.busy, t.stats.stallCbFull, t.stats.stallCbEmpty,
                       t.stats.stallTransfer, t.stats.stallNet);
  std::string stalls;
  for (size_t i = 0; i < critical.cbs.size() && i < p.criticalCbStall.size(); ++i)
    if (p.criticalCbStall[i] >= 0.5)
      stalls += fmt::format("{}{} {:.0f}", stalls.empty() ? "" : ", ", critical.cbs[i].name,
                            p.criticalCbStall[i]);
  if (!stalls.empty()) out += "  cycles waited on each CB: " + stalls + "\n";
  out += formatTradeoffs(k.tradeoffs);
}

} // namespace

const char* toString(ThreadRole role) {
  switch (role) {
  case ThreadRole::Noc0:
    return "noc0";
  case ThreadRole::Noc1:
    return "noc1";
  case ThreadRole::Compute:
    return "compute";
  }
  return "?";
}

Expected<CostReport> costModule(ir::Module& module, const ir::Device& device,
                                const lower::PlanOptions& options) {
  Expected<lower::ModulePlan> plan = lower::planModule(module, device, options);
  if (!plan) return plan.error();
  return costPlan(module, std::move(*plan), device, options.maxBlockCount);
}

Expected<CostReport> costPlan(ir::Module& module, lower::ModulePlan plan, const ir::Device& device,
                              int maxBlockCount) {
  CostReport report;
  report.file = plan.file;
  report.device = device.name;
  report.clockMhz = device.clockMhz;
  report.binding = ir::str(plan.binding.binding);
  report.bindingSource = plan.binding.source;
  report.modelVersion = std::string(kModelVersion);
  report.calibrationHash = calibrationHash(device);
  std::vector<ir::Operation*> kernelOps = module.topLevel(ir::KernelOp::kName);
  for (size_t k = 0; k < plan.kernels.size() && k < kernelOps.size(); ++k) {
    const lower::KernelPlan& kernel = plan.kernels[k];
    Expected<Program> program = extractProgram(kernelOps[k], kernel, plan.binding.binding, device);
    if (!program) return program.error();
    Expected<Prediction> prediction = predict(*program, device);
    if (!prediction)
      return Error{fmt::format("{}: error: {}", kernel.location, prediction.error().message)};
    std::vector<Tradeoff> tradeoffs =
        explainTradeoffs(kernel, *program, *prediction, device, maxBlockCount);
    report.kernels.push_back({kernel.name, kernel.location, kernel.grid.rows, kernel.grid.cols,
                              std::move(*program), std::move(*prediction), std::move(tradeoffs)});
  }
  report.plan = std::move(plan);
  return report;
}

nlohmann::json toJson(const std::vector<Tradeoff>& tradeoffs) {
  nlohmann::json out = nlohmann::json::array();
  for (const Tradeoff& t : tradeoffs)
    out.push_back({{"kind", t.kind},
                   {"subject", t.subject},
                   {"text", t.text},
                   {"cost_percent", t.costPercent ? nlohmann::json(*t.costPercent) : nullptr},
                   {"alternative", t.alternative}});
  return out;
}

std::vector<std::string> planNotes(const CostReport& report) {
  std::vector<std::string> out;
  for (const KernelCost& k : report.kernels)
    out.push_back(fmt::format("  predicted: {:.2f} us, bound: {}, utilization {:.1f} % "
                              "(details: ttlplan cost)\n",
                              microseconds(k.prediction.deviceNs), toString(k.prediction.bound),
                              100 * k.prediction.utilization) +
                  formatTradeoffs(k.tradeoffs));
  return out;
}

void addCostToPlanJson(nlohmann::json& planJson, const CostReport& report) {
  nlohmann::json& kernels = planJson["kernels"];
  for (size_t k = 0; k < report.kernels.size() && k < kernels.size(); ++k) {
    const Prediction& p = report.kernels[k].prediction;
    kernels[k]["cost"] = {{"predicted_ns", p.deviceNs},
                          {"bound", std::string(toString(p.bound))},
                          {"utilization", p.utilization},
                          {"tradeoffs", toJson(report.kernels[k].tradeoffs)}};
  }
}

std::string formatTradeoffs(const std::vector<Tradeoff>& tradeoffs) {
  if (tradeoffs.empty()) return "";
  std::string out = "  trade-offs:\n";
  for (const Tradeoff& t : tradeoffs)
    out += fmt::format("    - {}\n", t.text);
  return out;
}

std::string formatCostReport(const CostReport& report) {
  std::string out;
  for (const KernelCost& k : report.kernels)
    formatKernel(k, report.clockMhz, out);
  if (!report.binding.empty())
    out += fmt::format("binding: {} ({})\n", report.binding, report.bindingSource);
  out += fmt::format("device {}, cost model {}, calibration {}\n", report.device,
                     report.modelVersion, report.calibrationHash);
  return out;
}

nlohmann::json toJson(const CostReport& report) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelCost& k : report.kernels)
    kernels.push_back(kernelJson(k));
  nlohmann::json out = {{"schema_version", kCostReportSchemaVersion},
                        {"model_version", report.modelVersion},
                        {"calibration_hash", report.calibrationHash},
                        {"file", report.file},
                        {"device", report.device},
                        {"binding", report.binding},
                        {"kernels", kernels}};
  if (report.kernels.size() == 1) {
    out["predicted_ns"] = kernels[0]["predicted_ns"];
    out["utilization"] = kernels[0]["utilization"];
    out["bound"] = kernels[0]["bound"];
  }
  return out;
}

} // namespace ttlplan::search::cost
