// JSON and terminal views of a ModulePlan.
#include "ttlplan/lower/PlanReport.h"

#include "ttlplan/planner/l1/Solve.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace ttlplan::lower {

using planner::l1::withThousands;

namespace {

std::string shapeStr(const std::vector<int64_t>& shape) {
  return fmt::format("{}", fmt::join(shape, "x"));
}

/// The name of the CB that carries `ic` of chain `index` of `k`.
std::string intermediateName(const KernelPlan& k, size_t index,
                             const planner::dst::IntermediateCb& ic) {
  for (const CbPlan& cb : k.cbs)
    if (cb.intermediate && cb.chain == int(index) && cb.value == ic.value) return cb.name;
  return "?";
}

nlohmann::json cbJson(const CbPlan& cb) {
  return {{"name", cb.name},
          {"location", cb.location},
          {"index", cb.index},
          {"address", cb.address},
          {"end", cb.address + cb.bytes},
          {"bytes", cb.bytes},
          {"block_shape", cb.blockShape},
          {"block_count", cb.blockCount},
          {"data_type", cb.dataType},
          {"tile_bytes", cb.tileBytes},
          {"chosen_by_planner", cb.chosenByPlanner},
          {"intermediate", cb.intermediate}};
}

nlohmann::json chainJson(const ChainPlan& chain) {
  nlohmann::json segments = nlohmann::json::array();
  for (const auto& s : chain.solution.segments) {
    // The segment's output block (its ops share one; a reduction's is narrower than the chain's).
    std::pair<int64_t, int64_t> block = {chain.problem.chain.blockRows,
                                         chain.problem.chain.blockCols};
    if (s.firstOp < chain.problem.chain.ops.size())
      block = planner::dst::outputBlock(chain.problem.chain, chain.problem.chain.ops[s.firstOp]);
    segments.push_back({{"first_op", s.firstOp},
                        {"end_op", s.endOp},
                        {"block", {block.first, block.second}},
                        {"subblock", {s.subblockRows, s.subblockCols}},
                        {"rounds", s.rounds},
                        {"peak_tiles", s.peakTiles}});
  }
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& op : chain.problem.chain.ops)
    ops.push_back(op.name);
  return {{"chain", chain.id},
          {"location", chain.location},
          {"data_type", chain.dataType},
          {"matmul", chain.matmul},
          {"block", {chain.problem.chain.blockRows, chain.problem.chain.blockCols}},
          {"ops", ops},
          {"capacity_tiles", chain.capacityTiles},
          {"segments", segments},
          {"rounds", chain.solution.rounds},
          {"peak_tiles", chain.solution.peakTiles},
          {"intermediate_cbs", chain.solution.intermediates.size()}};
}

nlohmann::json coresJson(const KernelPlan& k) {
  nlohmann::json out = {{"grid", {k.grid.rows, k.grid.cols}}, {"auto_grid", k.autoGrid}};
  if (!k.coresSolution) {
    out["work"] = nullptr;
    return out;
  }
  const auto& s = *k.coresSolution;
  nlohmann::json ranges = nlohmann::json::array();
  for (size_t i = 0; i < s.ranges.size(); ++i)
    ranges.push_back({{"core", {int(i) % s.grid.cols, int(i) / s.grid.cols}},
                      {"start", s.ranges[i].start},
                      {"count", s.ranges[i].count}});
  out["work"] = {{"dims", k.workDims},
                 {"items", k.coresProblem->items},
                 {"ranges", ranges},
                 {"makespan", s.makespan},
                 {"cores_used", s.coresUsed},
                 {"baseline",
                  {{"name", "split_work_to_cores"},
                   {"grid", {k.coresBaseline->grid.rows, k.coresBaseline->grid.cols}},
                   {"makespan", k.coresBaseline->makespan},
                   {"cores_used", k.coresBaseline->coresUsed}}},
                 {"comparison", k.coresComparison}};
  return out;
}

