// Every measured matmul of data/gemm/ against the shipped templates, unedited
// (issue 26): each row's shape binds (the problem knobs alone give a non-empty search space), and
// the configs it can be given plan and cost: its logged config where the file has one and its
// family is one the templates implement (2-D multicast, 1-D mcast_in0), and ttnn's default and
// tt-mlir's rule for the shape where they pick such a family.
#include "ttlplan/ir/Parser.h"
#include "ttlplan/ir/Verifier.h"
#include "ttlplan/search/Space.h"
#include "ttlplan/search/Tuner.h"
#include "ttlplan/search/baselines/TtnnBinding.h"
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"
#include "ttlplan/support/CsvTable.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace ttlplan::search {
namespace {

namespace bl = baselines;

const std::string kSource = TTLPLAN_SOURCE_DIR;
const std::string kGemm = std::string(TTLPLAN_SOURCE_DIR) + "/data/gemm/";

/// One of the shipped templates, parsed and verified once.
struct Template {
  std::unique_ptr<ir::Module> module;
  std::vector<ir::Param> params;
};

const Template& shipped(const std::string& family) {
  static std::map<std::string, Template> cache;
  Template& t = cache[family];
  if (!t.module) {
    ir::DiagnosticEngine diags;
    t.module = ir::parseFile(kSource + "/examples/matmul_" + family + "_template.ttl", diags);
    EXPECT_TRUE(t.module && ir::verify(*t.module, diags)) << ir::format(diags.diagnostics());
    if (t.module) t.params = ir::collectParams(*t.module);
  }
  return t;
}

/// A measured row: its problem, device and (when logged) config.
struct Case {
  std::string label;   ///< file:row and the shape, for failure messages
  ir::Device device;   ///< the board, with the row's compute grid
  ir::Binding problem; ///< M, K, N, DTYPE, FIDELITY, FP32_DEST_ACC
  std::string family;  ///< the logged config's template ("2d", "1d") or "" (none / another)
  ir::Binding config;  ///< the logged config's knobs (tiles)
};

ir::KnobValue sym(const std::string& s) {
  return ir::KnobValue::symbol(s);
}

/// "BFLOAT16", "bfloat16", "bf16", "BFLOAT8_B", "bfp8", ... as a data type knob value.
ir::KnobValue dtypeOf(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), ::tolower);
  if (text.find("8") != std::string::npos) return sym("bfp8_b");
  if (text.find("4") != std::string::npos) return sym("bfp4_b");
  return sym("bf16");
}

ir::Device deviceOf(const std::string& board, const std::string& grid) {
  bool blackhole = board.find("P150") != std::string::npos;
  ir::Device d = *ir::builtinDevice(blackhole ? "blackhole_p150" : "wormhole_b0");
  // "12x10": columns x rows, as the files write it.
  size_t x = grid.find('x');
  EXPECT_NE(x, std::string::npos) << grid;
  if (x != std::string::npos) {
    EXPECT_TRUE(ir::setComputeGrid(d, std::stoi(grid.substr(x + 1)), std::stoi(grid.substr(0, x))));
  }
  return d;
}

ir::Binding configBinding(uint64_t w, uint64_t h, uint64_t bw, uint64_t pm, uint64_t pn,
                          uint64_t sh, uint64_t sw) {
  return {{"in0_block_w", int64_t(w)},    {"out_block_h", int64_t(h)},
          {"out_block_w", int64_t(bw)},   {"per_core_M", int64_t(pm)},
          {"per_core_N", int64_t(pn)},    {"out_subblock_h", int64_t(sh)},
          {"out_subblock_w", int64_t(sw)}};
}

uint64_t num(const CsvRow& row, const std::string& column) {
  auto it = row.find(column);
  return it == row.end() || it->second.empty() ? 0 : std::stoull(it->second);
}

ir::Binding problemOf(uint64_t m, uint64_t k, uint64_t n, ir::KnobValue dtype,
                      const std::string& fidelity, bool fp32) {
  return {{"M", int64_t(m)},           {"K", int64_t(k)},
          {"N", int64_t(n)},           {"DTYPE", std::move(dtype)},
          {"FIDELITY", sym(fidelity)}, {"FP32_DEST_ACC", int64_t(fp32)}};
}

std::vector<CsvRow> rowsOf(const std::string& file) {
  Expected<std::vector<CsvRow>> rows = readCsvTable(kGemm + file);
  EXPECT_TRUE(rows) << (rows ? "" : rows.error().message);
  return rows ? *rows : std::vector<CsvRow>{};
}

