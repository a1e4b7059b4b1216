// bench/cost_calibration: predicts every row of data/gemm/ whose program config is
// known or derivable (out-of-box rows through ttnn's default config) with the cost model, and
// prints per file the rows predicted, the median and 90th percentile of |predicted/measured - 1|,
// Spearman's rank correlation and, for the Blackhole sweep, the share of (best, rule) pairs the
// model orders like the measurement (docs/cost-model.md has the table and what each row compares).
//
// Usage: cost_calibration [--data DIR] [--rows] [--fit wormhole_b0|blackhole_p150] [--fix NAME]..
//                         [--set DEVICE.NAME=VALUE].. [--explain S]
//   --rows  also print every row (shape, config, measured, predicted, bound)
//   --fit   search the device's fitted cost constants (cost.*) for the least median error over
//           that device's rows, and print them (docs/cost-model.md, "Calibration")
//   --fix   keep the cost constant NAME at its value in the fit
//   --set   use VALUE for DEVICE's cost constant NAME (before a fit, which starts from it)
//   --explain  print the bound, the core classes and the critical core's threads of every row
//           whose label contains S
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"
#include "ttlplan/search/cost/MatmulProgram.h"
#include "ttlplan/search/cost/Model.h"
#include "ttlplan/support/CsvTable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ttlplan;
using namespace ttlplan::search;

