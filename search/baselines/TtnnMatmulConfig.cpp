// ttnn's default matmul program config and tt-mlir's rule (see the header for the sources:
// tenstorrent/tt-metal ttnn/cpp/ttnn/operations/matmul/device/config/matmul_program_config.cpp,
// .../device/utilities/matmul_utilities.cpp, and
// tests/ttnn/unit_tests/benchmarks/matmul_oob/gist/matmul_sweep_{2d,1d}.py). Our own code; the
// rules are described in docs/baselines.md.
#include "ttlplan/search/baselines/TtnnMatmulConfig.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

namespace ttlplan::search::baselines {
namespace {

constexpr uint64_t kTile = 32;            // elements per tile side
constexpr uint32_t kBf16TileBytes = 2048; // Float16_b tile
constexpr uint32_t kFp32TileBytes = 4096; // Float32 tile
constexpr uint32_t kInputDepth = 2;       // MCAST_INPUT_BUFFERING_DEPTH (double-buffered in0/in1)
constexpr uint64_t kNarrowRatio = 8;      // NARROW_SHAPE_RATIO_THRESHOLD

uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

/// The problem in tiles.
struct Tiles {
  uint32_t mt = 0; ///< M tiles
  uint32_t kt = 0; ///< K tiles
  uint32_t nt = 0; ///< N tiles
};

Tiles tilesOf(const MatmulProblem& p) {
  return {static_cast<uint32_t>(ceilDiv(p.m, kTile)), static_cast<uint32_t>(ceilDiv(p.k, kTile)),
          static_cast<uint32_t>(ceilDiv(p.n, kTile))};
}

Status checkProblem(const MatmulProblem& p) {
  if (p.m == 0 || p.k == 0 || p.n == 0)
    return Error{"matmul baseline: M, K and N must be positive"};
  if (ceilDiv(p.m, kTile) > UINT32_MAX || ceilDiv(p.k, kTile) > UINT32_MAX ||
      ceilDiv(p.n, kTile) > UINT32_MAX)
    return Error{"matmul baseline: a dimension has more than 2^32 tiles"};
  if (p.gridRows == 0 || p.gridCols == 0)
    return Error{"matmul baseline: the compute grid must have at least one row and one column"};
  if (p.in0TileBytes == 0 || p.in1TileBytes == 0 || p.outTileBytes == 0)
    return Error{"matmul baseline: tile sizes must be positive"};
  return Status::success();
}

/// estimate_interm_tile_size: fp32 accumulation needs Float32 tiles, else the larger of bf16
/// (packer L1 accumulation) and the output tile.
uint32_t intermTileBytes(const MatmulProblem& p) {
  return p.fp32DestAcc ? kFp32TileBytes : std::max(kBf16TileBytes, p.outTileBytes);
}

bool fitsL1(const MatmulProblem& p, uint32_t h, uint32_t w, uint32_t k) {
  return ttnnCbEstimate(p, h, w, k) < p.l1FreeBytes; // strict, as ttnn compares
}

/// is_narrow_shape: one side more than 8 times the other (integer ratio), or, all in DRAM, one side
/// within a single tile.
bool isNarrow(uint64_t height, uint64_t width, bool allDram) {
  const uint64_t ratio = height > width ? height / width : width / height;
  if (ratio > kNarrowRatio) return true;
  return allDram && (height <= kTile || width <= kTile);
}

/// Output block shapes (m, n) that get_multi_dim_per_core_factor tries, largest m*n first: the
/// divisors of perCoreM (perCoreM, 1, then perCoreM/2 down to 2) crossed with those of perCoreN;
/// per product the most square pair is kept (a later pair replaces an equally square one).
std::vector<std::pair<uint32_t, uint32_t>> blockShapes(uint32_t perCoreM, uint32_t perCoreN) {
  auto divisorsOf = [](uint32_t v) {
    std::vector<uint32_t> out{v, 1};
    for (uint32_t d = v / 2; d > 1; --d)
      if (v % d == 0) out.push_back(d);
    return out;
  };
  auto ratio = [](uint32_t a, uint32_t b) {
    return static_cast<float>(std::max(a, b)) / static_cast<float>(std::min(a, b));
  };
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> byProduct;
  for (uint32_t m : divisorsOf(perCoreM))
    for (uint32_t n : divisorsOf(perCoreN)) {
      const uint64_t product = uint64_t{m} * n;
      auto it = byProduct.find(product);
      if (it != byProduct.end() && ratio(it->second.first, it->second.second) < ratio(m, n))
        continue;
      byProduct[product] = {m, n};
    }
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (auto it = byProduct.rbegin(); it != byProduct.rend(); ++it)
    out.push_back(it->second);
  return out;
}

/// The blocks (out_block_h, out_block_w, in0_block_w) that get_multi_dim_per_core_factor returns:
/// the whole per-core block if it fits; else, with `shrinkK` (the all-DRAM 2-D path), for each
/// block shape largest first the largest divisor of k that fits; without it, k fixed; (1, 1, 1)
/// when nothing fits.
std::array<uint32_t, 3> shrinkToFit(const MatmulProblem& p, uint32_t perCoreM, uint32_t perCoreN,
                                    uint32_t k, bool shrinkK) {
  if (fitsL1(p, perCoreM, perCoreN, k)) return {perCoreM, perCoreN, k};
  const uint32_t minK = shrinkK ? 1 : k;
  for (auto [m, n] : blockShapes(perCoreM, perCoreN))
    for (uint32_t kk = k; kk >= minK && kk > 0; --kk)
      if (k % kk == 0 && fitsL1(p, m, n, kk)) return {m, n, kk};
  return {1, 1, 1};
}

/// get_per_core_factor: the largest of 16, 8, 4, 2 whose square block with in0_block_w 2 fits.
uint32_t perCoreFactor(const MatmulProblem& p) {
  for (uint32_t f = 16; f > 1; f /= 2)
    if (fitsL1(p, f, f, 2)) return f;
  return 1;
}

void setSubblock(const MatmulProblem& p, MatmulConfig& c) {
  const Subblock s = ttnnSubblock(c.outBlockH, c.outBlockW, dstCapacity(p));
  c.outSubblockH = s.h;
  c.outSubblockW = s.w;
  c.cbBytes = ttnnCbEstimate(p, c.outBlockH, c.outBlockW, c.in0BlockW);
}

/// get_mcast_1d_config on the full grid: the multicast side is whole on every core, the other is
/// split over all cores; in0_block_w 2 when Kt is even, else 1; blocks shrunk with k fixed.
MatmulConfig mcast1d(const MatmulProblem& p, const Tiles& t, bool mcastIn0, std::string why) {
  const uint64_t cores = uint64_t{p.gridRows} * p.gridCols;
  MatmulConfig c;
  c.family = mcastIn0 ? MatmulFamily::MultiCast1DIn0 : MatmulFamily::MultiCast1DIn1;
  c.perCoreM =
      mcastIn0 ? t.mt : static_cast<uint32_t>(ceilDiv(ceilDiv(t.mt * kTile, cores), kTile));
  c.perCoreN =
      mcastIn0 ? static_cast<uint32_t>(ceilDiv(ceilDiv(t.nt * kTile, cores), kTile)) : t.nt;
  c.in0BlockW = t.kt % 2 == 0 ? 2 : 1;
  const auto blocks = shrinkToFit(p, c.perCoreM, c.perCoreN, c.in0BlockW, false);
  c.outBlockH = blocks[0];
  c.outBlockW = blocks[1];
  c.gridRows = p.gridRows;
  c.gridCols = p.gridCols;
  c.activeCores =
      static_cast<uint32_t>(mcastIn0 ? ceilDiv(t.nt, c.perCoreN) : ceilDiv(t.mt, c.perCoreM));
  setSubblock(p, c);
  c.why = std::move(why);
  return c;
}

/// The all-DRAM 2-D multicast config on the full grid: per_core = ceil(Mt / rows) x ceil(Nt /
/// cols), in0_block_w = Kt / cols when that divides (else 1), then the most square block that fits
/// with the largest in0_block_w for it.
MatmulConfig mcast2dDram(const MatmulProblem& p, const Tiles& t) {
  MatmulConfig c;
  c.family = MatmulFamily::MultiCast2D;
  c.perCoreM = static_cast<uint32_t>(ceilDiv(t.mt, p.gridRows));
  c.perCoreN = static_cast<uint32_t>(ceilDiv(t.nt, p.gridCols));
  const uint32_t k = t.kt % p.gridCols == 0 ? t.kt / p.gridCols : 1;
  const auto blocks = shrinkToFit(p, c.perCoreM, c.perCoreN, k, true);
  c.outBlockH = blocks[0];
  c.outBlockW = blocks[1];
  c.in0BlockW = blocks[2];
  c.gridRows = p.gridRows;
  c.gridCols = p.gridCols;
  c.activeCores = static_cast<uint32_t>(ceilDiv(t.mt, c.perCoreM) * ceilDiv(t.nt, c.perCoreN));
  setSubblock(p, c);
  c.why = "all DRAM, not narrow: 2-D multicast on the full grid, per core ceil(Mt/rows) x "
          "ceil(Nt/cols), in0_block_w = Kt/cols if it divides, shrunk to fit L1";
  if (k != c.in0BlockW || c.outBlockH != c.perCoreM || c.outBlockW != c.perCoreN)
    c.why += " (shrunk from in0_block_w " + std::to_string(k) + ")";
  return c;
}

MatmulConfig multiCore(std::string why) {
  MatmulConfig c;
  c.family = MatmulFamily::MultiCore;
  c.why = std::move(why);
  return c;
}

/// Some operand in L1: square f x f blocks (the per-core factor) decide the family through the
/// block grid they make.
MatmulConfig l1Path(const MatmulProblem& p, const Tiles& t, bool wide, bool tall) {
  const uint32_t f = perCoreFactor(p);
  const uint32_t blocksY = static_cast<uint32_t>(ceilDiv(t.mt, f));
  const uint32_t blocksX = static_cast<uint32_t>(ceilDiv(t.nt, f));
  uint32_t k = 2;
  if ((blocksY > 1 || blocksX > 1) && t.kt % k != 0) k = 1;
  if (uint64_t{blocksX} * blocksY > uint64_t{p.gridRows} * p.gridCols || t.kt % k != 0)
    return multiCore("operand in L1: " + std::to_string(blocksY) + "x" + std::to_string(blocksX) +
                     " blocks of " + std::to_string(f) + " tiles exceed the grid");
  const bool single = blocksX == 1 && blocksY == 1;
  const bool onGrid = !single && blocksY <= p.gridRows && blocksX <= p.gridCols;
  const uint32_t rangeY = onGrid ? blocksY : 0, rangeX = onGrid ? blocksX : 0;
  if (rangeY == 1 || wide) return mcast1d(p, t, true, "operand in L1: wide or one row of blocks");
  if (rangeX == 1 || tall)
    return mcast1d(p, t, false, "operand in L1: tall or one column of blocks");
  if (rangeY == 0)
    return multiCore("operand in L1: the " + std::to_string(blocksY) + "x" +
                     std::to_string(blocksX) + " block grid does not fit the core grid");
  MatmulConfig c;
  c.family = MatmulFamily::MultiCast2D;
  c.in0BlockW = k;
  c.perCoreM = c.perCoreN = c.outBlockH = c.outBlockW = f;
  c.gridRows = p.gridRows;
  c.gridCols = p.gridCols;
  c.activeCores = blocksX * blocksY;
  setSubblock(p, c);
  c.why = "operand in L1: 2-D multicast with square blocks of the per-core factor";
  return c;
}

constexpr std::array<std::pair<uint32_t, uint32_t>, 20> kSubblocks = {{
    {4, 2}, {2, 4}, {8, 1}, {1, 8}, {7, 1}, {1, 7}, {3, 2}, {2, 3}, {6, 1}, {1, 6},
    {5, 1}, {1, 5}, {2, 2}, {4, 1}, {1, 4}, {3, 1}, {1, 3}, {2, 1}, {1, 2}, {1, 1},
}};

} // namespace

const char* familyName(MatmulFamily family) {
  switch (family) {
  case MatmulFamily::MultiCast2D:
    return "MultiCast2D";
  case MatmulFamily::MultiCast1DIn0:
    return "MultiCast1D(mcast_in0)";
  case MatmulFamily::MultiCast1DIn1:
    return "MultiCast1D(mcast_in1)";
  case MatmulFamily::MultiCore:
    return "MultiCore";
  }
  return "?";
}

uint64_t ttnnCbEstimate(const MatmulProblem& p, uint32_t blockH, uint32_t blockW, uint32_t blockK) {
  const uint64_t in0 = uint64_t{blockH} * blockK * kInputDepth * p.in0TileBytes;
  const uint64_t in1 = uint64_t{blockW} * blockK * kInputDepth * p.in1TileBytes;
  const uint64_t out = uint64_t{blockH} * blockW * p.in0TileBytes; // ttnn sizes out with in0's tile
  const uint64_t interm = uint64_t{blockH} * blockW * intermTileBytes(p);
  return in0 + in1 + out + interm;
}

uint32_t dstCapacity(const MatmulProblem& p) {
  return p.fp32DestAcc ? p.dstTilesFp32 : p.dstTiles;
}

Subblock ttnnSubblock(uint32_t blockH, uint32_t blockW, uint32_t capacity) {
  for (auto [h, w] : kSubblocks)
    if (h * w <= capacity && blockH % h == 0 && blockW % w == 0) return {h, w};
  return {1, 1};
}

Expected<MatmulConfig> ttnnDefaultMatmulConfig(const MatmulProblem& p) {
  if (Status s = checkProblem(p); !s) return s.error();
  const Tiles t = tilesOf(p);
  const bool narrow = isNarrow(t.mt * kTile, t.nt * kTile, p.allDram);
  const bool wide = narrow && t.nt > t.mt;
  const bool tall = narrow && !wide;
  if (!p.allDram) return l1Path(p, t, wide, tall);
  if (wide)
    return mcast1d(p, t, true, "all DRAM, wide (N/M > 8 or M within one tile): 1-D, in0 multicast");
  if (tall)
    return mcast1d(p, t, false,
                   "all DRAM, tall (M/N > 8 or N within one tile): 1-D, in1 multicast");
  return mcast2dDram(p, t);
}

} // namespace ttlplan::search::baselines

