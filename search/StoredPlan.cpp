// Kernel plans as tuning records keep them (StoredPlan.h).
#include "ttlplan/search/StoredPlan.h"

#include "ttlplan/planner/dst/Problem.h"
#include "ttlplan/support/GridLimits.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace ttlplan::search {
namespace pk = planner::kernel;
namespace dst = planner::dst;
using OJson = nlohmann::ordered_json;
using Core = planner::multicast::Core;

namespace {

// Counts beyond this are not a plan any device has: refused on decode (as grids beyond
// kMaxGridSide, support/GridLimits.h).
constexpr int64_t kMaxCount = int64_t(1) << 40;

OJson pair(int64_t a, int64_t b) {
  return OJson::array({a, b});
}

OJson chainJson(const pk::ChainPlan& c) {
  const dst::Problem& p = c.problem;
  OJson ops = OJson::array();
  for (const dst::Op& op : p.chain.ops)
    ops.push_back({{"name", op.name},
                   {"inputs", op.inputs},
                   {"output", op.output},
                   {"cb_operands", op.cbOperands},
                   {"block", pair(op.rows, op.cols)}});
  OJson segments = OJson::array();
  for (const dst::Segment& s : c.solution.segments)
    segments.push_back({{"ops", pair(int64_t(s.firstOp), int64_t(s.endOp))},
                        {"block", pair(s.blockRows, s.blockCols)},
                        {"subblock", pair(s.subblockRows, s.subblockCols)},
                        {"rounds", s.rounds},
                        {"slots", s.slots},
                        {"peak_tiles", s.peakTiles}});
  OJson intermediates = OJson::array();
  for (const dst::IntermediateCb& i : c.solution.intermediates)
    intermediates.push_back({{"after_op", int64_t(i.afterOp)},
                             {"value", i.value},
                             {"block", pair(i.rows, i.cols)},
                             {"tiles", i.tiles},
                             {"bytes", i.bytes}});
  return {{"id", c.id},
          {"location", c.location},
          {"data_type", c.dataType},
          {"matmul", c.matmul},
          {"capacity_tiles", c.capacityTiles},
          {"problem",
           {{"id", p.chain.id},
            {"ops", std::move(ops)},
            {"block", pair(p.chain.blockRows, p.chain.blockCols)},
            {"results", p.chain.results},
            {"capacity_tiles", p.capacityTiles},
            {"sync", p.sync == dst::SyncMode::Half ? "half" : "full"},
            {"fp32", p.fp32Accumulation},
            {"intermediate_tile_bytes", p.intermediateTileBytes}}},
          {"solution",
           {{"segments", std::move(segments)},
            {"intermediates", std::move(intermediates)},
            {"rounds", c.solution.rounds},
            {"peak_tiles", c.solution.peakTiles}}}};
}

OJson cbJson(const pk::CbPlan& cb) {
  return {{"name", cb.name},
          {"source", cb.source},
          {"shape", cb.blockShape},
          {"data_type", cb.dataType},
          {"tile_bytes", cb.tileBytes},
          {"block_count", cb.blockCount},
          {"chosen", cb.chosenByPlanner},
          {"index", cb.index},
          {"address", cb.address},
          {"intermediate", cb.intermediate},
          {"chain", cb.chain},
          {"value", cb.value}};
}

// ----- Decoding: nlohmann's typed getters throw on a missing key or a wrong type; plan() below
// catches that and the range checks' Failure, so nothing leaves this file as an exception.

struct Failure {
  std::string message;
};

[[noreturn]] void fail(std::string message) {
  throw Failure{std::move(message)};
}

int64_t count(const OJson& j, const char* key, int64_t low = 0, int64_t high = kMaxCount) {
  const OJson& v = j.at(key);
  if (!v.is_number_integer()) fail(fmt::format("\"{}\" must be an integer", key));
  int64_t x = v.get<int64_t>();
  if (x < low || x > high) fail(fmt::format("\"{}\" {} is outside [{}, {}]", key, x, low, high));
  return x;
}

std::pair<int64_t, int64_t> pairAt(const OJson& j, const char* key, int64_t low = 0) {
  const OJson& v = j.at(key);
  if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer())
    fail(fmt::format("\"{}\" must be two integers", key));
  int64_t a = v[0].get<int64_t>(), b = v[1].get<int64_t>();
  if (a < low || b < low || a > kMaxCount || b > kMaxCount)
    fail(fmt::format("\"{}\" [{}, {}] is out of range", key, a, b));
  return {a, b};
}