namespace {

using Row = CsvRow;

// The rows of a shipped CSV file; the program stops with the reader's message when it is broken.
std::vector<Row> readCsv(const std::string& path) {
  Expected<std::vector<CsvRow>> rows = readCsvTable(path);
  if (!rows) {
    std::fprintf(stderr, "cost_calibration: %s\n", rows.error().message.c_str());
    std::exit(1);
  }
  return std::move(*rows);
}

uint32_t tileBytes(std::string dtype) {
  std::transform(dtype.begin(), dtype.end(), dtype.begin(), ::tolower);
  if (dtype.find("4") != std::string::npos) return 576;
  if (dtype.find("8") != std::string::npos) return 1088;
  if (dtype.find("32") != std::string::npos) return 4096;
  return 2048;
}

uint32_t num(const Row& row, const std::string& key) {
  auto it = row.find(key);
  return it == row.end() || it->second.empty() ? 0 : uint32_t(std::stoul(it->second));
}

double real(const Row& row, const std::string& key) {
  auto it = row.find(key);
  return it == row.end() || it->second.empty() ? 0 : std::stod(it->second);
}

// One measured run to predict.
struct Case {
  std::string file;
  std::string label;  // shape and config, for --rows
  std::string device; // wormhole_b0 / blackhole_p150
  cost::MatmulRun run;
  double measuredNs = 0;
  bool hostMeasured = false; // compare with Prediction::hostNs
  std::string pairKey;       // sweep: shape id; "" otherwise
  std::string selection;     // sweep: oracle_best_of_candidates / tt_mlir_rule / metal_default
  double predictedNs = 0;    // filled in
  std::string bound;
  std::string error; // why it could not be predicted
};

baselines::MatmulProblem problemOf(uint64_t m, uint64_t k, uint64_t n, uint32_t tile, int rows,
                                   int cols, bool fp32) {
  baselines::MatmulProblem p;
  p.m = m;
  p.k = k;
  p.n = n;
  p.in0TileBytes = p.in1TileBytes = p.outTileBytes = tile;
  p.fp32DestAcc = fp32;
  p.gridRows = uint32_t(rows);
  p.gridCols = uint32_t(cols);
  return p;
}

// The config from explicit columns, with `prefix` ("" or "legacy_" ...).
baselines::MatmulConfig configOf(const Row& row, baselines::MatmulFamily family,
                                 const std::string& prefix = "") {
  baselines::MatmulConfig c;
  c.family = family;
  c.in0BlockW = num(row, prefix + "in0_block_w");
  c.outSubblockH = num(row, prefix + "out_subblock_h");
  c.outSubblockW = num(row, prefix + "out_subblock_w");
  c.outBlockH = num(row, prefix + "out_block_h");
  c.outBlockW = num(row, prefix + "out_block_w");
  c.perCoreM = num(row, prefix + "per_core_M");
  c.perCoreN = num(row, prefix + "per_core_N");
  return c;
}

// Fills the config from ttnn's default selection; false (with the reason) when it cannot.
bool defaultConfig(Case& c) {
  Expected<baselines::MatmulConfig> config = baselines::ttnnDefaultMatmulConfig(c.run.problem);
  if (!config) {
    c.error = config.error().message;
    return false;
  }
  c.run.config = *config;
  return true;
}

std::vector<Case> gemmFlops(const std::string& dir) {
  std::vector<Case> out;
  for (const Row& row : readCsv(dir + "/gemm_flops_n150.csv")) {
    Case c;
    c.file = "gemm_flops_n150.csv";
    c.device = "wormhole_b0";
    c.label = fmt::format("{}x{}x{} {} {} {}", row.at("M"), row.at("K"), row.at("N"),
                          row.at("dtype"), row.at("math_fidelity"), row.at("table"));
    c.run.problem = problemOf(num(row, "M"), num(row, "K"), num(row, "N"),
                              tileBytes(row.at("dtype")), 8, 8, false);
    c.run.fidelity = row.at("math_fidelity");
    c.measuredNs = real(row, "device_time_ns_derived");
    if (row.at("table") != "out_of_box") {
      c.error = "manually tuned: the report does not give the program config";
    } else {
      defaultConfig(c);
    }
    out.push_back(c);
  }
  return out;
}

std::vector<Case> bestConfigs(const std::string& dir) {
  std::vector<Case> out;
  for (const Row& row : readCsv(dir + "/best_configs_n150.csv")) {
    Case c;
    c.file = "best_configs_n150.csv";
    c.device = "wormhole_b0";
    c.run.problem = problemOf(num(row, "M"), num(row, "K"), num(row, "N"),
                              tileBytes(row.at("dtype")), 8, 8, false);
    c.run.config = configOf(row, baselines::MatmulFamily::MultiCast2D);
    c.run.fidelity = row.at("math_fidelity");
    c.run.in0InL1 = row.at("in0_sharded") == "True";
    c.run.outInL1 = row.at("out_sharded") == "True";
    c.measuredNs = real(row, "inference_time_avg_ns");
    // Host-measured with or without trace (the README: inference_time_avg_ns is the host's
    // time per op; the file's utilisation column is host_based): the same 4096^3 BFP4 LoFi
    // config is 802 us here, traced, where GEMM_FLOPS gives 637 us of device time.
    c.hostMeasured = true;
    c.label = fmt::format("{}x{}x{} {} {} trace={}", row.at("M"), row.at("K"), row.at("N"),
                          row.at("dtype"), row.at("math_fidelity"), row.at("use_trace"));
    out.push_back(c);
  }
  return out;
}

std::vector<Case> bhSweep(const std::string& dir) {
  std::vector<Case> out;
  for (const Row& row : readCsv(dir + "/bh_sweep_calibration.csv")) {
    Case c;
    c.file = "bh_sweep_calibration.csv";
    c.device = "blackhole_p150";
    // "12x10" is columns x rows (120 cores).
    c.run.problem =
        problemOf(num(row, "M"), num(row, "K"), num(row, "N"), tileBytes(row.at("dtype_in0")), 10,
                  12, row.at("fp32_dest_acc_en") == "True");
    c.run.fidelity = row.at("math_fidelity");
    c.measuredNs = real(row, "time_ns");
    c.hostMeasured = true;
    c.pairKey = row.at("shape_id");
    c.selection = row.at("selection");
    const std::string& kind = row.at("kernel_family"); // 2d, 1d_in0, 1d_in1
    auto family = kind == "1d_in0"   ? baselines::MatmulFamily::MultiCast1DIn0
                  : kind == "1d_in1" ? baselines::MatmulFamily::MultiCast1DIn1
                                     : baselines::MatmulFamily::MultiCast2D;
    if (c.selection == "metal_default") {
      defaultConfig(c);
    } else {
      c.run.config = configOf(row, family);
    }
    c.label = fmt::format("{} {}", c.pairKey, c.selection);
    out.push_back(c);
  }
  return out;
}

baselines::MatmulFamily familyOf(const std::string& text) {
  if (text.find("1D") == std::string::npos) return baselines::MatmulFamily::MultiCast2D;
  return text.find("in1") != std::string::npos ? baselines::MatmulFamily::MultiCast1DIn1
                                               : baselines::MatmulFamily::MultiCast1DIn0;
}

std::vector<Case> whExtremes(const std::string& dir) {
  std::vector<Case> out;
  for (const Row& row : readCsv(dir + "/wh_default_selection_extremes.csv")) {
    for (std::string which : {"legacy", "v2"}) {
      Case c;
      c.file = "wh_default_selection_extremes.csv";
      c.device = "wormhole_b0";
      c.label = fmt::format("{} {} {}", row.at("case"), which, row.at(which + "_config"));
      c.measuredNs = real(row, which + "_device_us") * 1000;
      c.pairKey = row.at("case"); // legacy and v2: two configs of one shape
      c.selection = which;
      if (num(row, "M") == 0) {
        c.error = "the shape is not given";
      } else {
        // The suite's generic cases (tenstorrent/tt-metal
        // tests/ttnn/unit_tests/benchmarks/matmul_oob/cases.csv, the commit of the summary): A is
        // bf16 and the dtype hint is B's (the weights'); the output takes A's dtype; HiFi2, no fp32
        // accumulation, packer L1 accumulation on. The memory hint places A and the output (L1
        // interleaved, modelled as DRAM: docs/cost-model.md); B is always in DRAM.
        c.run.problem =
            problemOf(num(row, "M"), num(row, "K"), num(row, "N"), tileBytes("bf16"), 8, 8, false);
        c.run.problem.in1TileBytes = tileBytes(row.at("dtype_hint"));
        c.run.config = configOf(row, familyOf(row.at(which + "_family")), which + "_");
        c.run.fidelity = "HiFi2";
        c.run.packerL1Acc = true;
      }
      out.push_back(c);
    }
  }
  return out;
}

std::string explainFilter; // --explain: rows whose label contains this get a breakdown

void explain(const Case& c, const cost::Program& program, const cost::Prediction& p) {
  fmt::print("{}: {} cycles, bound {}, compute {:.0f} dram {:.0f} noc {:.0f} latency {:.0f} "
             "imbalance {:.0f}, {} sims\n",
             c.label, p.cycles, cost::toString(p.bound), p.analytic.compute, p.analytic.dram,
             p.analytic.noc, p.analytic.latency, p.analytic.imbalance, p.simulations);
  for (size_t i = 0; i < program.classes.size(); ++i)
    fmt::print("  class {} ({} cores): {}\n", i, program.classes[i].cores, program.classes[i].name);
  fmt::print("  critical class {}\n", p.criticalClass);
  for (const cost::ThreadReport& t : p.criticalThreads)
    fmt::print("    thread {}: end {:.0f} busy {:.0f} full {:.0f} empty {:.0f} transfer {:.0f} "
               "net {:.0f}\n",
               int(t.role), t.stats.end, t.stats.busy, t.stats.stallCbFull, t.stats.stallCbEmpty,
               t.stats.stallTransfer, t.stats.stallNet);
}

void predictAll(std::vector<Case>& cases, const std::map<std::string, ir::Device>& devices) {
  for (Case& c : cases) {
    if (!c.error.empty()) continue;
    const ir::Device& d = devices.at(c.device);
    Expected<cost::Program> program = cost::matmulProgram(c.run, d);
    if (!program) {
      c.error = program.error().message;
      continue;
    }
    Expected<cost::Prediction> p = cost::predict(*program, d);
    if (!p) {
      c.error = p.error().message;
      continue;
    }
    c.predictedNs = c.hostMeasured ? p->hostNs : p->deviceNs;
    if (!explainFilter.empty() && c.label.find(explainFilter) != std::string::npos)
      explain(c, *program, *p);
    c.bound = std::string(cost::toString(p->bound));
  }
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  double pos = q * double(v.size() - 1);
  size_t i = size_t(pos);
  double f = pos - double(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
      ++j;
    for (size_t k = i; k <= j; ++k)
      r[order[k]] = double(i + j) / 2;
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2) return NAN;
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ma += ra[i];
    mb += rb[i];
  }
  ma /= double(a.size());
  mb /= double(a.size());
  double num = 0, da = 0, db = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) * (ra[i] - ma);
    db += (rb[i] - mb) * (rb[i] - mb);
  }
  return num / std::sqrt(da * db);
}