namespace ttlplan::search::baselines {
namespace {

/// per_core_shape of the sweep scripts: 2-D splits M over rows and N over columns; 1-D keeps the
/// multicast operand's side whole and splits the other over every core.
std::pair<uint32_t, uint32_t> sweepPerCore(const MatmulProblem& p, const Tiles& t,
                                           MatmulFamily route) {
  const uint64_t cores = uint64_t{p.gridRows} * p.gridCols;
  switch (route) {
  case MatmulFamily::MultiCast1DIn0:
    return {t.mt, static_cast<uint32_t>(ceilDiv(t.nt, cores))};
  case MatmulFamily::MultiCast1DIn1:
    return {static_cast<uint32_t>(ceilDiv(t.mt, cores)), t.nt};
  default:
    return {static_cast<uint32_t>(ceilDiv(t.mt, p.gridRows)),
            static_cast<uint32_t>(ceilDiv(t.nt, p.gridCols))};
  }
}

std::vector<uint32_t> divisorsUpTo(uint32_t n, uint32_t upper) {
  std::vector<uint32_t> out;
  for (uint32_t d = 1; d <= std::min(n, upper); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

/// pick2D: the largest in0_block_w * out_block_h * out_block_w, then the larger in0_block_w; the
/// first such candidate in enumeration order.
const MatmulConfig* pick2d(const std::vector<MatmulConfig>& cands) {
  const MatmulConfig* best = nullptr;
  auto key = [](const MatmulConfig& c) {
    return std::pair{uint64_t{c.in0BlockW} * c.outBlockH * c.outBlockW, c.in0BlockW};
  };
  for (const MatmulConfig& c : cands)
    if (!best || key(c) > key(*best)) best = &c;
  return best;
}

/// pick1D: the multicast operand's side of the block stays whole (out_block_w = per_core_N for
/// mcast_in0); the other side is whole or, when that dimension (M for mcast_in0, N otherwise) is
/// at least splitMinDim and the per-core size even, halved; maximise (in0_block_w, that side).
const MatmulConfig* pick1d(const MatmulProblem& p, const SweepOptions& o,
                           const std::vector<MatmulConfig>& cands) {
  const MatmulConfig* best = nullptr;
  std::pair<uint32_t, uint32_t> bestKey{0, 0};
  for (const MatmulConfig& c : cands) {
    const bool in0 = c.family == MatmulFamily::MultiCast1DIn0;
    const uint32_t pinned = in0 ? c.outBlockW : c.outBlockH;
    const uint32_t pinnedFull = in0 ? c.perCoreN : c.perCoreM;
    const uint32_t free = in0 ? c.outBlockH : c.outBlockW;
    const uint32_t full = in0 ? c.perCoreM : c.perCoreN;
    const uint64_t dim = in0 ? p.m : p.n;
    const bool halvable = dim >= o.splitMinDim && full % 2 == 0;
    if (pinned != pinnedFull || (free != full && !(halvable && free == full / 2))) continue;
    const std::pair<uint32_t, uint32_t> key{c.in0BlockW, free};
    if (!best || key > bestKey) {
      best = &c;
      bestKey = key;
    }
  }
  return best;
}

} // namespace

MatmulFamily sweepRoute(const MatmulProblem& p) {
  const Tiles t = tilesOf(p);
  if (!isNarrow(t.mt * kTile, t.nt * kTile, true)) return MatmulFamily::MultiCast2D;
  return t.nt > t.mt ? MatmulFamily::MultiCast1DIn0 : MatmulFamily::MultiCast1DIn1;
}

uint64_t sweepCbBytes(const MatmulProblem& p, const SweepOptions& o, uint32_t blockH,
                      uint32_t blockW, uint32_t blockK) {
  const uint32_t kt = tilesOf(p).kt;
  const uint64_t depth = kt / blockK > 1 ? 2 : 1;
  const uint64_t in0Copies = o.transposeA ? 2 : 1;
  const uint64_t inputs =
      depth * blockK * (in0Copies * blockH * p.in0TileBytes + uint64_t{blockW} * p.in1TileBytes);
  return inputs + uint64_t{blockH} * blockW * (p.outTileBytes + intermTileBytes(p));
}

Expected<std::vector<MatmulConfig>> sweepCandidates(const MatmulProblem& p, const SweepOptions& o) {
  if (Status s = checkProblem(p); !s) return s.error();
  const Tiles t = tilesOf(p);
  const MatmulFamily route = sweepRoute(p);
  const auto [perCoreM, perCoreN] = sweepPerCore(p, t, route);
  std::vector<MatmulConfig> out;
  for (uint32_t bw : divisorsUpTo(t.kt, o.maxIn0BlockW)) {
    if (t.kt > 1 && t.kt / bw < 2) continue;
    for (uint32_t h : divisorsUpTo(perCoreM, perCoreM))
      for (uint32_t w : divisorsUpTo(perCoreN, perCoreN)) {
        const uint64_t bytes = sweepCbBytes(p, o, h, w, bw);
        if (bytes > o.l1Budget) continue;
        MatmulConfig c;
        c.family = route;
        c.in0BlockW = bw;
        c.outBlockH = h;
        c.outBlockW = w;
        c.perCoreM = perCoreM;
        c.perCoreN = perCoreN;
        const Subblock s = ttnnSubblock(h, w, dstCapacity(p));
        c.outSubblockH = s.h;
        c.outSubblockW = s.w;
        c.gridRows = p.gridRows;
        c.gridCols = p.gridCols;
        c.activeCores =
            static_cast<uint32_t>(route == MatmulFamily::MultiCast1DIn0 ? ceilDiv(t.nt, perCoreN)
                                  : route == MatmulFamily::MultiCast1DIn1
                                      ? ceilDiv(t.mt, perCoreM)
                                      : ceilDiv(t.mt, perCoreM) * ceilDiv(t.nt, perCoreN));
        c.cbBytes = bytes;
        out.push_back(std::move(c));
      }
  }
  return out;
}

Expected<MatmulConfig> ttMlirRule(const MatmulProblem& p, const SweepOptions& o) {
  auto cands = sweepCandidates(p, o);
  if (!cands) return cands.error();
  const bool twoD = sweepRoute(p) == MatmulFamily::MultiCast2D;
  const MatmulConfig* best = twoD ? pick2d(*cands) : pick1d(p, o, *cands);
  if (!best)
    return Error{"tt-mlir rule: no candidate fits " + std::to_string(o.l1Budget) + " B of L1"};
  MatmulConfig c = *best;
  c.why = twoD ? "tt-mlir 2-D rule: largest in0_block_w * out_block_h * out_block_w of " +
                     std::to_string(cands->size()) + " candidates"
               : "tt-mlir 1-D rule: whole multicast side, largest in0_block_w of " +
                     std::to_string(cands->size()) + " candidates";
  return c;
}

} // namespace ttlplan::search::baselines
