#include "ttlplan/search/cost/Model.h"

#include "ttlplan/support/JsonText.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace ttlplan::search::cost {

std::string_view toString(Bound bound) {
  switch (bound) {
  case Bound::Compute:
    return "compute";
  case Bound::Dram:
    return "dram";
  case Bound::Noc:
    return "noc";
  case Bound::Latency:
    return "latency";
  case Bound::Imbalance:
    return "imbalance";
  }
  return "?";
}

namespace {

// Per-core totals of one class at the real loop counts.
struct Totals {
  double readBytes = 0;
  double writeBytes = 0;
  double sendBytes = 0;
  double computeCycles = 0;
  double idealCycles = 0;
  // The most DRAM cycles one thread of the class needs at a core's own rates: threads transfer on
  // their own NoC paths (Simulate.cpp), so a core's reader and writer overlap. A thread's own
  // reads and writes are summed, as for threads that wait for their reads before they write
  // (the matmul programs' NoC 1 thread reads B, waits, writes C, waits).
  double busiestThreadDramCycles = 0;

  /// Adds another thread's sums (not the busiest-thread figure, which the caller keeps).
  Totals& operator+=(const Totals& o) {
    readBytes += o.readBytes;
    writeBytes += o.writeBytes;
    sendBytes += o.sendBytes;
    computeCycles += o.computeCycles;
    idealCycles += o.idealCycles;
    return *this;
  }
};

void accumulate(const std::vector<Step>& steps, double times, Totals& t) {
  for (const Step& s : steps) {
    switch (s.kind) {
    case StepKind::Read:
      t.readBytes += times * double(s.bytes);
      break;
    case StepKind::Write:
      t.writeBytes += times * double(s.bytes);
      break;
    case StepKind::Send:
      t.sendBytes += times * double(s.bytes);
      break;
    case StepKind::Compute:
      t.computeCycles += times * s.cycles;
      t.idealCycles += times * s.idealCycles;
      break;
    case StepKind::Loop:
      accumulate(s.body, times * double(s.count), t);
      break;
    default:
      break;
    }
  }
}

double clockGHz(const ir::Device& device) {
  return double(device.clockMhz) / 1000.0;
}

// What the DRAM banks deliver to the whole chip, bytes per cycle: the measured rate of every core
// reading interleaved pages where the device has one, else the peak.
double bankBytesPerCycle(const ir::Device& device) {
  double gbps = device.dram.measuredInterleavedGBps > 0 ? device.dram.measuredInterleavedGBps
                                                        : double(device.dram.bandwidthGBps);
  return gbps / clockGHz(device);
}

// One core's DRAM traffic at its own read and write rates, cycles.
double ownDramCycles(const Totals& t, const ir::Device& device) {
  return t.readBytes / double(device.dram.measuredReadBytesPerCycle) +
         t.writeBytes / double(device.dram.measuredWriteBytesPerCycle);
}

std::vector<Totals> classTotals(const Program& program, const ir::Device& device) {
  std::vector<Totals> totals(program.classes.size());
  for (size_t c = 0; c < program.classes.size(); ++c)
    for (const Thread& thread : program.classes[c].threads) {
      Totals one;
      accumulate(thread.steps, 1, one);
      Totals& t = totals[c];
      t += one;
      t.busiestThreadDramCycles = std::max(t.busiestThreadDramCycles, ownDramCycles(one, device));
    }
  return totals;
}

// The banks are shared only as far as they are the bottleneck. The cores' block pipelines run in
// lock-step (every block waits for the same multicast handshake), so their transfers coincide:
// what counts is the demand while they transfer, not the average over the kernel. With every core
// at its own rate, the busiest thread's traffic takes `floor` cycles; if all DRAM bytes need longer
// than that at the chip's bandwidth, the load factor rho > 1 slows every core's transfers by rho,
// so that the busiest thread's traffic takes as long as the banks need for all of it. (Until
// cost-2 the floor also counted compute cycles, which spread the traffic over the compute time
// and let the busiest core's transfers beat the banks' rate. Until cost-4 it was the busiest
// core's traffic, all its threads summed, while the simulation runs a core's threads' transfers
// side by side: a core that read A and B on two threads set a floor no thread reached, and the
// kernel beat the banks' rate.)
double dramLoad(const Program& program, const std::vector<Totals>& totals,
                const ir::Device& device) {
  double all = 0, floor = 1;
  for (size_t c = 0; c < totals.size(); ++c) {
    const Totals& t = totals[c];
    all += double(program.classes[c].cores) * (t.readBytes + t.writeBytes);
    floor = std::max(floor, t.busiestThreadDramCycles);
  }
  return std::max(1.0, all / bankBytesPerCycle(device) / floor);
}

// One extrapolated loop variable: the work loops together (shifted so that the longest runs
// `sample` items) or all other loops of one trip count and level (cut to `sample` iterations).
// A loop's level counts the loops around it of the same trip count: nested loops never share a
// variable (the time is multilinear in the variables only if no variable multiplies itself),
// while the loops the threads pair through their CBs (the same place in the same nest) do.
struct Variable {
  bool work = false;
  int64_t count = 0; // the longest work loop, or the shared trip count
  int level = 0;
};

// The trip count a loop is sampled by: a split loop's (an edge core's runs) is its source's.
int64_t keyCount(const Step& loop) {
  return loop.sourceCount > 0 ? loop.sourceCount : loop.count;
}

using Levels = std::unordered_map<const Step*, int>;

void collectLoops(const std::vector<Step>& steps, std::vector<int64_t>& around, int64_t& maxWork,
                  std::map<std::pair<int64_t, int>, int>& counts, Levels& levels) {
  for (const Step& s : steps) {
    if (s.kind != StepKind::Loop) continue;
    if (s.workLoop) {
      maxWork = std::max(maxWork, s.count);
      collectLoops(s.body, around, maxWork, counts, levels);
      continue;
    }
    int64_t key = keyCount(s);
    int level = int(std::count(around.begin(), around.end(), key));
    levels[&s] = level;
    ++counts[{key, level}];
    around.push_back(key);
    collectLoops(s.body, around, maxWork, counts, levels);
    around.pop_back();
  }
}

std::vector<Variable> extrapolated(const Program& program, const ModelOptions& options,
                                   Levels& levels) {
  int64_t maxWork = 0;
  std::map<std::pair<int64_t, int>, int> counts;
  std::vector<int64_t> around;
  for (const CoreClass& cls : program.classes)
    for (const Thread& thread : cls.threads)
      collectLoops(thread.steps, around, maxWork, counts, levels);
  std::vector<Variable> vars;
  if (maxWork > options.sampleHigh) vars.push_back({true, maxWork, 0});
  // Longest trip counts first: they are the ones worth not simulating (outer levels first).
  std::vector<std::pair<int64_t, int>> keys;
  for (const auto& [key, n] : counts)
    keys.push_back(key);
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [count, level] : keys)
    if (count > options.sampleHigh && int(vars.size()) < options.maxExtrapolated)
      vars.push_back({false, count, level});
  return vars;
}