struct Summary {
  int predicted = 0, skipped = 0;
  double median = NAN, p90 = NAN, rho = NAN;
  double medianRatio = NAN; ///< median predicted / measured: the bias the error's size hides
  int hostRows = 0;         ///< rows measured on the host (scored against Prediction::hostNs)
  int pairs = 0, pairsAgree = 0;
};

Summary summarize(const std::vector<Case>& cases, const std::string& file) {
  Summary s;
  std::vector<double> errors, ratios, measured, predicted;
  std::map<std::string, std::map<std::string, const Case*>> bySweep;
  for (const Case& c : cases) {
    if (c.file != file) continue;
    if (!c.error.empty() || c.predictedNs <= 0 || c.measuredNs <= 0) {
      ++s.skipped;
      continue;
    }
    ++s.predicted;
    errors.push_back(std::abs(c.predictedNs / c.measuredNs - 1));
    ratios.push_back(c.predictedNs / c.measuredNs);
    s.hostRows += c.hostMeasured ? 1 : 0;
    measured.push_back(c.measuredNs);
    predicted.push_back(c.predictedNs);
    if (!c.pairKey.empty()) bySweep[c.pairKey][c.selection] = &c;
  }
  s.median = quantile(errors, 0.5);
  s.medianRatio = quantile(ratios, 0.5);
  s.p90 = quantile(errors, 0.9);
  s.rho = spearman(measured, predicted);
  for (const auto& [shape, sel] : bySweep) {
    auto best = sel.find("oracle_best_of_candidates"), rule = sel.find("tt_mlir_rule");
    if (best == sel.end() || rule == sel.end()) continue;
    const Case& b = *best->second;
    const Case& r = *rule->second;
    if (b.measuredNs == r.measuredNs) continue; // a tie orders nothing
    ++s.pairs;
    if ((b.measuredNs < r.measuredNs) == (b.predictedNs < r.predictedNs)) ++s.pairsAgree;
  }
  return s;
}

