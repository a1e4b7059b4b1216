// The emulator's reductions (reduce_init / reduce_tile / reduce_uninit, docs/emulator.md), in
// TT-Metalium's one form: every reduce_tile multiplies by element (0, 0) of a scaler tile in a CB
// (1 for a sum or maximum, 1/N for a mean). Every PoolType x ReduceDim over two input tiles
// accumulated into one DST register, the -inf start a maximum needs (the register is 0 after
// tile_regs_acquire), a scaler of 0.5, and the misuse reports. Expected values are computed here
// from the input matrix, independently of the emulator.
#include "EmuTestSupport.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace ttlplan::emu::test {
namespace {

using namespace tt::tt_metal;
using namespace ckernel;

constexpr uint32_t kCbIn = 0, kCbScaler = 1, kCbOut = 16;
constexpr uint32_t kCases = 8;

// Reader: the two tiles of X into cb 0, the two scaler tiles (1.0, 0.5) into cb 1. Compile-time
// args: the TensorAccessorArgs of X (0, 1) and of the scalers (2, 3).
void reduceReader() {
  const auto x = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  const auto s = TensorAccessor(::TensorAccessorArgs<2>(), get_arg_val<uint32_t>(1), 2048);
  cb_reserve_back(kCbIn, 2);
  noc_async_read_page(0, x, get_write_ptr(kCbIn));
  noc_async_read_page(1, x, get_write_ptr(kCbIn) + 2048);
  cb_reserve_back(kCbScaler, 2);
  noc_async_read_page(0, s, get_write_ptr(kCbScaler));
  noc_async_read_page(1, s, get_write_ptr(kCbScaler) + 2048);
  noc_async_read_barrier();
  cb_push_back(kCbIn, 2);
  cb_push_back(kCbScaler, 2);
}

/// One output tile: both input tiles reduced into DST 0, each scaled by page `scalerPage` of the
/// scaler CB (0: 1.0, 1: 0.5), packed to page `page` of cb 16.
template <PoolType P, ReduceDim D>
void reduceCase(uint32_t page, bool fillNegInf, uint32_t scalerPage) {
  tile_regs_acquire();
  if (fillNegInf) {
    fill_tile_init();
    fill_tile(0, -std::numeric_limits<float>::infinity());
  }
  reduce_init<P, D>(kCbIn, kCbScaler, kCbOut);
  reduce_tile<P, D>(kCbIn, kCbScaler, 0, scalerPage, 0);
  reduce_tile<P, D>(kCbIn, kCbScaler, 1, scalerPage, 0);
  reduce_uninit();
  tile_regs_commit();
  tile_regs_wait();
  pack_tile<true>(0, kCbOut, page);
  tile_regs_release();
}

void reduceCompute() {
  compute_kernel_hw_startup(kCbIn, kCbScaler, kCbOut);
  cb_wait_front(kCbIn, 2);
  cb_wait_front(kCbScaler, 2);
  cb_reserve_back(kCbOut, kCases);
  reduceCase<PoolType::SUM, ReduceDim::REDUCE_ROW>(0, false, 0);
  reduceCase<PoolType::SUM, ReduceDim::REDUCE_COL>(1, false, 0);
  reduceCase<PoolType::SUM, ReduceDim::REDUCE_SCALAR>(2, false, 0);
  reduceCase<PoolType::MAX, ReduceDim::REDUCE_ROW>(3, true, 0);
  reduceCase<PoolType::MAX, ReduceDim::REDUCE_COL>(4, true, 0);
  reduceCase<PoolType::MAX, ReduceDim::REDUCE_SCALAR>(5, true, 0);
  reduceCase<PoolType::MAX, ReduceDim::REDUCE_ROW>(6, false, 0); // no -inf: starts from 0
  reduceCase<PoolType::SUM, ReduceDim::REDUCE_ROW>(7, false, 1); // scaler 0.5
  cb_push_back(kCbOut, kCases);
  cb_pop_front(kCbIn, 2);
  cb_pop_front(kCbScaler, 2);
}

void reduceWriter() {
  const auto y = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  cb_wait_front(kCbOut, kCases);
  for (uint32_t t = 0; t < kCases; ++t)
    noc_async_write_page(t, y, get_read_ptr(kCbOut) + t * 2048);
  noc_async_write_barrier();
  cb_pop_front(kCbOut, kCases);
}

class EmuReduce : public EmuFixture {};

TEST_F(EmuReduce, EveryPoolAndDimensionOverTwoTiles) {
  registerKernel("emu_test/reduce/reader.cpp", reduceReader);
  registerKernel("emu_test/reduce/compute.cpp", reduceCompute);
  registerKernel("emu_test/reduce/writer.cpp", reduceWriter);
  // X: 32x64 (tiles A = columns 0..31, B = 32..63), every value negative, so that a maximum
  // started from the zeroed register is visibly wrong.
  Matrix x = randomBf16Matrix(32, 64, 11);
  for (float& v : x.data)
    v = -std::fabs(v) - 0.125f; // in [-2.125, -0.125]
  for (float& v : x.data)
    v = bf16Reference(v);
  // The scaler tiles, one above the other: 1.0, then 0.5.
  Matrix scaler;
  scaler.rows = 64;
  scaler.cols = 32;
  scaler.data.assign(1024, 1.0f);
  scaler.data.resize(2048, 0.5f);
  MeshDevicePtr device = openDevice();
  auto bufX = dramBuffer(device, x, tt::DataFormat::Float16_b);
  auto bufS = dramBuffer(device, scaler, tt::DataFormat::Float16_b);
  auto bufY = emptyBuffer(device, kCases, tt::DataFormat::Float16_b);
  Program program = CreateProgram();
  const CoreCoord core{1, 0};
  addCb(program, core, kCbIn, 2, tt::DataFormat::Float16_b);
  addCb(program, core, kCbScaler, 2, tt::DataFormat::Float16_b);
  addCb(program, core, kCbOut, kCases, tt::DataFormat::Float16_b);
  KernelHandle r = CreateKernel(program, "emu_test/reduce/reader.cpp", core,
                                readerConfig(withAccessors({}, {bufX, bufS})));
  CreateKernel(program, "emu_test/reduce/compute.cpp", core, computeConfig());
  KernelHandle w = CreateKernel(program, "emu_test/reduce/writer.cpp", core,
                                writerConfig(withAccessors({}, {bufY})));
  SetRuntimeArgs(program, r, core,
                 {static_cast<uint32_t>(bufX->address()), static_cast<uint32_t>(bufS->address())});
  SetRuntimeArgs(program, w, core, {static_cast<uint32_t>(bufY->address())});
  runProgram(device, program);
  EXPECT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());
  const Matrix y = readMatrix(device, bufY, 32 * kCases, 32, tt::DataFormat::Float16_b);
  device->close();