int64_t sampledCount(const Step& loop, const Levels& levels, const std::vector<Variable>& vars,
                     const std::vector<int64_t>& samples) {
  int level = 0;
  if (!loop.workLoop)
    if (auto it = levels.find(&loop); it != levels.end()) level = it->second;
  for (size_t v = 0; v < vars.size(); ++v) {
    if (vars[v].work != loop.workLoop) continue;
    if (loop.workLoop) {
      int64_t shift = vars[v].count - samples[v];
      return std::max(std::min<int64_t>(loop.count, 1), loop.count - shift);
    }
    if (vars[v].level != level) continue;
    if (loop.sourceCount > 0 && loop.sourceCount == vars[v].count) {
      // The sample drops the source loop's first (count - sample) iterations, so the runs that
      // follow (an edge core's padded blocks) keep their length.
      int64_t dropped = vars[v].count - samples[v];
      int64_t overlap = std::clamp<int64_t>(dropped - loop.sourceOffset, 0, loop.count);
      return loop.count - overlap;
    }
    if (loop.sourceCount == 0 && loop.count == vars[v].count) return samples[v];
  }
  return loop.count;
}

// Runs the 2^D corner simulations and combines them multilinearly at the real counts.
Expected<SimResult> simulateCorners(Simulation& simulation, const std::vector<Variable>& vars,
                                    const Levels& levels, const ModelOptions& options, int& runs) {
  size_t corners = size_t(1) << vars.size();
  SimResult total, sim;
  for (size_t corner = 0; corner < corners; ++corner) {
    std::vector<int64_t> samples(vars.size());
    double weight = 1;
    for (size_t v = 0; v < vars.size(); ++v) {
      bool high = (corner >> v) & 1;
      double lo = double(options.sampleLow), hi = double(options.sampleHigh);
      double n = double(vars[v].count);
      samples[v] = high ? options.sampleHigh : options.sampleLow;
      weight *= high ? (n - lo) / (hi - lo) : (hi - n) / (hi - lo);
    }
    LoopCounts counts = [&](const Step& loop) { return sampledCount(loop, levels, vars, samples); };
    if (Status ok = simulation.run(counts, sim); !ok) return ok.error();
    ++runs;
    if (corner == 0) {
      total = sim;
      total.addScaled(sim, weight - 1);
    } else {
      total.addScaled(sim, weight);
    }
    if (corner > 0) total.steps += sim.steps;
  }
  return total;
}