Core coreAt(const OJson& v, const pk::KernelPlan& plan) {
  if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer())
    fail("a core must be [x, y]");
  int64_t x = v[0].get<int64_t>(), y = v[1].get<int64_t>();
  if (x < 0 || y < 0 || x >= plan.grid.cols || y >= plan.grid.rows)
    fail(fmt::format("core ({}, {}) is outside the {} x {} grid", x, y, plan.grid.rows,
                     plan.grid.cols));
  return {int(x), int(y)};
}

dst::Problem chainProblem(const OJson& j) {
  dst::Problem p;
  p.chain.id = j.at("id").get<std::string>();
  for (const OJson& o : j.at("ops")) {
    dst::Op op;
    op.name = o.at("name").get<std::string>();
    op.inputs = o.at("inputs").get<std::vector<dst::ValueId>>();
    op.output = dst::ValueId(count(o, "output", -1, dst::kMaxValueId));
    op.cbOperands = o.at("cb_operands").get<bool>();
    std::tie(op.rows, op.cols) = pairAt(o, "block");
    p.chain.ops.push_back(std::move(op));
  }
  std::tie(p.chain.blockRows, p.chain.blockCols) = pairAt(j, "block", 1);
  p.chain.results = j.at("results").get<std::vector<dst::ValueId>>();
  std::string sync = j.at("sync").get<std::string>();
  if (sync != "half" && sync != "full") fail("\"sync\" must be \"half\" or \"full\"");
  p.sync = sync == "half" ? dst::SyncMode::Half : dst::SyncMode::Full;
  p.fp32Accumulation = j.at("fp32").get<bool>();
  if (j.contains("capacity_tiles")) {
    p.capacityTiles = count(j, "capacity_tiles", 1);
  } else {
    // Records written before the capacity came from the device held its full-sync 16-bit count,
    // which the planner halved for half sync and for fp32 accumulation.
    p.capacityTiles = count(j, "device_tiles", 1) / (p.sync == dst::SyncMode::Half ? 2 : 1) /
                      (p.fp32Accumulation ? 2 : 1);
  }
  p.intermediateTileBytes = count(j, "intermediate_tile_bytes", 1);
  if (std::string e = dst::problemError(p); !e.empty()) fail("DST chain: " + e);
  return p;
}

dst::Solution chainSolution(const OJson& j, size_t ops) {
  dst::Solution s;
  for (const OJson& g : j.at("segments")) {
    dst::Segment seg;
    auto [first, end] = pairAt(g, "ops");
    if (end > int64_t(ops)) fail("a DST segment's ops run past the chain");
    seg.firstOp = size_t(first);
    seg.endOp = size_t(end);
    std::tie(seg.blockRows, seg.blockCols) = pairAt(g, "block", 1);
    std::tie(seg.subblockRows, seg.subblockCols) = pairAt(g, "subblock", 1);
    seg.rounds = count(g, "rounds");
    seg.slots = g.at("slots").get<std::vector<int>>();
    seg.peakTiles = count(g, "peak_tiles");
    s.segments.push_back(std::move(seg));
  }
  for (const OJson& i : j.at("intermediates")) {
    dst::IntermediateCb cb;
    cb.afterOp = size_t(count(i, "after_op", 0, int64_t(ops)));
    cb.value = dst::ValueId(count(i, "value", -1, dst::kMaxValueId));
    std::tie(cb.rows, cb.cols) = pairAt(i, "block");
    cb.tiles = count(i, "tiles");
    cb.bytes = count(i, "bytes");
    s.intermediates.push_back(cb);
  }
  s.rounds = count(j, "rounds");
  s.peakTiles = count(j, "peak_tiles");
  return s;
}

