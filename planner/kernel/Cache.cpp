// Sub-problem signatures for the PlanCache (planner/kernel/Cache.h). Names and locations are part
// of the signature because results carry messages that quote them; a template's bindings share
// their names, so this costs no hits.
#include "ttlplan/planner/kernel/Cache.h"

#include <fmt/format.h>
#include <iterator>

namespace ttlplan::planner::kernel {

namespace {

void appendLimits(std::string& out, const SolveLimits& limits) {
  fmt::format_to(std::back_inserter(out), "|limits {} {}", limits.nodeLimit,
                 limits.timeLimitSeconds);
}

} // namespace

std::string signature(const dst::Problem& problem, const SolveLimits& limits) {
  std::string out;
  auto it = std::back_inserter(out);
  const dst::Chain& c = problem.chain;
  fmt::format_to(it, "dst {} {} {} {} {}|{} {} {}|", problem.capacityTiles, int(problem.sync),
                 problem.fp32Accumulation, problem.intermediateTileBytes, c.id, c.blockRows,
                 c.blockCols, c.ops.size());
  for (const dst::Op& op : c.ops)
    fmt::format_to(it, "{} [{}] {} {} {} {};", op.name, fmt::join(op.inputs, ","), op.output,
                   op.cbOperands, op.rows, op.cols);
  fmt::format_to(it, "results [{}]", fmt::join(c.results, ","));
  appendLimits(out, limits);
  return out;
}

std::string signature(const cbindex::Problem& problem, const SolveLimits& limits) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "cbindex {} {}|", int(problem.source), problem.limit);
  for (const cbindex::Cb& cb : problem.cbs)
    fmt::format_to(it, "{} {} {} {};", cb.id, cb.lower, cb.upper, cb.preassigned);
  for (const auto& [a, b] : problem.conflicts)
    fmt::format_to(it, "{}-{};", a, b);
  appendLimits(out, limits);
  return out;
}

std::string signature(const l1::Problem& problem, l1::L1Solver solver, const SolveLimits& limits) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "l1 {} {}|", l1::toString(solver), problem.capacity);
  for (const l1::Buffer& b : problem.buffers)
    fmt::format_to(it, "{} {} {} {} {};", b.id, b.lower, b.upper, b.size, b.alignment);
  appendLimits(out, limits);
  return out;
}

std::string signature(const cores::Problem& problem, const SolveLimits& limits) {
  std::string out;
  fmt::format_to(std::back_inserter(out), "cores {} {}x{} {} {} [{}]", problem.items,
                 problem.grid.rows, problem.grid.cols, problem.autoGrid, problem.fixedCores,
                 fmt::join(problem.costs, ","));
  appendLimits(out, limits);
  return out;
}

std::string signature(const multicast::Problem& problem, const SolveLimits& limits) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "mc {}x{} [{}] [{}] {} {}|", problem.rows, problem.cols,
                 fmt::join(problem.noc.x, ","), fmt::join(problem.noc.y, ","),
                 problem.semaphoreLimit, problem.allowGaps);
  for (const multicast::PipeNet& n : problem.nets) {
    fmt::format_to(it, "{} {} {} {},{} {} {} {} {} {}:", n.id, n.location, n.source, n.sender.x,
                   n.sender.y, n.noc, n.dstAddress, n.lower, n.upper, n.dests.size());
    for (const multicast::Core& d : n.dests)
      fmt::format_to(it, "{},{} ", d.x, d.y);
    out += ';';
  }
  appendLimits(out, limits);
  return out;
}

} // namespace ttlplan::planner::kernel