/// The most steps the exact fallback simulates (one run takes well under a second at this size).
constexpr int64_t kMaxExactSteps = 20'000'000;

/// Steps the threads of `program` execute at their real loop counts, saturating at
/// kMaxExactSteps + 1.
int64_t totalSteps(const std::vector<Step>& steps) {
  const int64_t cap = kMaxExactSteps + 1;
  int64_t total = 0;
  for (const Step& s : steps) {
    int64_t n = 1;
    if (s.kind == StepKind::Loop) {
      const int64_t body = totalSteps(s.body);
      n = s.count > 0 && body > cap / s.count ? cap : 1 + s.count * body;
    }
    total = std::min(cap, total + n);
  }
  return total;
}
int64_t totalSteps(const Program& program) {
  int64_t total = 0;
  for (const CoreClass& cls : program.classes)
    for (const Thread& thread : cls.threads)
      total = std::min(kMaxExactSteps + 1, total + totalSteps(thread.steps));
  return total;
}

Expected<SimResult> extrapolate(const Program& program, const Rates& rates,
                                const ModelOptions& options, int& runs) {
  Levels levels;
  std::vector<Variable> vars = extrapolated(program, options, levels);
  Expected<Simulation> simulation = Simulation::prepare(program, rates);
  if (!simulation) return simulation.error();
  runs = 0;
  Expected<SimResult> sampled = simulateCorners(*simulation, vars, levels, options, runs);
  if (sampled || vars.empty()) return sampled;
  // Sampling pairs loops by trip count and nesting level. Threads that walk the same blocks with
  // different nests (one loop of rows * cols against two nested loops) are cut differently and
  // block each other in the sample: simulate every iteration instead (slower, exact), unless
  // that is too many steps to finish (threads whose trip counts differ by one over 10^15
  // iterations never pair up, and walking them one by one would not end).
  if (totalSteps(program) > kMaxExactSteps)
    return Error{fmt::format("{}; simulating every step instead would take more than the cost "
                             "model's limit of {} steps",
                             sampled.error().message, kMaxExactSteps)};
  return simulateCorners(*simulation, {}, levels, options, runs);
}

Analytic analyticBounds(const Program& program, const ir::Device& device,
                        const std::vector<Totals>& totals, double predicted) {
  Analytic a;
  double work = 0;
  for (size_t c = 0; c < totals.size(); ++c) {
    const Totals& t = totals[c];
    int n = program.classes[c].cores;
    a.compute = std::max(a.compute, t.computeCycles);
    a.dram = std::max(a.dram, t.busiestThreadDramCycles);
    a.dramBytes += n * (t.readBytes + t.writeBytes);
    a.noc = std::max(a.noc, t.sendBytes / double(device.noc.measuredMulticastLinkedBytesPerCycle));
    a.mcastBytes += n * t.sendBytes;
    work += n * t.computeCycles;
  }
  a.dram = std::max(a.dram, a.dramBytes / bankBytesPerCycle(device));
  double gridCores = double(std::max(1, program.gridRows * program.gridCols));
  if (a.compute > 0) a.imbalance = a.compute - work / gridCores;
  a.latency = std::max(0.0, predicted - std::max({a.compute, a.dram, a.noc}));
  return a;
}