pk::ChainPlan chainFrom(const OJson& j) {
  pk::ChainPlan c;
  c.id = j.at("id").get<std::string>();
  c.location = j.at("location").get<std::string>();
  c.dataType = j.at("data_type").get<std::string>();
  c.matmul = j.at("matmul").get<bool>();
  c.capacityTiles = count(j, "capacity_tiles", 1);
  c.problem = chainProblem(j.at("problem"));
  c.solution = chainSolution(j.at("solution"), c.problem.chain.ops.size());
  if (dst::Validity v = dst::validate(c.problem, c.solution); v != dst::Validity::Valid)
    fail(fmt::format("DST chain {}: its solution is not valid ({})", c.id, dst::toString(v)));
  return c;
}

pk::CbPlan cbFrom(const OJson& j, size_t chains) {
  pk::CbPlan cb;
  cb.name = j.at("name").get<std::string>();
  cb.source = int(count(j, "source", -1, kMaxGridSide * kMaxGridSide));
  cb.blockShape = j.at("shape").get<std::vector<int64_t>>();
  if (cb.blockShape.empty()) fail(fmt::format("CB {} has no block shape", cb.name));
  cb.dataType = j.at("data_type").get<std::string>();
  cb.tileBytes = count(j, "tile_bytes", 1, 1 << 20);
  cb.blockCount = count(j, "block_count", 1, 1 << 20);
  cb.chosenByPlanner = j.at("chosen").get<bool>();
  cb.index = int(count(j, "index", -1, 1 << 20));
  cb.address = count(j, "address");
  cb.intermediate = j.at("intermediate").get<bool>();
  cb.chain = int(count(j, "chain", -1, int64_t(chains) - 1));
  cb.value = dst::ValueId(count(j, "value", -1, dst::kMaxValueId));
  int64_t tiles = 1;
  for (int64_t d : cb.blockShape) {
    if (d < 1 || d > (1 << 20)) fail(fmt::format("CB {} has a block side of {}", cb.name, d));
    tiles *= d;
    if (tiles > (int64_t(1) << 30)) fail(fmt::format("CB {} has too many tiles", cb.name));
  }
  cb.bytes = tiles * cb.tileBytes * cb.blockCount;
  return cb;
}

void coresFrom(const OJson& j, pk::KernelPlan& plan) {
  if (j.is_null()) return;
  planner::cores::Solution s;
  s.grid = plan.grid;
  s.coresUsed = int(count(j, "used", 0, plan.grid.cores()));
  for (const OJson& r : j.at("ranges")) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer() ||
        r[0].get<int64_t>() < 0 || r[1].get<int64_t>() < 0)
      fail("a work range must be [start, count] with both >= 0");
    s.ranges.push_back({r[0].get<int64_t>(), r[1].get<int64_t>()});
  }
  if (s.ranges.size() != size_t(plan.grid.cores()))
    fail(fmt::format("{} work ranges for the {} cores of the grid", s.ranges.size(),
                     plan.grid.cores()));
  plan.coresSolution = std::move(s);
}

