// ttnn's default matmul config and tt-mlir's rule (search/baselines/TtnnMatmulConfig.h):
// hand-derived cases (the arithmetic is in the comments), then every row of the measured data in
// data/gemm whose inputs are known (docs/baselines.md lists what is not
// reproduced).
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"

#include "ttlplan/support/CsvTable.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ttlplan;
using namespace ttlplan::search::baselines;

namespace {

constexpr uint32_t kBf16 = 2048, kBfp8 = 1088;
constexpr uint64_t kWormholeL1Free =
    1499136 - 103712; // L1 size - l1_unreserved_base (docs/hardware-facts.md)

MatmulProblem wormhole(uint64_t m, uint64_t k, uint64_t n, uint32_t in1Tile = kBf16) {
  MatmulProblem p;
  p.m = m;
  p.k = k;
  p.n = n;
  p.in1TileBytes = in1Tile;
  p.l1FreeBytes = kWormholeL1Free;
  return p;
}

/// The knobs in the data files' order: in0_block_w/out_block_h/out_block_w/per_core_M/per_core_N/
/// out_subblock_h/out_subblock_w.
std::string knobs(const MatmulConfig& c) {
  std::ostringstream s;
  s << c.in0BlockW << "/" << c.outBlockH << "/" << c.outBlockW << "/" << c.perCoreM << "/"
    << c.perCoreN << "/" << c.outSubblockH << "/" << c.outSubblockW;
  return s.str();
}

MatmulConfig ttnn(const MatmulProblem& p) {
  auto c = ttnnDefaultMatmulConfig(p);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? *c : MatmulConfig{};
}

/// The rows of a CSV file as column name -> value.
std::vector<CsvRow> readCsv(const std::string& path) {
  Expected<std::vector<CsvRow>> rows = readCsvTable(path);
  EXPECT_TRUE(rows) << rows.error().message;
  return rows ? std::move(*rows) : std::vector<CsvRow>{};
}

const std::string kGemm = std::string(TTLPLAN_SOURCE_DIR) + "/data/gemm/";

} // namespace

TEST(TtnnSubblock, WalksVolumeEightDown) {
  EXPECT_EQ(ttnnSubblock(16, 4, 8).h, 4u); // (4,2) is first and divides
  EXPECT_EQ(ttnnSubblock(16, 4, 8).w, 2u);
  EXPECT_EQ(ttnnSubblock(1, 4, 8).w, 4u); // only (1,4) of volume >= 4 divides 1 x 4
  EXPECT_EQ(ttnnSubblock(7, 3, 8).h, 7u); // (7,1) is the first that divides 7 x 3
  EXPECT_EQ(ttnnSubblock(4, 4, 4).h, 2u); // fp32 acc: volume 8..5 skipped, (2,2)
  EXPECT_EQ(ttnnSubblock(4, 4, 4).w, 2u);
  EXPECT_EQ(ttnnSubblock(13, 11, 8).h, 1u); // primes: (1,1)
  EXPECT_EQ(ttnnSubblock(13, 11, 8).w, 1u);
}

TEST(TtnnCbEstimate, HandComputed) {
  // bf16 in0, bfp8 in1, bf16 out, no fp32 acc, block 16 x 4, k 16:
  // in0 16*16*2*2048 = 1,048,576; in1 4*16*2*1088 = 139,264; out 64*2048 = 131,072;
  // interm 64*2048 = 131,072; total 1,449,984.
  EXPECT_EQ(ttnnCbEstimate(wormhole(4096, 4096, 1024, kBfp8), 16, 4, 16), 1449984u);
  // fp32 acc: the intermediate tiles are 4096 B: 1,449,984 + 64*2048 = 1,581,056.
  MatmulProblem p = wormhole(4096, 4096, 1024, kBfp8);
  p.fp32DestAcc = true;
  EXPECT_EQ(ttnnCbEstimate(p, 16, 4, 16), 1581056u);
}

