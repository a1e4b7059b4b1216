// bench/tune_quality: how good are the autotuner's picks on measured hardware data? For every
// shape of data/gemm/bh_sweep_calibration.csv (Blackhole P150, 12x10 grid, bf16,
// HiFi4, fp32 DST accumulation) it tunes the matching template on blackhole_p150 (2-D rows:
// examples/matmul_2d_template.ttl; 1-D rows: examples/matmul_1d_template.ttl, with grid_x = the
// device's 12 columns, when that template's family can take the row's config, else the row is
// skipped and counted) with
// M, K, N, DTYPE, FIDELITY, FP32_DEST_ACC, per_core_M and per_core_N bound as the sweep had them,
// (and the sub-blocks to 1 x 1, which the planner re-picks), and in0_block_w, out_block_h,
// out_block_w and the `?` block count searched exhaustively over the shipped templates' own
// domains, unedited, as `ttlplan tune` would (search::tune, 2 threads). Then it classifies the pick
// against the two measured configs of the shape: the sweep's fastest candidate ("best"), tt-mlir's
// rule (measured: within 5 % of best or not), or unmeasured (a config no row timed: its time is not
// guessed). bench/tune_quality.md has the table, the summary and the assumptions.
//
// Usage: tune_quality [--csv FILE] [--examples DIR] [--threads N] [--max-block-count N]
//                     [--only TEXT]
//   --only  tune only the shapes whose id contains TEXT (the summary is over those)
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/search/Pick.h"
#include "ttlplan/search/Tuner.h"
#include "ttlplan/search/baselines/TtnnBinding.h"
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"
#include "ttlplan/support/CsvTable.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace ttlplan;
namespace bl = ttlplan::search::baselines;