const char* const kFiles[] = {"gemm_flops_n150.csv", "best_configs_n150.csv",
                              "bh_sweep_calibration.csv", "wh_default_selection_extremes.csv"};

std::vector<Case> allCases(const std::string& dir) {
  std::vector<Case> cases;
  for (auto reader : {gemmFlops, bestConfigs, bhSweep, whExtremes}) {
    std::vector<Case> more = reader(dir);
    cases.insert(cases.end(), more.begin(), more.end());
  }
  return cases;
}

void printTable(const std::vector<Case>& cases) {
  // "time": what the file's rows measure, and so the prediction each is scored against: device
  // kernel time (Prediction::deviceNs) or host wall clock (Prediction::hostNs, device times
  // cost.host_time_factor plus dispatch). "ratio" is the median predicted / measured (1 = no bias).
  fmt::print("{:<36} {:>6} {:>6} {:>7} {:>9} {:>9} {:>7} {:>9} {:>12}\n", "file", "rows", "skip",
             "time", "median", "p90", "ratio", "spearman", "pairs");
  for (const char* file : kFiles) {
    Summary s = summarize(cases, file);
    std::string pairs = s.pairs ? fmt::format("{}/{} {:.0f}%", s.pairsAgree, s.pairs,
                                              100.0 * s.pairsAgree / s.pairs)
                                : "-";
    const char* time = s.hostRows == 0 ? "device" : s.hostRows == s.predicted ? "host" : "mixed";
    fmt::print("{:<36} {:>6} {:>6} {:>7} {:>8.1f}% {:>8.1f}% {:>7.3f} {:>9.3f} {:>12}\n", file,
               s.predicted, s.skipped, time, 100 * s.median, 100 * s.p90, s.medianRatio, s.rho,
               pairs);
  }
}

// How far the model's ratio of two configs of one shape is from the measured ratio: over every
// pair of predicted rows with the same pairKey (the sweep's three rows of a shape, the extremes'
// legacy and v2), |ln(predicted a / predicted b) - ln(measured a / measured b)|. Its 75th
// percentile, as a fraction, is the device's cost.rank_uncertainty: a predicted gain below it is
// within the model's error on the order of two configs (search::choosePick keeps the baseline).
struct PairError {
  int pairs = 0;
  double median = NAN, p75 = NAN; ///< exp(quantile) - 1
};

PairError pairError(const std::vector<Case>& cases, const std::string& device) {
  std::map<std::string, std::vector<const Case*>> groups;
  for (const Case& c : cases)
    if (c.device == device && !c.pairKey.empty() && c.error.empty() && c.predictedNs > 0 &&
        c.measuredNs > 0)
      groups[c.file + "/" + c.pairKey].push_back(&c);
  std::vector<double> errors;
  for (const auto& [key, group] : groups)
    for (size_t i = 0; i < group.size(); ++i)
      for (size_t j = i + 1; j < group.size(); ++j)
        errors.push_back(std::abs(std::log(group[i]->predictedNs / group[j]->predictedNs) -
                                  std::log(group[i]->measuredNs / group[j]->measuredNs)));
  PairError e;
  e.pairs = int(errors.size());
  if (errors.empty()) return e;
  e.median = std::exp(quantile(errors, 0.5)) - 1;
  e.p75 = std::exp(quantile(errors, 0.75)) - 1;
  return e;
}