/// Every row of every file that gives a shape.
std::vector<Case> allCases() {
  std::vector<Case> out;
  int i = 0;
  for (const CsvRow& r : rowsOf("gemm_flops_n150.csv")) {
    Case c{fmt::format("gemm_flops_n150.csv:{}", ++i),
           deviceOf(r.at("board"), r.at("grid")),
           problemOf(num(r, "M"), num(r, "K"), num(r, "N"), dtypeOf(r.at("dtype")),
                     r.at("math_fidelity"), false),
           "",
           {}};
    out.push_back(std::move(c));
  }
  i = 0;
  for (const CsvRow& r : rowsOf("best_configs_n150.csv")) {
    Case c{fmt::format("best_configs_n150.csv:{}", ++i), deviceOf(r.at("board"), r.at("grid")),
           problemOf(num(r, "M"), num(r, "K"), num(r, "N"), dtypeOf(r.at("dtype")),
                     r.at("math_fidelity"), false),
           "2d",
           configBinding(num(r, "in0_block_w"), num(r, "out_block_h"), num(r, "out_block_w"),
                         num(r, "per_core_M"), num(r, "per_core_N"), num(r, "out_subblock_h"),
                         num(r, "out_subblock_w"))};
    out.push_back(std::move(c));
  }
  for (const char* file : {"bh_sweep_calibration.csv", "bh_sweep_calibration_by_shape.csv"}) {
    i = 0;
    for (const CsvRow& r : rowsOf(file)) {
      std::string family = r.at("kernel_family") == "2d"       ? "2d"
                           : r.at("kernel_family") == "1d_in0" ? "1d"
                                                               : "";
      Case base{fmt::format("{}:{} {}", file, ++i, r.at("shape_id")),
                deviceOf(r.at("board"), r.at("grid")),
                problemOf(num(r, "M"), num(r, "K"), num(r, "N"), dtypeOf(r.at("dtype_in0")),
                          r.at("math_fidelity"), r.at("fp32_dest_acc_en") == "True"),
                "",
                {}};
      // The sweep file logs one config per row (none for metal_default); the by-shape file the
      // oracle's and the rule's ("ours") per shape.
      std::vector<std::string> prefixes = r.count("selection")
                                              ? std::vector<std::string>{""}
                                              : std::vector<std::string>{"oracle_", "ours_"};
      for (const std::string& p : prefixes) {
        Case c = base;
        if (num(r, p + "in0_block_w") != 0) {
          c.family = family;
          c.config =
              configBinding(num(r, p + "in0_block_w"), num(r, p + "out_block_h"),
                            num(r, p + "out_block_w"), num(r, "per_core_M"), num(r, "per_core_N"),
                            num(r, p + "out_subblock_h"), num(r, p + "out_subblock_w"));
        }
        out.push_back(std::move(c));
      }
    }
  }
  i = 0;
  for (const CsvRow& r : rowsOf("wh_default_selection_extremes.csv")) {
    ++i;
    if (num(r, "M") == 0) continue; // the row gives no shape
    for (const std::string side : {"legacy", "v2"}) {
      const std::string& family = r.at(side + "_family");
      Case c{fmt::format("wh_default_selection_extremes.csv:{} {} {}", i, r.at("case"), side),
             deviceOf(r.at("board"), r.at("grid")),
             problemOf(num(r, "M"), num(r, "K"), num(r, "N"), dtypeOf(r.at("dtype_hint")), "HiFi2",
                       false),
             family == "ReuseMultiCast"                ? "2d"
             : family == "ReuseMultiCast1D(mcast_in0)" ? "1d"
                                                       : "",
             {}};
      if (!c.family.empty())
        c.config = configBinding(num(r, side + "_in0_block_w"), num(r, side + "_out_block_h"),
                                 num(r, side + "_out_block_w"), num(r, side + "_per_core_M"),
                                 num(r, side + "_per_core_N"), num(r, side + "_out_subblock_h"),
                                 num(r, side + "_out_subblock_w"));
      out.push_back(std::move(c));
    }
  }
  return out;
}

/// Plans and costs `binding` (every knob bound) with the `family` template; "" or why not.
std::string planAndCost(const std::string& family, const ir::Device& device, ir::Binding binding) {
  const Template& t = shipped(family);
  if (!t.module) return "the template does not load";
  if (family == "1d" && !binding.count("grid_x"))
    binding["grid_x"] = int64_t(device.grid.compute.columns); // ttnn's default layout
  Record r = evaluatePoint(*t.module, device, {}, binding, {}, nullptr);
  if (!r.ok()) return r.reason + ": " + r.detail;
  if (!r.predictedNs || *r.predictedNs <= 0) return "no prediction";
  return "";
}