  // Element (r, c) of input tile t; element (r, c) of output tile k.
  auto in = [&](int t, int r, int c) { return double{x.data[r * 64 + t * 32 + c]}; };
  auto out = [&](uint32_t k, int r, int c) { return double{y.data[(k * 32 + r) * 32 + c]}; };
  // Reduce the elements (r, c) of both tiles for which `take` holds.
  auto reduce = [&](bool max, const std::function<bool(int, int)>& take) {
    double acc = max ? -INFINITY : 0.0;
    for (int t = 0; t < 2; ++t)
      for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 32; ++c)
          if (take(r, c)) acc = max ? std::max(acc, in(t, r, c)) : acc + in(t, r, c);
    return acc;
  };
  // Case k: where the result sits, and its expected value there; every other element is 0.
  struct Case {
    bool max;
    int dim; // 0 ROW, 1 COL, 2 SCALAR
    double scale;
  };
  const Case cases[kCases] = {{false, 0, 1}, {false, 1, 1}, {false, 2, 1}, {true, 0, 1},
                              {true, 1, 1},  {true, 2, 1},  {true, 0, 1},  {false, 0, 0.5}};
  for (uint32_t k = 0; k < kCases; ++k) {
    SCOPED_TRACE("case " + std::to_string(k));
    const Case& cs = cases[k];
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 32; ++c) {
        const bool result = cs.dim == 0 ? c == 0 : cs.dim == 1 ? r == 0 : r == 0 && c == 0;
        if (!result) {
          ASSERT_EQ(out(k, r, c), 0.0) << "(" << r << ", " << c << ") is not the result";
          continue;
        }
        double want = cs.scale * reduce(cs.max, [&](int rr, int cc) {
                        return cs.dim == 0 ? rr == r : cs.dim == 1 ? cc == c : true;
                      });
        if (k == 6) want = std::max(want, 0.0); // MAX from the zeroed register
        if (cs.max)
          ASSERT_EQ(out(k, r, c), want) << "(" << r << ", " << c << ")";
        else // float sums rounded to bf16
          ASSERT_NEAR(out(k, r, c), want, std::fabs(want) / 256 + 1e-3)
              << "(" << r << ", " << c << ")";
      }
  }
  // The case that shows why the lowering fills -inf first: all maxima negative, yet 0 without.
  EXPECT_LT(out(3, 0, 0), 0.0);
  EXPECT_EQ(out(6, 0, 0), 0.0);
}