nlohmann::json multicastJson(const KernelPlan& k) {
  nlohmann::json nets = nlohmann::json::array();
  if (!k.multicastSolution) return {{"nets", nets}, {"rectangles", 0}, {"semaphore_ids", 0}};
  const auto& s = *k.multicastSolution;
  for (size_t i = 0; i < s.nets.size(); ++i) {
    const auto& net = k.multicastProblem.nets[i];
    const auto& p = s.nets[i];
    nlohmann::json rects = nlohmann::json::array();
    for (const auto& m : p.multicasts)
      rects.push_back({{"logical", {m.logical.x0, m.logical.y0, m.logical.x1, m.logical.y1}},
                       {"noc_start", {m.noc.startX, m.noc.startY}},
                       {"noc_end", {m.noc.endX, m.noc.endY}},
                       {"loopback", m.loopback},
                       {"num_dests", m.numDests}});
    nets.push_back({{"pipe", net.id},
                    {"location", net.location},
                    {"sender", {net.sender.x, net.sender.y}},
                    {"noc", net.noc},
                    {"destinations", net.dests.size()},
                    {"receivers", p.receivers},
                    {"ready_semaphore", p.readySemaphore},
                    {"valid_semaphore", p.validSemaphore},
                    {"rectangles", rects}});
  }
  return {{"nets", nets}, {"rectangles", s.rectangles}, {"semaphore_ids", s.semaphoreIds}};
}

} // namespace

nlohmann::json toJson(const ModulePlan& plan, Timings timings) {
  const bool shown = timings == Timings::Shown;
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelPlan& k : plan.kernels) {
    nlohmann::json cbs = nlohmann::json::array();
    for (const CbPlan& cb : k.cbs)
      cbs.push_back(cbJson(cb));
    nlohmann::json chains = nlohmann::json::array();
    for (const ChainPlan& c : k.chains)
      chains.push_back(chainJson(c));
    nlohmann::json solves = nlohmann::json::array();
    for (const SubProblemRun& r : k.runs) {
      nlohmann::json solve = {{"name", r.name},
                              {"status", planner::toString(r.status)},
                              {"solver", r.solver},
                              {"nodes", r.nodes}};
      if (shown) solve["milliseconds"] = r.milliseconds;
      solves.push_back(std::move(solve));
    }
    kernels.push_back({{"name", k.name},
                       {"location", k.location},
                       {"cores", coresJson(k)},
                       {"cbs", cbs},
                       {"l1",
                        {{"base", k.l1Base},
                         {"capacity", k.l1Capacity},
                         {"used", k.l1Used},
                         {"free", k.l1Capacity - k.l1Used},
                         {"block_count_choices", k.depthNotes}}},
                       {"dst", chains},
                       {"multicast", multicastJson(k)},
                       {"solves", solves}});
    if (!k.assumptions.empty()) kernels.back()["assumptions"] = k.assumptions;
  }
  nlohmann::json j = reportHeader(plan.file, plan.device, plan.binding);
  j["kernels"] = kernels;
  if (shown) j["total_milliseconds"] = plan.totalMilliseconds;
  return j;
}

nlohmann::json reportHeader(const std::string& file, const std::string& device,
                            const ChosenBinding& binding) {
  return {{"schema_version", kPlanReportSchemaVersion},
          {"status", "planned"},
          {"file", file},
          {"device", device},
          {"binding", {{"source", binding.source}, {"values", binding.binding}}}};
}

nlohmann::json toJson(const PlanFailure& failure, Timings timings) {
  nlohmann::json j = toJson(failure.partial, timings);
  j.erase("total_milliseconds");
  j["status"] = "infeasible";
  const planner::kernel::Rejection& r = failure.rejection;
  j["rejection"] = {{"kernel", failure.kernel},
                    {"resource", planner::kernel::toString(r.resource)},
                    {"status", planner::toString(r.status)},
                    {"needed", r.needed},
                    {"available", r.available},
                    {"shortfall", r.needed - r.available},
                    {"cbs", failure.cbNames},
                    {"knobs", r.knobs},
                    {"message", r.message}};
  return j;
}