TEST(TtnnDefault, Dram2dShrinksKBeforeTheBlock) {
  // 4096 x 4096 x 1024, bfp8 weights, 8x8: Mt 128, Kt 128, Nt 32; ratio 4, not narrow -> 2-D.
  // per core ceil(128/8) = 16 x ceil(32/8) = 4; in0_block_w = 128/8 = 16. (16,4,16) needs
  // 1,449,984 B > 1,395,424: the largest block (16,4) is kept and k tries 8 (divisor of 16):
  // 524,288 + 69,632 + 131,072 + 131,072 = 856,064 B fits. Sub-block of 16 x 4: (4,2).
  const MatmulConfig c = ttnn(wormhole(4096, 4096, 1024, kBfp8));
  EXPECT_EQ(c.family, MatmulFamily::MultiCast2D);
  EXPECT_EQ(knobs(c), "8/16/4/16/4/4/2");
  EXPECT_EQ(c.gridRows, 8u);
  EXPECT_EQ(c.gridCols, 8u);
  EXPECT_EQ(c.activeCores, 64u);
  EXPECT_EQ(c.cbBytes, 856064u);
}

TEST(TtnnDefault, DramOneRowOfBlocksStays2d) {
  // 256 x 4096 x 1024: Mt 8, Nt 32, ratio 4 -> 2-D even though 16 x 16 blocks make one row;
  // per core ceil(8/8) = 1 x 4, in0_block_w 128/8 = 16 fits; sub-block (1,4); 8 x 8 = 64 cores.
  const MatmulConfig c = ttnn(wormhole(256, 4096, 1024, kBfp8));
  EXPECT_EQ(c.family, MatmulFamily::MultiCast2D);
  EXPECT_EQ(knobs(c), "16/1/4/1/4/1/4");
}

TEST(TtnnDefault, WideAndTallGo1d) {
  // 32 x 4096 x 4096: M within one tile -> wide -> 1-D in0: per_core_M = 1, per_core_N =
  // ceil(ceil(4096/64)/32) = 2, in0_block_w 2 (Kt 128 even), sub-block (1,2), 64 cores.
  MatmulConfig c = ttnn(wormhole(32, 4096, 4096));
  EXPECT_EQ(c.family, MatmulFamily::MultiCast1DIn0);
  EXPECT_EQ(knobs(c), "2/1/2/1/2/1/2");
  EXPECT_EQ(c.activeCores, 64u);
  // 8192 x 256 x 256: Mt 256, Nt 8, ratio 32 -> tall -> 1-D in1: per_core_M =
  // ceil(ceil(8192/64)/32) = 4, per_core_N = 8, in0_block_w 2; CBs 32,768 + 65,536 + 65,536 +
  // 65,536 fit; sub-block (4,2); ceil(256/4) = 64 cores.
  c = ttnn(wormhole(8192, 256, 256));
  EXPECT_EQ(c.family, MatmulFamily::MultiCast1DIn1);
  EXPECT_EQ(knobs(c), "2/4/8/4/8/4/2");
  EXPECT_EQ(c.activeCores, 64u);
}

TEST(TtnnDefault, OneDShrinksToTheMostSquareBlockWithKFixed) {
  // 128 x 64 x 12288 (wide): per core 4 x ceil(ceil(12288/64)/32) = 6, k = 2. All bf16, so a block
  // h x w costs 8192 (h + w) + 4096 h w: (4,6) 180,224; (4,3) 106,496; (4,2) 81,920. Block shapes
  // by product: 24 (4,6), 12 (4,3) [more square than (2,6)], 8 (4,2), ... With 100,000 B free the
  // first that fits is (4,2).
  MatmulProblem p = wormhole(128, 64, 12288);
  p.l1FreeBytes = 100000;
  const MatmulConfig c = ttnn(p);
  EXPECT_EQ(c.family, MatmulFamily::MultiCast1DIn0);
  EXPECT_EQ(knobs(c), "2/4/2/4/6/4/2");
  EXPECT_EQ(c.activeCores, 64u); // ceil(384 / 6)
}