void printPairErrors(const std::vector<Case>& cases) {
  fmt::print("\nranking error on same-shape pairs (|ln(pred ratio / measured ratio)|; the p75 is "
             "cost.rank_uncertainty)\n");
  for (const char* device : {"wormhole_b0", "blackhole_p150"}) {
    PairError e = pairError(cases, device);
    fmt::print("{:<16} {:>4} pairs  median {:>5.1f}%  p75 {:>5.1f}%\n", device, e.pairs,
               100 * e.median, 100 * e.p75);
  }
}

// The fit's objective over `device`'s rows: median |log(predicted / measured)|, a quarter of its
// 90th percentile, and the share of misordered (best, rule) pairs.
double objective(std::vector<Case> cases, const std::map<std::string, ir::Device>& devices,
                 const std::string& device) {
  std::vector<Case> mine;
  for (Case& c : cases)
    if (c.device == device) mine.push_back(c);
  predictAll(mine, devices);
  std::vector<double> e;
  for (const Case& c : mine)
    if (c.error.empty() && c.predictedNs > 0 && c.measuredNs > 0)
      e.push_back(std::abs(std::log(c.predictedNs / c.measuredNs)));
  double value = quantile(e, 0.5) + 0.25 * quantile(e, 0.9);
  // Ranking matters as much as the times: each (best, rule) pair ordered wrongly costs 0.25 /
  // pairs (the sweep file only).
  Summary sweep = summarize(mine, "bh_sweep_calibration.csv");
  if (sweep.pairs) value += 0.25 * double(sweep.pairs - sweep.pairsAgree) / double(sweep.pairs);
  return value;
}

// The fitted constants (cost.*) by their device-file names.
std::vector<std::pair<const char*, double*>> fittedConstants(ir::CostConstants& k) {
  return {{"matmul_fpu_efficiency", &k.matmulFpuEfficiency},
          {"unpack_bytes_per_cycle", &k.unpackBytesPerCycle},
          {"unpack_cycles_per_tile", &k.unpackCyclesPerTile},
          {"pack_bytes_per_cycle", &k.packBytesPerCycle},
          {"pack_cycles_per_tile", &k.packCyclesPerTile},
          {"dst_round_cycles", &k.dstRoundCycles},
          {"cb_sync_cycles", &k.cbSyncCycles},
          {"noc_request_cycles", &k.nocRequestCycles},
          {"dram_latency_cycles", &k.dramLatencyCycles},
          {"noc_latency_cycles", &k.nocLatencyCycles},
          {"launch_ns", &k.launchNs},
          {"host_dispatch_ns", &k.hostDispatchNs}};
}

// The slot of the fitted constant `name`, or nullptr when there is none of that name.
double* fittedConstant(ir::CostConstants& k, const std::string& name) {
  for (auto [known, slot] : fittedConstants(k))
    if (name == known) return slot;
  return nullptr;
}

// Coordinate search over the fitted constants, a factor at a time, until no step helps. The
// constants named in `fixed` keep their values.
void fit(const std::vector<Case>& cases, std::map<std::string, ir::Device>& devices,
         const std::string& device, const std::vector<std::string>& fixed) {
  ir::CostConstants& k = devices.at(device).cost;
  std::vector<std::pair<const char*, double*>> params;
  for (auto [name, value] : fittedConstants(k))
    if (std::find(fixed.begin(), fixed.end(), name) == fixed.end())
      params.emplace_back(name, value);
  double best = objective(cases, devices, device);
  fmt::print("fit {}: start {:.4f}\n", device, best);
  for (double step : {2.0, 1.4, 1.15, 1.05}) {
    for (bool improved = true; improved;) {
      improved = false;
      for (auto [name, value] : params) {
        for (double f : {step, 1 / step}) {
          double old = *value;
          double next = old * f;
          if (value == &k.matmulFpuEfficiency) next = std::min(1.0, next);
          *value = next;
          double v = objective(cases, devices, device);
          if (v < best - 1e-6) {
            best = v;
            improved = true;
          } else {
            *value = old;
          }
        }
      }
    }
    fmt::print("  step {:.2f}: {:.4f}\n", step, best);
  }
  for (auto [name, value] : fittedConstants(k))
    fmt::print("    \"{}\": {:.4g},\n", name, *value);
}