namespace {

using Clock = std::chrono::steady_clock;

// ---- the CSV ------------------------------------------------------------------------------------

// One block config (tiles): in0_block_w, out_block_h, out_block_w.
struct Config {
  uint32_t w = 0, h = 0, bw = 0;
  bool operator==(const Config&) const = default;
  std::string str() const { return fmt::format("{}/{}/{}", w, h, bw); }
};

struct Measured {
  Config config;
  double ns = 0;
  bool present = false;
};

// One shape of the sweep: its three rows folded together.
struct Shape {
  std::string id, family; // family: 2d, 1d_in0, 1d_in1
  uint64_t m = 0, k = 0, n = 0;
  uint32_t perCoreM = 0, perCoreN = 0, candidates = 0;
  bool transposeA = false;
  Measured best, rule;
  double defaultNs = 0;
};

// The shapes of the sweep file, in file order; nullopt (with `error`) when it cannot be read.
std::optional<std::vector<Shape>> readSweep(const std::string& path, std::string& error) {
  Expected<std::vector<CsvRow>> rows = readCsvTable(path);
  if (!rows) {
    error = rows.error().message;
    return std::nullopt;
  }
  if (rows->empty()) {
    error = path + ": no rows";
    return std::nullopt;
  }
  for (const char* need :
       {"shape_id", "kernel_family", "M", "K", "N", "per_core_M", "per_core_N", "selection",
        "in0_block_w", "out_block_h", "out_block_w", "time_ns", "n_candidates", "transpose_a"})
    if (!rows->front().count(need)) {
      error = fmt::format("{}: no column '{}'", path, need);
      return std::nullopt;
    }
  std::vector<Shape> shapes;
  std::map<std::string, size_t> index;
  int lineNo = 1;
  try {
    for (const CsvRow& row : *rows) {
      ++lineNo;
      auto get = [&](const char* name) -> const std::string& { return row.at(name); };
      auto u = [&](const char* name) -> uint32_t {
        const std::string& s = get(name);
        return s.empty() ? 0 : uint32_t(std::stoul(s));
      };
      auto [it, fresh] = index.emplace(get("shape_id"), shapes.size());
      if (fresh) {
        Shape s;
        s.id = get("shape_id");
        s.family = get("kernel_family");
        s.m = std::stoull(get("M"));
        s.k = std::stoull(get("K"));
        s.n = std::stoull(get("N"));
        s.perCoreM = u("per_core_M");
        s.perCoreN = u("per_core_N");
        s.candidates = u("n_candidates");
        s.transposeA = get("transpose_a") == "True";
        shapes.push_back(s);
      }
      Shape& s = shapes[it->second];
      const std::string& selection = get("selection");
      double ns = std::stod(get("time_ns"));
      if (selection == "metal_default") {
        s.defaultNs = ns;
      } else if (selection == "oracle_best_of_candidates" || selection == "tt_mlir_rule") {
        Measured& m = selection == "tt_mlir_rule" ? s.rule : s.best;
        m.config = {u("in0_block_w"), u("out_block_h"), u("out_block_w")};
        m.ns = ns;
        m.present = true;
      }
    }
  } catch (const std::exception& e) {
    error = fmt::format("{}: data row {}: {}", path, lineNo - 1, e.what());
    return std::nullopt;
  }
  return shapes;
}

// ---- the templates ------------------------------------------------------------------------------

// The shipped template `path`, parsed and verified as `ttlplan tune` reads it (nothing edited);
// null with `error` when it does not load.
std::unique_ptr<ir::Module> loadTemplate(const std::string& path, std::string& error) {
  ir::DiagnosticEngine diags;
  std::unique_ptr<ir::Module> module = ir::parseFile(path, diags);
  if (!module || !ir::verify(*module, diags)) {
    for (const auto& d : diags.diagnostics())
      error += d.message + "; ";
    return nullptr;
  }
  return module;
}

// ---- one shape ----------------------------------------------------------------------------------

struct ConfigEval {
  std::optional<double> ns; // best predicted over the block counts; nullopt when rejected
  std::string why;          // the rejection (reason: detail) when rejected
};

struct Outcome {
  const Shape* shape = nullptr;
  std::string skipped; // why the shape was not tuned ("" when tuned)
  uint64_t spaceSize = 0, feasible = 0;
  double seconds = 0;
  std::optional<Config> pick;
  int pickBlockCount = 0;
  double pickNs = 0;
  int tiedConfigs = 0;     // distinct configs whose prediction equals the pick's
  ConfigEval best, rule;   // the model on the measured configs
  int bestRank = 0;        // the model's rank of the best config among feasible configs (1 = top)
  std::string pickClass;   // best / within5 / measured / unmeasured
  std::string pickNote;    // words
  std::string notFeasible; // no point fits: the rejection counts
  // The same search restricted to the configs the sweep timed (its candidate set): the model's
  // fastest candidate, its class (best / within5 / measured / slower: another candidate, measured
  // slower than best by an amount the CSV does not log), and the best config's rank among them.
  std::optional<Config> candidatePick;
  std::string candidateClass;
  int bestCandidateRank = 0;
  // The tuner's pick with tt-mlir's rule as its baseline (search::choosePick, margin the
  // device's cost.rank_uncertainty): the rule's config unless the fastest point is predicted
  // faster by more than the margin.
  std::optional<Config> anchored;
  std::string anchoredClass;
  bool keptRule = false;
};

const char* const kSearched[] = {"in0_block_w", "out_block_h", "out_block_w"};

std::string blockCountDim(const search::Space& space) {
  for (const search::Dimension& d : space.dimensions())
    if (d.name.rfind("block_count(", 0) == 0) return d.name;
  return "";
}

Config configOf(const ir::Binding& point) {
  return {uint32_t(point.at("in0_block_w").integer()), uint32_t(point.at("out_block_h").integer()),
          uint32_t(point.at("out_block_w").integer())};
}

// Why the sweep did not time `c` (it is not among its candidates), or "" when it is a candidate.
std::string notCandidateWhy(const Shape& s, const bl::MatmulProblem& p, const Config& c) {
  const uint64_t kt = s.k / 32;
  bl::SweepOptions o;
  o.transposeA = s.transposeA;
  if (c.w > o.maxIn0BlockW) return fmt::format("in0_block_w {} > the sweep's 32", c.w);
  if (kt > 1 && kt / c.w < 2) return "one K block (the sweep wants at least two)";
  uint64_t bytes = bl::sweepCbBytes(p, o, c.h, c.bw, c.w);
  if (bytes > o.l1Budget)
    return fmt::format("CBs {} B over the sweep's L1 budget {} B", bytes, o.l1Budget);
  return "";
}

// Why the 1-D template (mcast_in0, ceildiv(Nt, per_core_N) cores laid out grid_x = the device's
// columns to a row) cannot take the shape, as {category, detail}; empty when it can.
std::pair<std::string, std::string> oneDMisfit(const Shape& s, const ir::Device& device) {
  if (s.family != "1d_in0")
    return {"1-D mcast_in1: the 1-D template is mcast_in0 only",
            "kernel family " + s.family + ": examples/matmul_1d_template.ttl is mcast_in0 only"};
  if (uint64_t(s.perCoreM) * 32 != s.m)
    return {"1-D mcast_in0: per_core_M x 32 != M",
            fmt::format("per_core_M {} x 32 != M {} (the 1-D template owns all rows per core)",
                        s.perCoreM, s.m)};
  const uint64_t cores = (s.n / 32 + s.perCoreN - 1) / s.perCoreN;
  const uint64_t columns = uint64_t(device.grid.compute.columns);
  if ((cores + columns - 1) / columns > uint64_t(device.grid.compute.rows))
    return {"1-D mcast_in0: more cores than the grid",
            fmt::format("{} cores do not fit the {} x {} grid", cores, device.grid.compute.rows,
                        columns)};
  return {};
}

// How the sweep measured config `c`: "best", "within5" (the rule's config, measured within 5 %
// of best), "measured" (the rule's, slower), else `otherwise`.
std::string classOf(const Shape& s, const Config& c, const char* otherwise) {
  if (s.best.present && c == s.best.config) return "best";
  if (s.rule.present && c == s.rule.config)
    return s.rule.ns <= 1.05 * s.best.ns ? "within5" : "measured";
  return otherwise;
}

struct Settings {
  std::string examples;
  int threads = 2;
  int maxBlockCount = 4;
};

Outcome tuneShape(const Shape& s, const ir::Module& module, const ir::Device& device,
                  const Settings& settings) {
  Outcome out;
  out.shape = &s;
  // What a user tuning this shape binds: the problem, the sweep's per-core split and its data
  // types; every other knob keeps the template's domain (ttnn's candidate space for the shape).
  ir::Binding fixed;
  fixed["M"] = int64_t(s.m);
  fixed["K"] = int64_t(s.k);
  fixed["N"] = int64_t(s.n);
  fixed["DTYPE"] = ir::KnobValue::symbol("bf16");
  fixed["FIDELITY"] = ir::KnobValue::symbol("HiFi4");
  fixed["FP32_DEST_ACC"] = 1;
  fixed["per_core_M"] = int64_t(s.perCoreM);
  fixed["per_core_N"] = int64_t(s.perCoreN);
  // The sub-block knobs are only constrained in the templates (divide the block, fit DST); the
  // planner picks the sub-block it uses, so 1 x 1 (legal for every block) loses nothing.
  fixed["out_subblock_h"] = 1;
  fixed["out_subblock_w"] = 1;
  if (s.family != "2d") fixed["grid_x"] = int64_t(device.grid.compute.columns);

  search::TuneOptions options;
  options.threads = settings.threads;
  options.top = 1u << 20; // keep every feasible record: ties and the best config's model rank
  options.plan.maxBlockCount = settings.maxBlockCount;
  Expected<search::TuneResult> result = search::tune(module, device, fixed, options);
  if (!result) {
    out.skipped = "tune: " + result.error().message;
    return out;
  }
  out.spaceSize = result->space.size();
  out.feasible = result->feasible;
  out.seconds = result->seconds;
  if (result->top.empty() || !result->top.front().ok()) {
    for (const auto& [reason, count] : result->rejected)
      out.notFeasible += fmt::format("{}{} {}", out.notFeasible.empty() ? "" : ", ", reason, count);
    return out;
  }
  const std::string bcDim = blockCountDim(result->space);
  const search::Record& top = result->top.front();
  out.pick = configOf(top.point);
  out.pickNs = *top.predictedNs;
  if (!bcDim.empty()) out.pickBlockCount = int(top.point.at(bcDim).integer());
  // Per config, the best prediction over the block counts, in the model's order.
  std::vector<std::pair<double, Config>> ranked;
  std::set<std::string> seen;
  for (const search::Record& r : result->top) {
    if (!r.ok() || !r.predictedNs) continue;
    Config c = configOf(r.point);
    if (!seen.insert(c.str()).second) continue;
    ranked.emplace_back(*r.predictedNs, c);
    if (*r.predictedNs == out.pickNs) ++out.tiedConfigs;
  }

  // The model on the two measured configs (their best block count).
  planner::kernel::PlanCache cache;
  auto evaluate = [&](const Config& c) {
    ConfigEval e;
    for (int bc = 1; bc <= (bcDim.empty() ? 1 : settings.maxBlockCount); ++bc) {
      ir::Binding point = {{"in0_block_w", int64_t(c.w)},
                           {"out_block_h", int64_t(c.h)},
                           {"out_block_w", int64_t(c.bw)}};
      if (!bcDim.empty()) point[bcDim] = bc;
      search::Record r = search::evaluatePoint(module, device, point, fixed, options.plan, &cache);
      if (r.ok() && r.predictedNs) {
        if (!e.ns || *r.predictedNs < *e.ns) e.ns = r.predictedNs;
      } else if (e.why.empty()) {
        e.why = r.reason + ": " + r.detail;
      }
    }
    if (e.ns) e.why.clear();
    return e;
  };
  if (s.best.present) {
    out.best = evaluate(s.best.config);
    for (size_t i = 0; i < ranked.size(); ++i)
      if (ranked[i].second == s.best.config) out.bestRank = int(i + 1);
  }
  if (s.rule.present) out.rule = evaluate(s.rule.config);

  // The sweep's candidate set, and the model's order restricted to it.
  bl::MatmulProblem p;
  p.m = s.m;
  p.k = s.k;
  p.n = s.n;
  p.fp32DestAcc = true;
  bl::placeOn(p, device);
  bl::SweepOptions so;
  so.transposeA = s.transposeA;
  Expected<std::vector<bl::MatmulConfig>> cands = bl::sweepCandidates(p, so);
  auto isCandidate = [&](const Config& c) {
    if (!cands) return false;
    for (const bl::MatmulConfig& m : *cands)
      if (m.perCoreM == s.perCoreM && m.perCoreN == s.perCoreN &&
          Config{m.in0BlockW, m.outBlockH, m.outBlockW} == c)
        return true;
    return false;
  };
  int candidatesSeen = 0;
  for (const auto& [ns, c] : ranked) {
    if (!isCandidate(c)) continue;
    ++candidatesSeen;
    if (!out.candidatePick) out.candidatePick = c;
    if (s.best.present && c == s.best.config) out.bestCandidateRank = candidatesSeen;
  }
  if (out.candidatePick) out.candidateClass = classOf(s, *out.candidatePick, "slower");

  // The pick against the measurements.
  const Config& pick = *out.pick;
  out.pickClass = classOf(s, pick, "unmeasured");
  search::Record fastest;
  fastest.status = "ok";
  fastest.predictedNs = out.pickNs;
  std::optional<search::Record> rule;
  if (s.rule.present && out.rule.ns) {
    rule = search::Record();
    rule->status = "ok";
    rule->predictedNs = out.rule.ns;
  }
  search::Pick anchored = search::choosePick(fastest, rule, device.cost.rankUncertainty);
  out.keptRule = anchored.keptBaseline;
  out.anchored = anchored.keptBaseline ? s.rule.config : pick;
  out.anchoredClass = classOf(s, *out.anchored, "unmeasured");
  if (out.pickClass == "best") {
    out.pickNote = "best";
  } else if (out.pickClass != "unmeasured") {
    out.pickNote = fmt::format("rule's, +{:.1f}%", 100 * (s.rule.ns / s.best.ns - 1));
  } else {
    if (cands && cands->size() != s.candidates)
      fmt::print(stderr,
                 "note {}: baselines::sweepCandidates gives {} candidates, the CSV says "
                 "{}\n",
                 s.id, cands->size(), s.candidates);
    bool candidate = isCandidate(pick);
    std::string why = notCandidateWhy(s, p, pick);
    if (cands && candidate != why.empty())
      fmt::print(stderr, "note {}: sweepCandidates and the divisor/L1 check disagree on {}\n", s.id,
                 pick.str());
    if (cands && !candidate && why.empty()) why = "not in baselines::sweepCandidates";
    out.pickNote = why.empty() ? "unmeasured (a sweep candidate, time not logged)"
                               : "unmeasured (not a sweep candidate: " + why + ")";
  }
  return out;
}

std::string us(std::optional<double> ns) {
  return ns ? fmt::format("{:.1f}", *ns / 1000) : "-";
}

std::string pct(int n, int of) {
  return of ? fmt::format("{} ({:.0f}%)", n, 100.0 * n / of) : fmt::format("{}", n);
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// A rejection's first clause, short enough for a table cell.
std::string shortWhy(const std::string& why) {
  std::string s = why.substr(0, why.find('\n'));
  return s.size() > 110 ? s.substr(0, 107) + "..." : s;
}

} // namespace

int main(int argc, char** argv) {
  Clock::time_point start = Clock::now();
  std::string csv = std::string(TTLPLAN_SOURCE_DIR) + "/data/gemm/bh_sweep_calibration.csv";
  Settings settings;
  settings.examples = std::string(TTLPLAN_SOURCE_DIR) + "/examples";
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc)
      csv = argv[++i];
    else if (a == "--examples" && i + 1 < argc)
      settings.examples = argv[++i];
    else if (a == "--threads" && i + 1 < argc)
      settings.threads = std::stoi(argv[++i]);
    else if (a == "--max-block-count" && i + 1 < argc)
      settings.maxBlockCount = std::stoi(argv[++i]);
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else {
      fmt::print(stderr, "usage: tune_quality [--csv FILE] [--examples DIR] [--threads N] "
                         "[--max-block-count N] [--only TEXT]\n");
      return 2;
    }
  }
  std::string error;
  std::optional<std::vector<Shape>> shapes = readSweep(csv, error);
  if (!shapes) {
    fmt::print(stderr, "tune_quality: {}\n", error);
    return 1;
  }
  std::string loadError;
  std::unique_ptr<ir::Module> t2d =
      loadTemplate(settings.examples + "/matmul_2d_template.ttl", loadError);
  std::unique_ptr<ir::Module> t1d =
      loadTemplate(settings.examples + "/matmul_1d_template.ttl", loadError);
  if (!t2d || !t1d) {
    fmt::print(stderr, "tune_quality: the templates under {} do not load: {}\n", settings.examples,
               loadError);
    return 1;
  }
  Expected<ir::Device> device = ir::builtinDevice("blackhole_p150");
  if (!device) {
    fmt::print(stderr, "tune_quality: {}\n", device.error().message);
    return 1;
  }
  if (Status ok = ir::setComputeGrid(*device, 10, 12); !ok) { // "12x10" is columns x rows
    fmt::print(stderr, "tune_quality: setComputeGrid 10x12: {}\n", ok.error().message);
    return 1;
  }

  fmt::print("tune_quality: {} shapes from {}\n", shapes->size(), csv);
  fmt::print("device blackhole_p150, compute grid 10 rows x 12 columns; exhaustive search, {} "
             "threads, block counts 1..{}\n\n",
             settings.threads, settings.maxBlockCount);
  fmt::print("configs are in0_block_w/out_block_h/out_block_w (tiles); times in us; measured = "
             "the sweep's host wall clock, pred = the cost model's device time\n\n");
  fmt::print("| shape | Kt | pcM x pcN | space | fit | pick (bc) | pick pred | pick | best cfg | "
             "best meas | best pred | best rank | rule cfg | rule meas | rule/best | rule pred "
             "| pred speedup | pick of candidates (best's rank) |\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");

  std::vector<Outcome> outcomes;
  std::map<std::string, int> skipReasons;
  int considered = 0;
  for (const Shape& s : *shapes) {
    if (!only.empty() && s.id.find(only) == std::string::npos) continue;
    ++considered;
    Outcome o;
    o.shape = &s;
    std::string category;
    if (s.family != "2d") std::tie(category, o.skipped) = oneDMisfit(s, *device);
    if (o.skipped.empty()) o = tuneShape(s, s.family == "2d" ? *t2d : *t1d, *device, settings);
    if (!o.skipped.empty()) {
      ++skipReasons[category.empty() ? o.skipped : category];
      fmt::print(stderr, "skip {}: {}\n", s.id, o.skipped);
      outcomes.push_back(o);
      continue;
    }
    const double ratio = s.rule.ns / s.best.ns;
    std::string speedup = o.pick && o.rule.ns ? fmt::format("{:.2f}x", *o.rule.ns / o.pickNs) : "-";
    fmt::print(
        "| {} | {} | {} x {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | "
        "{:.3f} {} | {} | {} | {} |\n",
        s.id, s.k / 32, s.perCoreM, s.perCoreN, o.spaceSize, o.feasible,
        o.pick ? fmt::format("{} ({}){}", o.pick->str(), o.pickBlockCount,
                             o.tiedConfigs > 1 ? fmt::format(" tie of {}", o.tiedConfigs) : "")
               : "none fits: " + o.notFeasible,
        o.pick ? us(o.pickNs) : "-", o.pick ? o.pickNote : "-", s.best.config.str(), us(s.best.ns),
        o.best.ns ? us(o.best.ns) : "rejected", o.bestRank ? std::to_string(o.bestRank) : "-",
        s.rule.config.str(), us(s.rule.ns), ratio, ratio <= 1.05 ? "ok" : "slow",
        o.rule.ns ? us(o.rule.ns) : "rejected", speedup,
        o.candidatePick
            ? fmt::format("{} {} ({})", o.candidatePick->str(), o.candidateClass,
                          o.bestCandidateRank ? std::to_string(o.bestCandidateRank) : "-")
            : "-");
    std::fflush(stdout);
    outcomes.push_back(o);
  }

  // Rejections of the measured configs, once each (too long for the table).
  bool header = false;
  for (const Outcome& o : outcomes) {
    if (!o.skipped.empty()) continue;
    for (auto [what, e] : {std::pair{"best", &o.best}, std::pair{"rule", &o.rule}})
      if (!e->ns && !e->why.empty()) {
        if (!header) fmt::print("\nmeasured configs the template or the planner rejects:\n");
        header = true;
        fmt::print("  {} {} {}: {}\n", o.shape->id, what,
                   (std::string(what) == "best" ? o.shape->best : o.shape->rule).config.str(),
                   shortWhy(e->why));
      }
  }

  // Summary.
  int tuned = 0, noneFits = 0, isBest = 0, within5 = 0, measuredSlow = 0, unmeasured = 0,
      unmeasuredCandidate = 0, ruleOk = 0, ruleOkAll = 0, bestRejected = 0, ruleRejected = 0;
  int bestTaken = 0, bestTakenIsBest = 0, bestTakenWithin5 = 0;
  int candTuned = 0, candBest = 0, candWithin5 = 0, ruleIsBest = 0;
  // Per template family ("2d", "1d_in0"): shapes, candidate pick == best, rule's config == best.
  std::map<std::string, std::array<int, 3>> byFamily;
  std::vector<double> bestCandidateRanks;
  std::map<std::string, int> rejectedBy; // measured configs rejected, by reason and knobs
  std::vector<double> speedups;
  for (const Outcome& o : outcomes) {
    for (const ConfigEval* e : {&o.best, &o.rule})
      if (o.skipped.empty() && !e->ns && !e->why.empty()) {
        size_t knobs = e->why.rfind("(knobs ");
        ++rejectedBy[e->why.substr(0, e->why.find(':')) +
                     (knobs == std::string::npos ? "" : " " + e->why.substr(knobs))];
      }
    if (o.skipped.empty() && o.pick && o.best.ns) {
      ++bestTaken;
      bestTakenIsBest += o.pickClass == "best";
      bestTakenWithin5 += o.pickClass == "best" || o.pickClass == "within5";
    }
    const Shape& s = *o.shape;
    if (s.best.present && s.rule.present && s.rule.ns <= 1.05 * s.best.ns) ++ruleOkAll;
    if (!o.skipped.empty()) continue;
    ++tuned;
    if (s.rule.ns <= 1.05 * s.best.ns) ++ruleOk;
    if (!o.best.ns) ++bestRejected;
    if (!o.rule.ns) ++ruleRejected;
    if (!o.pick) {
      ++noneFits;
      continue;
    }
    if (o.pickClass == "best") ++isBest;
    if (o.pickClass == "best" || o.pickClass == "within5") ++within5;
    if (o.pickClass == "measured") ++measuredSlow;
    if (o.pickClass == "unmeasured") {
      ++unmeasured;
      if (o.pickNote.find("(a sweep candidate") != std::string::npos) ++unmeasuredCandidate;
    }
    if (o.rule.ns) speedups.push_back(*o.rule.ns / o.pickNs);
    if (s.best.present && s.rule.present && s.rule.config == s.best.config) ++ruleIsBest;
    if (o.candidatePick) {
      std::array<int, 3>& f = byFamily[s.family];
      ++f[0];
      f[1] += o.candidateClass == "best";
      f[2] += s.best.present && s.rule.present && s.rule.config == s.best.config;
      ++candTuned;
      candBest += o.candidateClass == "best";
      candWithin5 += o.candidateClass == "best" || o.candidateClass == "within5";
      if (o.bestCandidateRank) bestCandidateRanks.push_back(o.bestCandidateRank);
    }
  }
  int anchoredBest = 0, anchoredWithin5 = 0, keptRule = 0;
  for (const Outcome& o : outcomes) {
    if (!o.skipped.empty() || !o.anchored) continue;
    anchoredBest += o.anchoredClass == "best";
    anchoredWithin5 += o.anchoredClass == "best" || o.anchoredClass == "within5";
    keptRule += o.keptRule;
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  fmt::print("\nsummary\n");
  fmt::print("  THE TUNER'S PICK, tt-mlir's rule as its baseline (search::choosePick: the rule's "
             "config unless the\n  fastest point is predicted faster by more than "
             "cost.rank_uncertainty = {:.1f} %), over {} tuned shapes:\n",
             100 * device->cost.rankUncertainty, tuned);
  fmt::print("    pick == measured best:                  {} (the rule's config: {})\n",
             pct(anchoredBest, tuned), pct(ruleIsBest, tuned));
  fmt::print("    pick measured within 5 % of best:       {} (the rule's config: {})\n",
             pct(anchoredWithin5, tuned), pct(ruleOk, tuned));
  fmt::print("    kept the rule's config:                 {}\n", pct(keptRule, tuned));
  fmt::print("  the fastest predicted point alone (no baseline):\n");
  fmt::print("  shapes in the sweep:                      {}\n", considered);
  fmt::print("  shapes tuned:                             {}\n", tuned);
  for (const auto& [reason, count] : skipReasons)
    fmt::print("  skipped ({}): {}\n", reason, count);
  if (noneFits) fmt::print("  tuned, no point fits:                     {}\n", noneFits);
  fmt::print("  pick == measured best:                    {}\n", pct(isBest, tuned));
  fmt::print("  pick measured within 5 % of best:         {} (best, or the rule's config when "
             "the rule is within 5 %)\n",
             pct(within5, tuned));
  fmt::print("  pick measured, > 5 % slower than best:    {}\n", measuredSlow);
  fmt::print("  pick unmeasured:                          {} ({} sweep candidates whose time is "
             "not logged, {} outside the sweep's candidate set)\n",
             unmeasured, unmeasuredCandidate, unmeasured - unmeasuredCandidate);
  fmt::print("  rule within 5 % of best:                  {} of the tuned shapes; {} of all {}\n",
             pct(ruleOk, tuned), pct(ruleOkAll, considered), considered);
  fmt::print("  measured configs the template/planner rejects: best {}, rule {} (of {} tuned)\n",
             bestRejected, ruleRejected, tuned);
  for (const auto& [why, count] : rejectedBy)
    fmt::print("    rejected by {}: {}\n", why, count);
  fmt::print("  restricted to the sweep's candidates (the configs it timed), in {} shapes:\n",
             candTuned);
  fmt::print("    pick == measured best:                  {} (the rule's config == best: {})\n",
             pct(candBest, candTuned), pct(ruleIsBest, tuned));
  fmt::print("    pick known within 5 % of best:          {} (the rule: {}; other candidates are "
             "not timed in the CSV)\n",
             pct(candWithin5, candTuned), pct(ruleOk, tuned));
  fmt::print("    best config's rank in the model's order: median {} (over {} shapes)\n",
             median(bestCandidateRanks), bestCandidateRanks.size());
  for (const auto& [family, f] : byFamily)
    fmt::print("    {:<6} {} shapes: pick == measured best {}, the rule's config == best {}\n",
               family, f[0], pct(f[1], f[0]), pct(f[2], f[0]));
  fmt::print("  shapes whose best config the template takes: {}; there pick == best {}, pick "
             "measured within 5 % {}\n",
             bestTaken, pct(bestTakenIsBest, bestTaken), pct(bestTakenWithin5, bestTaken));
  if (!speedups.empty()) {
    auto [lo, hi] = std::minmax_element(speedups.begin(), speedups.end());
    fmt::print("  predicted speedup pick over rule's config: median {:.3f}x (min {:.3f}x, max "
               "{:.3f}x, over {} shapes where the model takes the rule's config)\n",
               median(speedups), *lo, *hi, speedups.size());
  } else {
    fmt::print("  predicted speedup pick over rule's config: - (no shape where the model takes "
               "the rule's config)\n");
  }
  fmt::print("  wall time:                                {:.1f} s\n", seconds);
  return 0;
}