std::string formatReport(const ModulePlan& plan, Timings timings,
                         const std::vector<std::string>& kernelNotes) {
  const bool shown = timings == Timings::Shown;
  std::string out;
  auto line = [&](std::string s) {
    out += s;
    out += '\n';
  };
  line(fmt::format("plan of {} on {}", plan.file, plan.device));
  std::string values;
  for (const auto& [name, value] : plan.binding.binding)
    values += fmt::format("{}@{}={}", values.empty() ? "" : ", ", name, value);
  line(fmt::format("binding: {}{}", values.empty() ? "" : values + " (",
                   values.empty() ? plan.binding.source : plan.binding.source + ")"));
  for (size_t kernelIndex = 0; kernelIndex < plan.kernels.size(); ++kernelIndex) {
    const KernelPlan& k = plan.kernels[kernelIndex];
    line("");
    line(fmt::format("kernel {} ({})", k.name, k.location));
    for (const std::string& assumption : k.assumptions)
      line(fmt::format("  assumed: {}", assumption));
    // Cores and work.
    if (k.coresSolution) {
      const auto& s = *k.coresSolution;
      line(fmt::format("  grid: {} x {}{}; work [{}] = {} items on {} cores, makespan {} item{}",
                       s.grid.rows, s.grid.cols, k.autoGrid ? " (chosen: grid = \"auto\")" : "",
                       fmt::join(k.workDims, ", "), k.coresProblem->items, s.coresUsed, s.makespan,
                       s.makespan == 1 ? "" : "s"));
      std::map<int64_t, int> histogram;
      for (const auto& r : s.ranges)
        ++histogram[r.count];
      std::string perCore;
      for (auto it = histogram.rbegin(); it != histogram.rend(); ++it)
        perCore += fmt::format("{}{} on {} core{}", perCore.empty() ? "" : ", ", it->first,
                               it->second, it->second == 1 ? "" : "s");
      line(fmt::format("  work per core: {}", perCore));
      std::string ranges;
      int shown = 0;
      for (size_t i = 0; i < s.ranges.size(); ++i) {
        if (s.ranges[i].count == 0) continue;
        ranges += shown % 8 == 0 ? "\n    " : " ";
        ranges += fmt::format("({},{}):[{},{})", int(i) % s.grid.cols, int(i) / s.grid.cols,
                              s.ranges[i].start, s.ranges[i].start + s.ranges[i].count);
        ++shown;
      }
      line(fmt::format("  ranges (core (x,y): items){}", ranges));
      line(fmt::format("  vs split_work_to_cores on {} x {}: {}", k.coresBaseline->grid.rows,
                       k.coresBaseline->grid.cols,
                       k.coresComparison.empty() ? "same plan" : k.coresComparison));
    } else {
      line(fmt::format("  grid: {} x {}; no `work` attribute (the kernel divides work itself)",
                       k.grid.rows, k.grid.cols));
    }
    // CBs.
    line("  CBs:");
    size_t nameWidth = 12;
    for (const CbPlan& cb : k.cbs)
      nameWidth = std::max(nameWidth, cb.name.size());
    line(fmt::format("    {:>3}  {:<{}} {:>25}  {:>10}  {:>6}  {:>6}  {:<5}  {}", "idx", "name",
                     nameWidth, "L1 address range", "bytes", "blocks", "block", "type",
                     "location"));
    for (const CbPlan& cb : k.cbs)
      line(fmt::format(
          "    {:>3}  {:<{}} {:>25}  {:>10}  {:>6}  {:>6}  {:<5}  {}{}", cb.index, cb.name,
          nameWidth,
          fmt::format("[{}, {})", withThousands(cb.address), withThousands(cb.address + cb.bytes)),
          withThousands(cb.bytes),
          fmt::format("{}{}", cb.blockCount, cb.chosenByPlanner ? "*" : ""),
          shapeStr(cb.blockShape), cb.dataType, cb.location,
          cb.intermediate ? "  (DST split)" : ""));
    line(fmt::format(
        "  L1: {} B of CBs from {}; {} B free for CBs; headroom {} B ({:.1f}%)",
        withThousands(k.l1Used), withThousands(k.l1Base), withThousands(k.l1Capacity),
        withThousands(k.l1Capacity - k.l1Used),
        k.l1Capacity > 0 ? 100.0 * double(k.l1Capacity - k.l1Used) / double(k.l1Capacity) : 0.0));
    for (const std::string& note : k.depthNotes)
      line(fmt::format("  * {}", note));
    // DST.
    if (k.chains.empty()) line("  DST: no compute chains");
    for (size_t chainIndex = 0; chainIndex < k.chains.size(); ++chainIndex) {
      const ChainPlan& c = k.chains[chainIndex];
      line(fmt::format("  DST chain {} ({}): {} op{}{}, block {}x{} {}, capacity {} tiles", c.id,
                       c.location, c.problem.chain.ops.size(),
                       c.problem.chain.ops.size() == 1 ? "" : "s", c.matmul ? " (matmul)" : "",
                       c.problem.chain.blockRows, c.problem.chain.blockCols, c.dataType,
                       c.capacityTiles));
      for (const auto& s : c.solution.segments)
        line(fmt::format("    ops [{}, {}): sub-block {}x{}, {} round{}, peak {} DST tiles",
                         s.firstOp, s.endOp, s.subblockRows, s.subblockCols, s.rounds,
                         s.rounds == 1 ? "" : "s", s.peakTiles));
      for (const auto& ic : c.solution.intermediates)
        line(fmt::format("    intermediate CB {} after op {} ({}): {} tile{}, {} B",
                         intermediateName(k, chainIndex, ic), ic.afterOp,
                         c.problem.chain.ops[ic.afterOp].name, ic.tiles, ic.tiles == 1 ? "" : "s",
                         withThousands(ic.bytes)));
    }
    // Multicast.
    if (!k.multicastSolution) {
      line("  multicast: no pipes");
    } else {
      const auto& s = *k.multicastSolution;
      line(fmt::format("  multicast: {} net{}, {} rectangle{}, {} semaphore id{}", s.nets.size(),
                       s.nets.size() == 1 ? "" : "s", s.rectangles, s.rectangles == 1 ? "" : "s",
                       s.semaphoreIds, s.semaphoreIds == 1 ? "" : "s"));
      for (size_t i = 0; i < s.nets.size(); ++i) {
        const auto& net = k.multicastProblem.nets[i];
        const auto& p = s.nets[i];
        std::string rects;
        for (const auto& m : p.multicasts)
          rects += fmt::format(" ({},{})-({},{}) noc[{},{}]->[{},{}]{} {} dests", m.logical.x0,
                               m.logical.y0, m.logical.x1, m.logical.y1, m.noc.startX, m.noc.startY,
                               m.noc.endX, m.noc.endY, m.loopback ? " loopback" : "", m.numDests);
        line(fmt::format("    {} from ({},{}) NOC{} to {} core{}: sem ready {} valid {};{}", net.id,
                         net.sender.x, net.sender.y, net.noc, p.receivers,
                         p.receivers == 1 ? "" : "s", p.readySemaphore, p.validSemaphore, rects));
      }
    }
    if (kernelIndex < kernelNotes.size()) out += kernelNotes[kernelIndex];
    // Solves.
    line("  solves:");
    for (const SubProblemRun& r : k.runs)
      line(fmt::format("    {:<28} {:<10} {}{}{}", r.name, planner::toString(r.status),
                       shown ? fmt::format("{:>9.3f} ms  ", r.milliseconds) : "", r.solver,
                       r.nodes ? fmt::format(", {} nodes", withThousands(r.nodes)) : ""));
  }
  line("");
  line(fmt::format("planned {} kernel{}{}", plan.kernels.size(),
                   plan.kernels.size() == 1 ? "" : "s",
                   shown ? fmt::format(" in {:.3f} ms", plan.totalMilliseconds) : ""));
  return out;
}

} // namespace ttlplan::lower