// Applies one --set DEVICE.NAME=VALUE; false (with a message) when it names no fitted constant.
bool applySetting(const std::string& setting, std::map<std::string, ir::Device>& devices) {
  size_t dot = setting.find('.'), eq = setting.find('=');
  if (dot != std::string::npos && eq != std::string::npos && dot < eq) {
    auto device = devices.find(setting.substr(0, dot));
    std::string name = setting.substr(dot + 1, eq - dot - 1);
    char* end = nullptr;
    double value = std::strtod(setting.c_str() + eq + 1, &end);
    bool valid =
        *end == '\0' && end != setting.c_str() + eq + 1 && std::isfinite(value) && value > 0;
    double* slot = device != devices.end() ? fittedConstant(device->second.cost, name) : nullptr;
    if (slot && valid) {
      *slot = value;
      return true;
    }
  }
  fmt::print(stderr,
             "cost_calibration: --set takes DEVICE.NAME=VALUE with DEVICE wormhole_b0 or "
             "blackhole_p150, NAME a cost.* constant and VALUE a number > 0, not '{}'\n",
             setting);
  return false;
}

} // namespace

int main(int argc, char** argv) {
  std::string dir = std::string(TTLPLAN_SOURCE_DIR) + "/data/gemm";
  bool rows = false;
  std::string fitDevice;
  std::vector<std::string> fixed, settings;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data" && i + 1 < argc)
      dir = argv[++i];
    else if (a == "--rows")
      rows = true;
    else if (a == "--fit" && i + 1 < argc)
      fitDevice = argv[++i];
    else if (a == "--fix" && i + 1 < argc)
      fixed.push_back(argv[++i]);
    else if (a == "--set" && i + 1 < argc)
      settings.push_back(argv[++i]);
    else if (a == "--explain" && i + 1 < argc)
      explainFilter = argv[++i];
    else {
      fmt::print(stderr, "usage: cost_calibration [--data DIR] [--rows] [--fit DEVICE] "
                         "[--fix NAME].. [--set DEVICE.NAME=VALUE].. [--explain TEXT]\n");
      return 2;
    }
  }
  std::map<std::string, ir::Device> devices;
  for (const char* name : {"wormhole_b0", "blackhole_p150"}) {
    Expected<ir::Device> d = ir::builtinDevice(name);
    if (!d) {
      fmt::print(stderr, "{}\n", d.error().message);
      return 1;
    }
    devices.emplace(name, *d);
  }
  for (const std::string& setting : settings)
    if (!applySetting(setting, devices)) return 2;
  std::vector<Case> cases = allCases(dir);
  if (cases.empty()) {
    fmt::print(stderr, "cost_calibration: no rows under {}\n", dir);
    return 1;
  }
  for (const std::string& name : fixed) {
    if (fitDevice.empty() || !fittedConstant(devices.begin()->second.cost, name)) {
      fmt::print(stderr,
                 "cost_calibration: --fix takes a cost.* constant and needs --fit, not "
                 "'{}'\n",
                 name);
      return 2;
    }
  }
  if (!fitDevice.empty()) {
    if (!devices.count(fitDevice)) {
      fmt::print(stderr, "cost_calibration: --fit takes wormhole_b0 or blackhole_p150\n");
      return 2;
    }
    fit(cases, devices, fitDevice, fixed);
  }
  predictAll(cases, devices);
  fmt::print("cost model {}, calibration wormhole_b0 {} blackhole_p150 {}\n", cost::kModelVersion,
             cost::calibrationHash(devices.at("wormhole_b0")),
             cost::calibrationHash(devices.at("blackhole_p150")));
  if (rows)
    for (const Case& c : cases) {
      const baselines::MatmulConfig& k = c.run.config;
      fmt::print("{:<34} {:<60} {:<18} meas {:>10.0f} pred {:>10.0f} {:>6.2f} {} {}\n", c.file,
                 c.label,
                 fmt::format("{}/{}/{}/{}/{}/{}/{}", k.in0BlockW, k.outBlockH, k.outBlockW,
                             k.perCoreM, k.perCoreN, k.outSubblockH, k.outSubblockW),
                 c.measuredNs, c.predictedNs, c.predictedNs / c.measuredNs, c.bound, c.error);
    }
  printTable(cases);
  printPairErrors(cases);
  return 0;
}