Bound boundOf(const Analytic& a) {
  std::pair<double, Bound> parts[] = {{a.compute, Bound::Compute},
                                      {a.dram, Bound::Dram},
                                      {a.noc, Bound::Noc},
                                      {a.latency, Bound::Latency},
                                      {a.imbalance, Bound::Imbalance}};
  return std::max_element(std::begin(parts), std::end(parts),
                          [](const auto& x, const auto& y) { return x.first < y.first; })
      ->second;
}

Rates ratesFrom(const Program& program, const std::vector<Totals>& totals,
                const ir::Device& device) {
  const ir::CostConstants& k = device.cost;
  Rates r;
  double rho = dramLoad(program, totals, device);
  r.readBytesPerCycle = double(device.dram.measuredReadBytesPerCycle) / rho;
  r.writeBytesPerCycle = double(device.dram.measuredWriteBytesPerCycle) / rho;
  r.coreReadBytesPerCycle = double(device.dram.measuredReadBytesPerCycle);
  r.coreWriteBytesPerCycle = double(device.dram.measuredWriteBytesPerCycle);
  r.dramLatencyCycles = k.dramLatencyCycles;
  r.nocRequestCycles = k.nocRequestCycles;
  // The multicast handshake links the data write and its VALID flag (docs/hardware-facts.md, NoC
  // rules).
  r.mcastBytesPerCycle = double(device.noc.measuredMulticastLinkedBytesPerCycle);
  r.nocLatencyCycles = k.nocLatencyCycles;
  r.cbSyncCycles = k.cbSyncCycles;
  return r;
}

} // namespace

Rates ratesFor(const Program& program, const ir::Device& device) {
  return ratesFrom(program, classTotals(program, device), device);
}

std::string calibrationHash(const ir::Device& device) {
  nlohmann::json j = ir::toJson(device);
  // The ranking uncertainty is measured from the predictions, not used by them: leaving it out
  // keeps records costed before it was measured current.
  j["cost"].erase("rank_uncertainty");
  // The host time factor scales host predictions only; records store device time.
  j["cost"].erase("host_time_factor");
  nlohmann::json read = {{"cost", j["cost"]},       {"dram", j["dram"]},
                         {"noc", j["noc"]},         {"compute", j["compute"]},
                         {"clock", j["clock_mhz"]}, {"tile_bytes", j["tile_bytes"]}};
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (unsigned char ch : jsonText(read)) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

Expected<Prediction> predict(const Program& program, const ir::Device& device,
                             const ModelOptions& options) {
  if (program.classes.empty()) return Error{"cost model: the program has no cores"};
  if (options.sampleLow < 1 || options.sampleHigh <= options.sampleLow)
    return Error{"cost model: need 1 <= sampleLow < sampleHigh"};
  std::vector<Totals> totals = classTotals(program, device);
  Rates rates = ratesFrom(program, totals, device);
  Prediction p;
  Expected<SimResult> sim = extrapolate(program, rates, options, p.simulations);
  if (!sim) return sim.error();
  p.simulatedSteps = sim->steps;
  p.cycles = sim->end;
  p.deviceNs = p.cycles / clockGHz(device) + device.cost.launchNs;
  p.hostNs = p.deviceNs * device.cost.hostTimeFactor + device.cost.hostDispatchNs;
  for (size_t c = 0; c < totals.size(); ++c)
    p.idealCycles += double(program.classes[c].cores) * totals[c].idealCycles;
  p.idealCycles /= double(std::max(1, program.gridRows * program.gridCols));
  p.utilization = p.cycles > 0 ? p.idealCycles / p.cycles : 0;
  p.analytic = analyticBounds(program, device, totals, p.cycles);
  p.bound = boundOf(p.analytic);
  for (size_t c = 0; c < sim->classes.size(); ++c)
    if (sim->classes[c].end > sim->classes[size_t(p.criticalClass)].end) p.criticalClass = int(c);
  const CoreClass& critical = program.classes[size_t(p.criticalClass)];
  const ClassStats& stats = sim->classes[size_t(p.criticalClass)];
  for (size_t t = 0; t < critical.threads.size(); ++t)
    p.criticalThreads.push_back({critical.threads[t].role, stats.threads[t]});
  p.criticalCbStall = stats.cbStall;
  p.modelVersion = std::string(kModelVersion);
  return p;
}

} // namespace ttlplan::search::cost