// Misuse: reduce_tile without reduce_init, with another PoolType than its reduce_init, and after
// reduce_uninit. The compute thread makes its own input tile and scaler tile (fill_tile + pack
// into cb 0 and cb 1).
void reduceMisuseCompute() {
  compute_kernel_hw_startup(0, 1, 16);
  cb_reserve_back(0, 1);
  cb_reserve_back(1, 1);
  tile_regs_acquire();
  fill_tile_init();
  fill_tile(0, 1.0f);
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, 0);
  pack_tile(0, 1);
  tile_regs_release();
  cb_push_back(0, 1);
  cb_push_back(1, 1);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  tile_regs_acquire();
  reduce_tile<PoolType::SUM, ReduceDim::REDUCE_ROW>(0, 1, 0, 0, 0);
  reduce_init<PoolType::MAX, ReduceDim::REDUCE_ROW>(0, 1, 16);
  reduce_tile<PoolType::SUM, ReduceDim::REDUCE_ROW>(0, 1, 0, 0, 1);
  reduce_tile<PoolType::MAX, ReduceDim::REDUCE_ROW>(0, 1, 0, 0, 2); // fine
  reduce_uninit();
  reduce_tile<PoolType::MAX, ReduceDim::REDUCE_ROW>(0, 1, 0, 0, 3);
  tile_regs_commit();
  tile_regs_wait();
  tile_regs_release();
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
}

TEST_F(EmuReduce, MisuseIsReported) {
  registerKernel("emu_test/reduce_misuse/compute.cpp", reduceMisuseCompute);
  MeshDevicePtr device = openDevice();
  Program program = CreateProgram();
  addCb(program, CoreCoord{0, 0}, 0, 1, tt::DataFormat::Float16_b);
  addCb(program, CoreCoord{0, 0}, 1, 1, tt::DataFormat::Float16_b);
  CreateKernel(program, "emu_test/reduce_misuse/compute.cpp", CoreCoord{0, 0}, computeConfig());
  runProgram(device, program);
  const auto errors = lastRunErrors();
  EXPECT_EQ(errors.size(), 3u) << allReports(errors);
  EXPECT_TRUE(hasError(errors, "misuse", {"reduce_tile without reduce_init"}))
      << allReports(errors);
  EXPECT_TRUE(hasError(errors, "misuse",
                       {"reduce_tile<SUM, REDUCE_ROW> after a reduce_init of another PoolType"}))
      << allReports(errors);
  device->close();
}

} // namespace
} // namespace ttlplan::emu::test