TEST(TtnnDefault, L1OperandCanFallBackToMultiCore) {
  // 4096 x 4096 x 1024 bf16 with in0 in L1 (8192 pages of 2 KiB over 64 banks: 524,288 B per
  // core): 871,136 B free. Factor 16 needs 1,310,720 B, factor 8 393,216 B -> 16 x 4 blocks of 8
  // tiles: 64 blocks fit 64 cores but 16 rows do not fit 8 -> no 2-D -> MultiCore.
  MatmulProblem p = wormhole(4096, 4096, 1024);
  p.allDram = false;
  p.l1FreeBytes = kWormholeL1Free - 524288;
  EXPECT_EQ(ttnn(p).family, MatmulFamily::MultiCore);
}

TEST(TtnnDefault, RejectsImpossibleInputs) {
  MatmulProblem p = wormhole(0, 32, 32);
  EXPECT_FALSE(ttnnDefaultMatmulConfig(p).ok());
  p = wormhole(32, 32, 32);
  p.gridRows = 0;
  EXPECT_FALSE(ttnnDefaultMatmulConfig(p).ok());
  p = wormhole(32, 32, 32);
  p.in1TileBytes = 0;
  EXPECT_FALSE(ttnnDefaultMatmulConfig(p).ok());
  p = wormhole(uint64_t{1} << 40, 32, 32);
  EXPECT_FALSE(ttnnDefaultMatmulConfig(p).ok());
}

// wh_default_selection_extremes.csv: the legacy default's configs for cases whose M, K, N are in
// the file (g_MxKxN_<weight dtype>_<dram|l1>, suite.py "generic": A bf16, B the weight dtype, the
// output bf16, HiFi2, no fp32 acc, 8x8). For "_l1" A and the output are L1 interleaved: at config
// time only A is allocated, ceil(Mt*Kt / 64) pages per bank, which the L1 free space loses.
TEST(TtnnDefault, WormholeLegacyRows) {
  int compared = 0, matched = 0;
  for (const auto& row : readCsv(kGemm + "wh_default_selection_extremes.csv")) {
    if (row.at("M").empty()) continue;
    const uint64_t m = std::stoull(row.at("M")), k = std::stoull(row.at("K"));
    MatmulProblem p =
        wormhole(m, k, std::stoull(row.at("N")), row.at("dtype_hint") == "bfp8" ? kBfp8 : kBf16);
    if (row.at("memory_hint") == "l1") {
      p.allDram = false;
      p.l1FreeBytes -= (m / 32 * (k / 32) + 63) / 64 * kBf16;
    }
    const MatmulConfig c = ttnn(p);
    const std::string& family = row.at("legacy_family");
    const std::string want = family == "MultiCore"                     ? "MultiCore"
                             : family == "ReuseMultiCast"              ? "MultiCast2D"
                             : family == "ReuseMultiCast1D(mcast_in0)" ? "MultiCast1D(mcast_in0)"
                                                                       : "MultiCast1D(mcast_in1)";
    std::string wantKnobs;
    if (family != "MultiCore")
      for (const char* col : {"in0_block_w", "out_block_h", "out_block_w", "per_core_M",
                              "per_core_N", "out_subblock_h", "out_subblock_w"})
        wantKnobs += (wantKnobs.empty() ? "" : "/") + row.at(std::string("legacy_") + col);
    const std::string got = c.family == MatmulFamily::MultiCore ? "" : knobs(c);
    ++compared;
    EXPECT_EQ(familyName(c.family), want) << row.at("case");
    if (row.at("case") == "g_1024x4096x1024_bfp8_l1") {
      // Known difference (docs/baselines.md): the measured legacy build packed L1-output 2-D
      // configs with the h == 1 fast-path sub-block (1,8); the source modelled walks (4,2) first.
      EXPECT_EQ(got, "2/16/16/16/16/4/2");
      EXPECT_EQ(wantKnobs, "2/16/16/16/16/1/8");
      continue;
    }
    EXPECT_EQ(got, wantKnobs) << row.at("case");
    matched += familyName(c.family) == want && got == wantKnobs;
  }
  EXPECT_EQ(compared, 13);
  EXPECT_EQ(matched, 12);
}