bl::MatmulProblem matmulProblem(const Case& c) {
  bl::MatmulProblem p;
  p.m = uint64_t(c.problem.at("M").integer());
  p.k = uint64_t(c.problem.at("K").integer());
  p.n = uint64_t(c.problem.at("N").integer());
  auto type = ir::parseDataType(c.problem.at("DTYPE").symbol());
  p.in0TileBytes = p.in1TileBytes = p.outTileBytes = uint32_t(c.device.tileBytes(*type));
  p.fp32DestAcc = c.problem.at("FP32_DEST_ACC").integer() != 0;
  p.gridRows = uint32_t(c.device.grid.compute.rows);
  p.gridCols = uint32_t(c.device.grid.compute.columns);
  p.l1FreeBytes = uint64_t(c.device.freeL1Bytes());
  return p;
}

std::string familyOf(bl::MatmulFamily f) {
  return f == bl::MatmulFamily::MultiCast2D      ? "2d"
         : f == bl::MatmulFamily::MultiCast1DIn0 ? "1d"
                                                 : "";
}

TEST(TemplateShapes, EveryMeasuredShapeBindsAndItsConfigsPlanAndCost) {
  std::vector<Case> cases = allCases();
  ASSERT_GT(cases.size(), 600u); // every file was read
  int logged = 0, defaults = 0, rules = 0;
  std::map<std::string, int> loggedByFamily;
  std::set<std::string> spacesBuilt; // many rows share a problem
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label + " " + ir::str(c.problem));
    // The shape binds both templates: the problem knobs give a non-empty space.
    for (const char* family : {"2d", "1d"}) {
      if (!spacesBuilt.insert(family + ir::str(c.problem)).second) continue;
      Expected<Space> space = Space::fromParams(shipped(family).params, c.problem);
      ASSERT_TRUE(space) << family << ": " << space.error().message;
      EXPECT_GT(space->size(), 0u);
    }
    if (!c.family.empty()) {
      ir::Binding b = c.problem;
      b.insert(c.config.begin(), c.config.end());
      EXPECT_EQ(planAndCost(c.family, c.device, b), "") << "logged config " << ir::str(c.config);
      ++logged;
      ++loggedByFamily[c.family];
    }
    // ttnn's default for the shape, bound through --config ttnn-default's glue.
    bl::MatmulProblem p = matmulProblem(c);
    Expected<bl::MatmulConfig> ttnn = bl::ttnnDefaultMatmulConfig(p);
    ASSERT_TRUE(ttnn) << ttnn.error().message;
    if (std::string f = familyOf(ttnn->family); !f.empty()) {
      Expected<bl::DefaultBinding> d =
          bl::ttnnDefaultBinding(shipped(f).params, c.problem, c.device);
      ASSERT_TRUE(d) << d.error().message;
      EXPECT_EQ(planAndCost(f, c.device, d->binding), "") << "ttnn default " << ttnn->why;
      ++defaults;
    }
    // tt-mlir's rule for the shape, on the kernel the sweeps route it to.
    std::string routed = familyOf(bl::sweepRoute(p));
    Expected<bl::MatmulConfig> rule = bl::ttMlirRule(p, bl::SweepOptions{});
    if (!routed.empty() && rule && familyOf(rule->family) == routed) {
      ir::Binding b = c.problem;
      ir::Binding config =
          configBinding(rule->in0BlockW, rule->outBlockH, rule->outBlockW, rule->perCoreM,
                        rule->perCoreN, rule->outSubblockH, rule->outSubblockW);
      b.insert(config.begin(), config.end());
      EXPECT_EQ(planAndCost(routed, c.device, b), "") << "tt-mlir rule " << ir::str(config);
      ++rules;
    }
  }
  // Most rows carry a config the templates implement; most shapes get ttnn's and the rule's.
  EXPECT_GT(loggedByFamily["2d"], 200);
  EXPECT_GT(loggedByFamily["1d"], 50);
  EXPECT_GT(defaults, 300);
  EXPECT_GT(rules, 300);
  RecordProperty("logged", logged);
  RecordProperty("ttnn_default", defaults);
  RecordProperty("tt_mlir_rule", rules);
}

} // namespace
} // namespace ttlplan::search
