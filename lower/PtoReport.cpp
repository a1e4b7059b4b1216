// The pto plan report (lower/PtoPlanner.h): JSON data first, the terminal view from the same plan.
#include "ttlplan/lower/PtoPlanner.h"
#include "ttlplan/planner/l1/Solve.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ttlplan::lower {

namespace {

namespace pp = planner::pto;
using planner::l1::withThousands;

std::string shape(const std::vector<int64_t>& dims) {
  return dims.empty() ? "-" : fmt::format("{}", fmt::join(dims, "x"));
}

std::string pipes(const pp::BufferSpec& b) {
  return fmt::format("{}->{}", pp::toString(b.producer), pp::toString(b.consumer));
}

nlohmann::json bufferJson(const pp::BufferSpec& spec, const pp::BufferPlan& plan) {
  return {{"name", spec.name},
          {"location", spec.location},
          {"role", pp::toString(spec.role)},
          {"memory", pp::toString(spec.memory)},
          {"block_shape", spec.blockShape},
          {"data_type", spec.dataType},
          {"per_row", spec.perRow},
          {"slot_bytes", spec.slotBytes},
          {"slots", plan.slots},
          {"chosen_by_planner", plan.chosenByPlanner},
          {"producer", pp::toString(spec.producer)},
          {"consumer", pp::toString(spec.consumer)},
          {"offsets", plan.offsets},
          {"ready_events", plan.readyEvents},
          {"free_events", plan.freeEvents}};
}

nlohmann::json kernelJson(const PtoKernelPlan& k, bool shown) {
  nlohmann::json buffers = nlohmann::json::array(), memories = nlohmann::json::array(),
                 events = nlohmann::json::array(), solves = nlohmann::json::array();
  for (size_t i = 0; i < k.problem.buffers.size(); ++i)
    buffers.push_back(bufferJson(k.problem.buffers[i], k.plan.buffers[i]));
  for (const pp::MemoryPlan& m : k.plan.memories)
    memories.push_back({{"memory", pp::toString(m.memory)},
                        {"capacity", m.capacity},
                        {"used", m.used},
                        {"free", m.capacity - m.used}});
  for (const pp::EventPlan& e : k.plan.events)
    events.push_back({{"src", pp::toString(e.src)},
                      {"dst", pp::toString(e.dst)},
                      {"used", e.used},
                      {"available", e.available}});
  for (const pp::SolveRun& r : k.plan.runs) {
    nlohmann::json run = {{"name", r.name},
                          {"status", planner::toString(r.status)},
                          {"solver", r.solver},
                          {"nodes", r.nodes}};
    if (shown) run["milliseconds"] = r.milliseconds;
    solves.push_back(std::move(run));
  }
  return {{"name", k.problem.kernel}, {"location", k.problem.location},
          {"buffers", buffers},       {"memories", memories},
          {"events", events},         {"block_count_choices", k.plan.depthNotes},
          {"solves", solves}};
}

} // namespace

nlohmann::json toJson(const PtoModulePlan& plan, Timings timings) {
  const bool shown = timings == Timings::Shown;
  nlohmann::json kernels = nlohmann::json::array();
  for (const PtoKernelPlan& k : plan.kernels)
    kernels.push_back(kernelJson(k, shown));
  nlohmann::json j = reportHeader(plan.file, plan.device, plan.binding);
  j["target"] = "pto";
  j["kernels"] = kernels;
  if (shown) j["total_milliseconds"] = plan.totalMilliseconds;
  return j;
}

std::string formatReport(const PtoModulePlan& plan, Timings timings) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + '\n'; };
  line(fmt::format("plan of {} on {} (--target pto)", plan.file, plan.device));
  std::string values;
  for (const auto& [name, value] : plan.binding.binding)
    values += fmt::format("{}@{}={}", values.empty() ? "" : ", ", name, value);
  line(fmt::format("binding: {}{}", values.empty() ? "" : values + " (",
                   values.empty() ? plan.binding.source : plan.binding.source + ")"));
  for (const PtoKernelPlan& k : plan.kernels) {
    line("");
    line(fmt::format("kernel {} ({})", k.problem.kernel, k.problem.location));
    line("  buffers (a slot per block, used in turn; offsets are TASSIGN addresses):");
    size_t width = 12;
    for (const pp::BufferSpec& b : k.problem.buffers)
      width = std::max(width, b.name.size());
    line(fmt::format("    {:<{}} {:<4} {:<9} {:>10} {:>6} {:>6} {:<5} {:<24} {}", "name", width,
                     "mem", "pipes", "slot B", "slots", "block", "type", "offsets", "events"));
    for (size_t i = 0; i < k.problem.buffers.size(); ++i) {
      const pp::BufferSpec& b = k.problem.buffers[i];
      const pp::BufferPlan& p = k.plan.buffers[i];
      std::vector<std::string> offsets; // plain numbers: a list of "8,192" would not read
      for (int64_t o : p.offsets)
        offsets.push_back(std::to_string(o));
      std::string events = p.readyEvents.empty()
                               ? "-"
                               : fmt::format("ready {} / free {}", fmt::join(p.readyEvents, " "),
                                             fmt::join(p.freeEvents, " "));
      line(fmt::format("    {:<{}} {:<4} {:<9} {:>10} {:>6} {:>6} {:<5} {:<24} {}  {}{}", b.name,
                       width, pp::toString(b.memory), pipes(b), withThousands(b.slotBytes),
                       fmt::format("{}{}", p.slots, p.chosenByPlanner ? "*" : ""),
                       shape(b.blockShape), b.dataType.empty() ? "-" : b.dataType,
                       fmt::format("{}", fmt::join(offsets, " ")), events, b.location,
                       b.role == pp::BufferRole::Cb
                           ? ""
                           : fmt::format(" ({}{})", pp::toString(b.role),
                                         b.perRow ? ", one value per row" : "")));
    }
    for (const std::string& note : k.plan.depthNotes)
      line("    * " + note);
    line("  memories:");
    for (const pp::MemoryPlan& m : k.plan.memories)
      line(fmt::format("    {:<4} {:>10} of {:>10} B used, {:>10} B free", pp::toString(m.memory),
                       withThousands(m.used), withThousands(m.capacity),
                       withThousands(m.capacity - m.used)));
    if (!k.plan.events.empty()) {
      line("  event ids (set_flag/wait_flag, per pipe pair):");
      for (const pp::EventPlan& e : k.plan.events)
        line(fmt::format("    {:>4} -> {:<4} {} of {}", pp::toString(e.src), pp::toString(e.dst),
                         e.used, e.available));
    }
    line("  solves:");
    for (const pp::SolveRun& r : k.plan.runs)
      line(fmt::format("    {:<22} {:<10} {}{}", r.name, planner::toString(r.status),
                       timings == Timings::Shown ? fmt::format("{:.3f} ms  ", r.milliseconds) : "",
                       r.solver + (r.nodes ? fmt::format(", {} nodes", r.nodes) : "")));
  }
  line("");
  line(fmt::format("planned {} kernel{} for {}{}", plan.kernels.size(),
                   plan.kernels.size() == 1 ? "" : "s", plan.device,
                   timings == Timings::Shown ? fmt::format(" in {:.3f} ms", plan.totalMilliseconds)
                                             : ""));
  return out;
}

} // namespace ttlplan::lower