pk::KernelPlan plan(const OJson& j) {
  if (!j.is_object()) fail("a stored plan must be a JSON object");
  pk::KernelPlan plan;
  plan.name = j.at("name").get<std::string>();
  plan.mathFidelity = j.at("math_fidelity").get<std::string>();
  if (plan.mathFidelity != "LoFi" && plan.mathFidelity != "HiFi2" && plan.mathFidelity != "HiFi3" &&
      plan.mathFidelity != "HiFi4")
    fail(fmt::format("unknown math fidelity '{}'", plan.mathFidelity));
  plan.fp32DestAcc = j.at("fp32_dest_acc").get<bool>();
  plan.l1Used = count(j, "l1_used");
  auto [rows, cols] = pairAt(j, "grid", 1);
  if (rows > kMaxGridSide || cols > kMaxGridSide)
    fail(fmt::format("a {} x {} grid is larger than any device", rows, cols));
  plan.grid = {int(rows), int(cols)};
  coresFrom(j.at("cores"), plan);
  for (const OJson& c : j.at("chains"))
    plan.chains.push_back(chainFrom(c));
  for (const OJson& c : j.at("cbs"))
    plan.cbs.push_back(cbFrom(c, plan.chains.size()));
  plan.multicastProblem.rows = plan.grid.rows;
  plan.multicastProblem.cols = plan.grid.cols;
  for (const OJson& n : j.at("nets")) {
    planner::multicast::PipeNet net;
    net.id = n.at("id").get<std::string>();
    net.sender = coreAt(n.at("sender"), plan);
    for (const OJson& d : n.at("dests"))
      net.dests.push_back(coreAt(d, plan));
    plan.multicastProblem.nets.push_back(std::move(net));
  }
  return plan;
}

} // namespace

std::string storedPlanJson(const pk::KernelPlan& plan) {
  OJson cores = nullptr;
  if (plan.coresSolution) {
    OJson ranges = OJson::array();
    for (const planner::cores::Range& r : plan.coresSolution->ranges)
      ranges.push_back(pair(r.start, r.count));
    cores = {{"used", plan.coresSolution->coresUsed}, {"ranges", std::move(ranges)}};
  }
  OJson cbs = OJson::array();
  for (const pk::CbPlan& cb : plan.cbs)
    cbs.push_back(cbJson(cb));
  OJson nets = OJson::array();
  for (const planner::multicast::PipeNet& n : plan.multicastProblem.nets) {
    OJson dests = OJson::array();
    for (Core d : n.dests)
      dests.push_back(pair(d.x, d.y));
    nets.push_back({{"id", n.id}, {"sender", pair(n.sender.x, n.sender.y)}, {"dests", dests}});
  }
  OJson chains = OJson::array();
  for (const pk::ChainPlan& c : plan.chains)
    chains.push_back(chainJson(c));
  OJson j = {{"name", plan.name},
             {"math_fidelity", plan.mathFidelity},
             {"fp32_dest_acc", plan.fp32DestAcc},
             {"l1_used", plan.l1Used},
             {"grid", pair(plan.grid.rows, plan.grid.cols)},
             {"cores", std::move(cores)},
             {"cbs", std::move(cbs)},
             {"nets", std::move(nets)},
             {"chains", std::move(chains)}};
  return j.dump(-1, ' ', false, OJson::error_handler_t::replace);
}

std::string storedPlansJson(const std::vector<std::string>& eachKernel) {
  return fmt::format("[{}]", fmt::join(eachKernel, ","));
}

Expected<std::vector<pk::KernelPlan>> parseStoredPlans(std::string_view text) {
  OJson j;
  try {
    j = OJson::parse(text);
  } catch (const std::exception& e) {
    return Error{fmt::format("stored plans are not JSON: {}", e.what())};
  }
  if (!j.is_array()) return Error{"stored plans must be a JSON array"};
  std::vector<pk::KernelPlan> plans;
  for (size_t i = 0; i < j.size(); ++i) {
    try {
      plans.push_back(plan(j[i]));
    } catch (const Failure& f) {
      return Error{fmt::format("stored plan {}: {}", i, f.message)};
    } catch (const std::exception& e) {
      return Error{fmt::format("stored plan {}: {}", i, e.what())};
    }
  }
  return plans;
}

} // namespace ttlplan::search