TEST(TtMlirRule, HandCountedCandidates) {
  // Blackhole 12 x 10, 128 x 8192 x 1024, bf16, fp32 acc: Mt 4, Kt 256, Nt 32, ratio 8 -> 2-D;
  // per core ceil(4/10) = 1 x ceil(32/12) = 3. in0_block_w in {1,2,4,8,16,32} (all leave >= 2 K
  // blocks), h in {1}, w in {1,3}: 12 candidates; the largest, (32, 1, 3), costs
  // 2 * 32 * (1 + 3) * 2048 + 3 * (2048 + 4096) = 542,720 B <= 1,400,000. The rule takes it.
  MatmulProblem p;
  p.m = 128;
  p.k = 8192;
  p.n = 1024;
  p.fp32DestAcc = true;
  p.gridRows = 10;
  p.gridCols = 12;
  const SweepOptions o;
  auto cands = sweepCandidates(p, o);
  ASSERT_TRUE(cands.ok());
  EXPECT_EQ(cands->size(), 12u);
  EXPECT_EQ(sweepCbBytes(p, o, 1, 3, 32), 542720u);
  auto pick = ttMlirRule(p, o);
  ASSERT_TRUE(pick.ok());
  EXPECT_EQ(knobs(*pick), "32/1/3/1/3/1/3");
  // With 100,000 B even (1, 1, 1) (2 * 1 * 2 * 2048 + 6144 = 14,336) fits, but with 10,000 none.
  SweepOptions tight;
  tight.l1Budget = 10000;
  EXPECT_FALSE(ttMlirRule(p, tight).ok());
}

// bh_sweep_calibration.csv: every tt_mlir_rule row (Blackhole P150, 12 x 10, bf16, HiFi4, fp32
// dest acc, DRAM interleaved): the route, the per-core shape, the candidate count and the pick.
TEST(TtMlirRule, BlackholeSweepRows) {
  int rows = 0;
  for (const auto& row : readCsv(kGemm + "bh_sweep_calibration.csv")) {
    if (row.at("selection") != "tt_mlir_rule") continue;
    ++rows;
    MatmulProblem p;
    p.m = std::stoull(row.at("M"));
    p.k = std::stoull(row.at("K"));
    p.n = std::stoull(row.at("N"));
    p.fp32DestAcc = row.at("fp32_dest_acc_en") == "True";
    p.gridRows = 10;
    p.gridCols = 12;
    SweepOptions o;
    o.transposeA = row.at("transpose_a") == "True";
    const std::string& family = row.at("kernel_family");
    const MatmulFamily route = sweepRoute(p);
    EXPECT_EQ(route, family == "2d"       ? MatmulFamily::MultiCast2D
                     : family == "1d_in0" ? MatmulFamily::MultiCast1DIn0
                                          : MatmulFamily::MultiCast1DIn1)
        << row.at("shape_id");
    auto cands = sweepCandidates(p, o);
    auto pick = ttMlirRule(p, o);
    ASSERT_TRUE(cands.ok() && pick.ok()) << row.at("shape_id");
    EXPECT_EQ(std::to_string(cands->size()), row.at("n_candidates")) << row.at("shape_id");
    const std::string want = row.at("in0_block_w") + "/" + row.at("out_block_h") + "/" +
                             row.at("out_block_w") + "/" + row.at("per_core_M") + "/" +
                             row.at("per_core_N") + "/" + row.at("out_subblock_h") + "/" +
                             row.at("out_subblock_w");
    EXPECT_EQ(knobs(*pick), want) << row.at("shape_id");
  }
  EXPECT_EQ(rows, 88);
}
