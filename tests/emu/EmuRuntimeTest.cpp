// The emulator runs hand-written kernels on TT-Metalium's API (tenstorrent/tt-metal a8c5af0)
// correctly: a 1-core eltwise add pipeline, a 2x2 multicast with the semaphore handshake, a matmul
// over a 2x2x2 tile block, and the packer's bf16 / bfp8 rounding against hand-computed bytes (tiles
// in L1 and DRAM are four 16 x 16 faces).
#include "EmuTestSupport.h"

#include <cmath>
#include <cstring>

namespace ttlplan::emu::test {
namespace {

using namespace tt::tt_metal;
using namespace ckernel;

// ---- 1. Eltwise add: reader -> compute (copy_tile x2, add_binary_tile, pack_tile) -> writer.
// Compile-time args of every kernel: cb_a, cb_b, cb_out, then the reader's TensorAccessorArgs of
// A (3, 4) and B (5, 6), the writer's of C (3, 4). Runtime args: buffer addresses, tiles.

void addReader() {
  const uint32_t cb_a = get_compile_time_arg_val(0);
  const uint32_t cb_b = get_compile_time_arg_val(1);
  const uint32_t a_addr = get_arg_val<uint32_t>(0);
  const uint32_t b_addr = get_arg_val<uint32_t>(1);
  const uint32_t tiles = get_arg_val<uint32_t>(2);
  constexpr auto a_args = ::TensorAccessorArgs<3>();
  const auto a = TensorAccessor(a_args, a_addr, 2048);
  constexpr auto b_args = ::TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  const auto b = TensorAccessor(b_args, b_addr, 2048);
  for (uint32_t i = 0; i < tiles; ++i) {
    cb_reserve_back(cb_a, 1);
    cb_reserve_back(cb_b, 1);
    noc_async_read_page(i, a, get_write_ptr(cb_a));
    noc_async_read_page(i, b, get_write_ptr(cb_b));
    noc_async_read_barrier();
    cb_push_back(cb_a, 1);
    cb_push_back(cb_b, 1);
  }
}

void addCompute() {
  const uint32_t cb_a = get_compile_time_arg_val(0);
  const uint32_t cb_b = get_compile_time_arg_val(1);
  const uint32_t cb_out = get_compile_time_arg_val(2);
  const uint32_t tiles = get_arg_val<uint32_t>(0);
  binary_op_init_common(cb_a, cb_b, cb_out);
  for (uint32_t i = 0; i < tiles; ++i) {
    cb_wait_front(cb_a, 1);
    cb_wait_front(cb_b, 1);
    cb_reserve_back(cb_out, 1);
    tile_regs_acquire();
    copy_tile_init(cb_a);
    copy_tile(cb_a, 0, 0);
    copy_tile_init(cb_b);
    copy_tile(cb_b, 0, 1);
    add_binary_tile_init();
    add_binary_tile(0, 1, 0);
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, cb_out);
    tile_regs_release();
    cb_push_back(cb_out, 1);
    cb_pop_front(cb_a, 1);
    cb_pop_front(cb_b, 1);
  }
}

void addWriter() {
  const uint32_t cb_out = get_compile_time_arg_val(2);
  const uint32_t c_addr = get_arg_val<uint32_t>(0);
  const uint32_t tiles = get_arg_val<uint32_t>(1);
  const auto c = TensorAccessor(::TensorAccessorArgs<3>(), c_addr, 2048);
  for (uint32_t i = 0; i < tiles; ++i) {
    cb_wait_front(cb_out, 1);
    noc_async_write_page(i, c, get_read_ptr(cb_out));
    noc_async_write_barrier();
    cb_pop_front(cb_out, 1);
  }
}

class EmuRuntime : public EmuFixture {};

TEST_F(EmuRuntime, EltwiseAddOneCoreMatchesBf16Sum) {
  registerKernel("emu_test/add/reader.cpp", addReader);
  registerKernel("emu_test/add/compute.cpp", addCompute);
  registerKernel("emu_test/add/writer.cpp", addWriter);
  constexpr uint64_t kRows = 64, kCols = 96; // 2 x 3 = 6 tiles
  constexpr uint32_t kTiles = 6;
  const Matrix a = randomBf16Matrix(kRows, kCols, 1);
  const Matrix b = randomBf16Matrix(kRows, kCols, 2);

  MeshDevicePtr device = openDevice();
  ASSERT_NE(device, nullptr);
  auto bufA = dramBuffer(device, a, tt::DataFormat::Float16_b);
  auto bufB = dramBuffer(device, b, tt::DataFormat::Float16_b);
  auto bufC = emptyBuffer(device, kTiles, tt::DataFormat::Float16_b);
  Program program = CreateProgram();
  const CoreCoord core{0, 0};
  addCb(program, core, 0, 2, tt::DataFormat::Float16_b);
  addCb(program, core, 1, 2, tt::DataFormat::Float16_b);
  addCb(program, core, 16, 2, tt::DataFormat::Float16_b);
  const std::vector<uint32_t> cbs = {0, 1, 16};
  KernelHandle r = CreateKernel(program, "emu_test/add/reader.cpp", core,
                                readerConfig(withAccessors(cbs, {bufA, bufB})));
  KernelHandle c = CreateKernel(program, "emu_test/add/compute.cpp", core, computeConfig(cbs));
  KernelHandle w = CreateKernel(program, "emu_test/add/writer.cpp", core,
                                writerConfig(withAccessors(cbs, {bufC})));
  SetRuntimeArgs(
      program, r, core,
      {static_cast<uint32_t>(bufA->address()), static_cast<uint32_t>(bufB->address()), kTiles});
  SetRuntimeArgs(program, c, core, {kTiles});
  SetRuntimeArgs(program, w, core, {static_cast<uint32_t>(bufC->address()), kTiles});
  runProgram(device, program);
  EXPECT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());
  EXPECT_EQ(lastRunStats().packed_tiles, kTiles);
  EXPECT_EQ(lastRunStats().tiles, kTiles);

  const Matrix out = readMatrix(device, bufC, kRows, kCols, tt::DataFormat::Float16_b);
  ASSERT_EQ(out.data.size(), a.data.size());
  int mismatches = 0;
  for (size_t i = 0; i < out.data.size(); ++i)
    if (out.data[i] != bf16Reference(a.data[i] + b.data[i]) && ++mismatches < 5)
      ADD_FAILURE() << "element " << i << ": " << out.data[i] << " != bf16(" << a.data[i] << " + "
                    << b.data[i] << ")";
  EXPECT_EQ(mismatches, 0);
  EXPECT_TRUE(device->close());
}

// A second device and run in the same process work as the first (no stale global state).
TEST_F(EmuRuntime, SecondDeviceAndRunInOneProcess) {
  registerKernel("emu_test/add/reader.cpp", addReader);
  registerKernel("emu_test/add/compute.cpp", addCompute);
  registerKernel("emu_test/add/writer.cpp", addWriter);
  for (int round = 0; round < 2; ++round) {
    const Matrix a = randomBf16Matrix(32, 32, 10 + round);
    const Matrix b = randomBf16Matrix(32, 32, 20 + round);
    MeshDevicePtr device = openDevice();
    auto bufA = dramBuffer(device, a, tt::DataFormat::Float16_b);
    auto bufB = dramBuffer(device, b, tt::DataFormat::Float16_b);
    auto bufC = emptyBuffer(device, 1, tt::DataFormat::Float16_b);
    Program program = CreateProgram();
    const CoreCoord core{1, 1};
    addCb(program, core, 0, 2, tt::DataFormat::Float16_b);
    addCb(program, core, 1, 2, tt::DataFormat::Float16_b);
    addCb(program, core, 2, 2, tt::DataFormat::Float16_b);
    KernelHandle r = CreateKernel(program, "emu_test/add/reader.cpp", core,
                                  readerConfig(withAccessors({0, 1, 2}, {bufA, bufB})));
    KernelHandle c =
        CreateKernel(program, "emu_test/add/compute.cpp", core, computeConfig({0, 1, 2}));
    KernelHandle w = CreateKernel(program, "emu_test/add/writer.cpp", core,
                                  writerConfig(withAccessors({0, 1, 2}, {bufC})));
    SetRuntimeArgs(
        program, r, core,
        {static_cast<uint32_t>(bufA->address()), static_cast<uint32_t>(bufB->address()), 1});
    SetRuntimeArgs(program, c, core, {1});
    SetRuntimeArgs(program, w, core, {static_cast<uint32_t>(bufC->address()), 1});
    // The same program twice: CB state starts afresh at every EnqueueMeshWorkload.
    runProgram(device, program);
    runProgram(device, program);
    EXPECT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());
    const Matrix out = readMatrix(device, bufC, 32, 32, tt::DataFormat::Float16_b);
    for (size_t i = 0; i < out.data.size(); ++i)
      ASSERT_EQ(out.data[i], bf16Reference(a.data[i] + b.data[i])) << "round " << round << " " << i;
    device->close();
  }
}

// ---- 2. Multicast on a 2x2 grid. Core (0,0) reads a tile from DRAM and multicasts it to the
// three others with the handshake: receivers set VALID = 0, increment the sender's READY and wait
// for VALID; the sender waits for READY == 3, resets it, multicasts the data, then VALID. Every
// core then writes its copy to page (its index) of the output buffer.
// Runtime args: in_addr, out_addr, sender noc x, sender noc y, rect x0, y0, x1, y1. Compile-time
// args: the TensorAccessorArgs of in (0, 1) and out (2, 3).
constexpr uint32_t kMcastL1 = 300000;

void multicastKernel() {
  const uint32_t in_addr = get_arg_val<uint32_t>(0);
  const uint32_t out_addr = get_arg_val<uint32_t>(1);
  const uint32_t sender_x = get_arg_val<uint32_t>(2), sender_y = get_arg_val<uint32_t>(3);
  const uint32_t x0 = get_arg_val<uint32_t>(4), y0 = get_arg_val<uint32_t>(5);
  const uint32_t x1 = get_arg_val<uint32_t>(6), y1 = get_arg_val<uint32_t>(7);
  const uint32_t ready_addr = get_semaphore(0);
  const uint32_t valid_addr = get_semaphore(1);
  volatile tt_l1_ptr uint32_t* ready = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(ready_addr);
  volatile tt_l1_ptr uint32_t* valid = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(valid_addr);
  const bool sender = get_absolute_logical_x() == 0 && get_absolute_logical_y() == 0;
  if (sender) {
    const auto in = TensorAccessor(::TensorAccessorArgs<0>(), in_addr, 2048);
    noc_async_read_page(0, in, kMcastL1);
    noc_async_read_barrier();
    noc_semaphore_wait(ready, 3);
    noc_semaphore_set(ready, 0);
    noc_async_write_multicast(kMcastL1, get_noc_multicast_addr(x0, y0, x1, y1, kMcastL1), 2048, 3);
    noc_semaphore_set(valid, 1);
    noc_semaphore_set_multicast(valid_addr, get_noc_multicast_addr(x0, y0, x1, y1, valid_addr), 3);
    noc_async_write_barrier();
  } else {
    noc_semaphore_set(valid, 0);
    noc_semaphore_inc(get_noc_addr(sender_x, sender_y, ready_addr), 1);
    noc_semaphore_wait(valid, 1);
  }
  const auto out = TensorAccessor(::TensorAccessorArgs<2>(), out_addr, 2048);
  noc_async_write_page(get_absolute_logical_y() * 2 + get_absolute_logical_x(), out, kMcastL1);
  noc_async_write_barrier();
}

TEST_F(EmuRuntime, MulticastHandshakeOnTwoByTwoGrid) {
  registerKernel("emu_test/mcast/reader.cpp", multicastKernel);
  const Matrix in = randomBf16Matrix(32, 32, 3);
  MeshDevicePtr device = openDevice();
  auto bufIn = dramBuffer(device, in, tt::DataFormat::Float16_b);
  auto bufOut = emptyBuffer(device, 4, tt::DataFormat::Float16_b);
  Program program = CreateProgram();
  const CoreRange grid{{0, 0}, {1, 1}};
  CreateSemaphore(program, grid, 0); // READY
  CreateSemaphore(program, grid, 0); // VALID
  KernelHandle k = CreateKernel(program, "emu_test/mcast/reader.cpp", grid,
                                readerConfig(withAccessors({}, {bufIn, bufOut})));
  const CoreCoord sender = device->worker_core_from_logical_core({0, 0});
  const CoreCoord last = device->worker_core_from_logical_core({1, 1});
  SetRuntimeArgs(program, k, grid,
                 {static_cast<uint32_t>(bufIn->address()), static_cast<uint32_t>(bufOut->address()),
                  static_cast<uint32_t>(sender.x), static_cast<uint32_t>(sender.y),
                  static_cast<uint32_t>(sender.x), static_cast<uint32_t>(sender.y),
                  static_cast<uint32_t>(last.x), static_cast<uint32_t>(last.y)});
  runProgram(device, program);
  EXPECT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());

  const std::vector<uint32_t> inWords = readWords(device, bufIn);
  const std::vector<uint32_t> outWords = readWords(device, bufOut);
  ASSERT_EQ(outWords.size(), 4 * inWords.size());
  for (size_t core = 0; core < 4; ++core)
    EXPECT_TRUE(std::equal(inWords.begin(), inWords.end(), outWords.begin() + core * 512))
        << "core " << core << " holds other bytes than the sender's tile";
  device->close();
}

// ---- 5a. Matmul over a 2x2x2 tile block: C (2x2 tiles) = A (2x2) * B (2x2), K = 2 tiles.
// The reader pushes all of A into cb 0 and all of B into cb 1 (4 pages each); compute packs each
// output tile into cb 16; the writer writes them in row-major tile order. The reader's
// compile-time args are the TensorAccessorArgs of A (0, 1) and B (2, 3), the writer's of C.

void matmulReader() {
  const uint32_t a_addr = get_arg_val<uint32_t>(0);
  const uint32_t b_addr = get_arg_val<uint32_t>(1);
  const auto a = TensorAccessor(::TensorAccessorArgs<0>(), a_addr, 2048);
  const auto b = TensorAccessor(::TensorAccessorArgs<2>(), b_addr, 2048);
  cb_reserve_back(0, 4);
  cb_reserve_back(1, 4);
  for (uint32_t i = 0; i < 4; ++i) {
    noc_async_read_page(i, a, get_write_ptr(0) + i * 2048);
    noc_async_read_page(i, b, get_write_ptr(1) + i * 2048);
  }
  noc_async_read_barrier();
  cb_push_back(0, 4);
  cb_push_back(1, 4);
}

void matmulCompute() {
  mm_init(0, 1, 16);
  cb_wait_front(0, 4);
  cb_wait_front(1, 4);
  for (uint32_t i = 0; i < 2; ++i)
    for (uint32_t j = 0; j < 2; ++j) {
      cb_reserve_back(16, 1);
      tile_regs_acquire();
      for (uint32_t k = 0; k < 2; ++k)
        matmul_tiles(0, 1, i * 2 + k, k * 2 + j, 0);
      tile_regs_commit();
      tile_regs_wait();
      pack_tile(0, 16); // in order: the one page reserved
      tile_regs_release();
      cb_push_back(16, 1);
    }
  cb_pop_front(0, 4);
  cb_pop_front(1, 4);
}

void matmulWriter() {
  const uint32_t c_addr = get_arg_val<uint32_t>(0);
  const auto c = TensorAccessor(::TensorAccessorArgs<0>(), c_addr, 2048);
  for (uint32_t t = 0; t < 4; ++t) {
    cb_wait_front(16, 1);
    noc_async_write_page(t, c, get_read_ptr(16));
    noc_async_write_barrier();
    cb_pop_front(16, 1);
  }
}

TEST_F(EmuRuntime, MatmulTwoByTwoByTwoTilesWithinBf16Tolerance) {
  registerKernel("emu_test/mm/reader.cpp", matmulReader);
  registerKernel("emu_test/mm/compute.cpp", matmulCompute);
  registerKernel("emu_test/mm/writer.cpp", matmulWriter);
  const Matrix a = randomBf16Matrix(64, 64, 4);
  const Matrix b = randomBf16Matrix(64, 64, 5);
  MeshDevicePtr device = openDevice();
  auto bufA = dramBuffer(device, a, tt::DataFormat::Float16_b);
  auto bufB = dramBuffer(device, b, tt::DataFormat::Float16_b);
  auto bufC = emptyBuffer(device, 4, tt::DataFormat::Float16_b);
  Program program = CreateProgram();
  const CoreCoord core{0, 1};
  addCb(program, core, 0, 4, tt::DataFormat::Float16_b);
  addCb(program, core, 1, 4, tt::DataFormat::Float16_b);
  addCb(program, core, 16, 2, tt::DataFormat::Float16_b);
  KernelHandle r = CreateKernel(program, "emu_test/mm/reader.cpp", core,
                                readerConfig(withAccessors({}, {bufA, bufB})));
  CreateKernel(program, "emu_test/mm/compute.cpp", core, computeConfig());
  KernelHandle w = CreateKernel(program, "emu_test/mm/writer.cpp", core,
                                writerConfig(withAccessors({}, {bufC})));
  SetRuntimeArgs(program, r, core,
                 {static_cast<uint32_t>(bufA->address()), static_cast<uint32_t>(bufB->address())});
  SetRuntimeArgs(program, w, core, {static_cast<uint32_t>(bufC->address())});
  runProgram(device, program);
  EXPECT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());
  EXPECT_EQ(lastRunStats().matmul_tiles, 8u);
  EXPECT_EQ(lastRunStats().packed_tiles, 4u);

  const Matrix c = readMatrix(device, bufC, 64, 64, tt::DataFormat::Float16_b);
  double worst = 0;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < 64; ++k) {
        ref += double{a.data[i * 64 + k]} * b.data[k * 64 + j];
        mag += std::fabs(double{a.data[i * 64 + k]} * b.data[k * 64 + j]);
      }
      // bf16 output: half an ulp of 2^-8 relative, plus float accumulation error.
      const double err = std::fabs(c.data[i * 64 + j] - ref);
      EXPECT_LE(err, std::fabs(ref) / 256 + mag * 1e-6 + 1e-6) << "C(" << i << "," << j << ")";
      worst = std::max(worst, err / (std::fabs(ref) + 1e-3));
    }
  EXPECT_LT(worst, 1.0 / 128);
  device->close();
}

// ---- 5c. The same on the whole 8x8 Wormhole grid (192 threads): core (x, y) computes the 2x4
// output tiles at tile row 2y, tile column 4x, accumulating K tiles in DST (8 tiles, half sync).
constexpr uint32_t kBm = 2, kBn = 4;

void gridMatmulReader() {
  const uint32_t kt = get_arg_val<uint32_t>(2), nt = get_arg_val<uint32_t>(3);
  const uint32_t row0 = get_absolute_logical_y() * kBm, col0 = get_absolute_logical_x() * kBn;
  const auto a = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  const auto b = TensorAccessor(::TensorAccessorArgs<2>(), get_arg_val<uint32_t>(1), 2048);
  for (uint32_t k = 0; k < kt; ++k) {
    cb_reserve_back(0, kBm);
    for (uint32_t i = 0; i < kBm; ++i)
      noc_async_read_page((row0 + i) * kt + k, a, get_write_ptr(0) + i * 2048);
    cb_reserve_back(1, kBn);
    for (uint32_t j = 0; j < kBn; ++j)
      noc_async_read_page(k * nt + col0 + j, b, get_write_ptr(1) + j * 2048);
    noc_async_read_barrier();
    cb_push_back(0, kBm);
    cb_push_back(1, kBn);
  }
}

void gridMatmulCompute() {
  const uint32_t kt = get_arg_val<uint32_t>(0);
  mm_init(0, 1, 16);
  tile_regs_acquire();
  for (uint32_t k = 0; k < kt; ++k) {
    cb_wait_front(0, kBm);
    cb_wait_front(1, kBn);
    for (uint32_t i = 0; i < kBm; ++i)
      for (uint32_t j = 0; j < kBn; ++j)
        matmul_tiles(0, 1, i, j, i * kBn + j);
    cb_pop_front(0, kBm);
    cb_pop_front(1, kBn);
  }
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(16, kBm * kBn);
  for (uint32_t t = 0; t < kBm * kBn; ++t)
    pack_tile<true>(t, 16, t); // at page t of the reservation
  tile_regs_release();
  cb_push_back(16, kBm * kBn);
}

void gridMatmulWriter() {
  const uint32_t nt = get_arg_val<uint32_t>(1);
  const uint32_t row0 = get_absolute_logical_y() * kBm, col0 = get_absolute_logical_x() * kBn;
  const auto c = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  cb_wait_front(16, kBm * kBn);
  for (uint32_t i = 0; i < kBm; ++i)
    for (uint32_t j = 0; j < kBn; ++j)
      noc_async_write_page((row0 + i) * nt + col0 + j, c, get_read_ptr(16) + (i * kBn + j) * 2048);
  noc_async_write_barrier();
  cb_pop_front(16, kBm * kBn);
}

TEST_F(EmuRuntime, MatmulOnTheEightByEightGrid) {
  clearDeviceSpec(); // the Wormhole B0 default: 8 x 8 cores
  registerKernel("emu_test/grid_mm/reader.cpp", gridMatmulReader);
  registerKernel("emu_test/grid_mm/compute.cpp", gridMatmulCompute);
  registerKernel("emu_test/grid_mm/writer.cpp", gridMatmulWriter);
  constexpr uint32_t kGrid = 8, kMt = kGrid * kBm, kNt = kGrid * kBn, kKt = 3;
  const Matrix a = randomBf16Matrix(kMt * 32, kKt * 32, 11);
  const Matrix b = randomBf16Matrix(kKt * 32, kNt * 32, 12);
  MeshDevicePtr device = openDevice();
  ASSERT_EQ(device->compute_with_storage_grid_size(), (CoreCoord(8, 8)));
  auto bufA = dramBuffer(device, a, tt::DataFormat::Float16_b);
  auto bufB = dramBuffer(device, b, tt::DataFormat::Float16_b);
  auto bufC = emptyBuffer(device, kMt * kNt, tt::DataFormat::Float16_b);
  Program program = CreateProgram();
  const CoreRange grid{{0, 0}, {kGrid - 1, kGrid - 1}};
  addCb(program, grid, 0, 2 * kBm, tt::DataFormat::Float16_b);
  addCb(program, grid, 1, 2 * kBn, tt::DataFormat::Float16_b);
  addCb(program, grid, 16, kBm * kBn, tt::DataFormat::Float16_b);
  KernelHandle r = CreateKernel(program, "emu_test/grid_mm/reader.cpp", grid,
                                readerConfig(withAccessors({}, {bufA, bufB})));
  KernelHandle c = CreateKernel(program, "emu_test/grid_mm/compute.cpp", grid, computeConfig());
  KernelHandle w = CreateKernel(program, "emu_test/grid_mm/writer.cpp", grid,
                                writerConfig(withAccessors({}, {bufC})));
  SetRuntimeArgs(
      program, r, grid,
      {static_cast<uint32_t>(bufA->address()), static_cast<uint32_t>(bufB->address()), kKt, kNt});
  SetRuntimeArgs(program, c, grid, {kKt});
  SetRuntimeArgs(program, w, grid, {static_cast<uint32_t>(bufC->address()), kNt});
  runProgram(device, program);
  EXPECT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());
  EXPECT_EQ(lastRunStats().matmul_tiles, uint64_t{kMt} * kNt * kKt);
  EXPECT_GT(lastRunStats().tiles_per_second, 0.0);

  const Matrix out = readMatrix(device, bufC, kMt * 32, kNt * 32, tt::DataFormat::Float16_b);
  int bad = 0;
  for (uint64_t i = 0; i < out.rows; ++i)
    for (uint64_t j = 0; j < out.cols; ++j) {
      double ref = 0, mag = 0;
      for (uint64_t k = 0; k < a.cols; ++k) {
        ref += double{a.data[i * a.cols + k]} * b.data[k * b.cols + j];
        mag += std::fabs(double{a.data[i * a.cols + k]} * b.data[k * b.cols + j]);
      }
      if (std::fabs(out.data[i * out.cols + j] - ref) > std::fabs(ref) / 256 + mag * 1e-6 + 1e-6 &&
          ++bad < 5)
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << out.data[i * out.cols + j]
                      << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0);
  device->close();
}

// ---- 5b. Pack rounding: a Float32 tile goes through copy_tile and is packed into a Float16_b CB
// and a Bfp8_b CB; the bytes are compared with values computed by hand. A tile's bytes follow its
// faces: face 0 (rows 0..15, columns 0..15), face 1 (rows 0..15, columns 16..31), ..., each
// row-major, so element (r, c) of face 0 is value 16 r + c and (r, 16 + c) is value 256 + 16 r + c;
// a Bfp8_b tile has one shared exponent per face row (16 values).

void roundingReader() {
  const auto in = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 4096);
  cb_reserve_back(0, 1);
  noc_async_read_page(0, in, get_write_ptr(0));
  noc_async_read_barrier();
  cb_push_back(0, 1);
}

void roundingCompute() {
  compute_kernel_hw_startup(0, 16);
  cb_wait_front(0, 1);
  cb_reserve_back(16, 1);
  cb_reserve_back(17, 1);
  tile_regs_acquire();
  copy_tile_init(0);
  copy_tile(0, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, 16); // in order: the first page of each CB's reservation
  pack_tile(0, 17);
  tile_regs_release();
  cb_push_back(16, 1);
  cb_push_back(17, 1);
  cb_pop_front(0, 1);
}

void roundingWriter() {
  const auto bf16 = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  const auto bfp8 = TensorAccessor(::TensorAccessorArgs<2>(), get_arg_val<uint32_t>(1), 1088);
  cb_wait_front(16, 1);
  cb_wait_front(17, 1);
  noc_async_write_page(0, bf16, get_read_ptr(16));
  noc_async_write_page(0, bfp8, get_read_ptr(17));
  noc_async_write_barrier();
  cb_pop_front(16, 1);
  cb_pop_front(17, 1);
}

TEST_F(EmuRuntime, PackRoundsToBf16AndBfp8AsComputedByHand) {
  registerKernel("emu_test/round/reader.cpp", roundingReader);
  registerKernel("emu_test/round/compute.cpp", roundingCompute);
  registerKernel("emu_test/round/writer.cpp", roundingWriter);
  Matrix in;
  in.rows = in.cols = 32;
  in.data.assign(1024, 0.0f);
  // Row 0, columns 0..15 (face 0 row 0: bfp8 group 0, shared exponent 127 from 1.0):
  in.data[0] = 1.0f;                      // bf16 0x3f80; bfp8 64 -> 0x40
  in.data[1] = 0.3f;                      // bf16 0x3e9a; bfp8 0.3 * 64 = 19.2 -> 19 = 0x13
  in.data[2] = -0.75f;                    // bf16 0xbf40; bfp8 sign | 48 = 0xb0
  in.data[3] = 1.0f + 0x1p-8f;            // bf16 tie -> even 0x3f80 (1.0)
  in.data[4] = 1.0f + 3 * 0x1p-8f;        // bf16 tie -> even 0x3f82 (1.015625)
  in.data[5] = 1.0f + 0x1p-8f + 0x1p-20f; // bf16 above the tie -> 0x3f81
  in.data[6] = 1.0f + 0x1p-7f;            // bfp8 64.5 -> tie -> even 64 = 0x40
  in.data[7] = 1.0f + 3 * 0x1p-7f;        // bfp8 65.5 -> tie -> even 66 = 0x42
  // Row 0, columns 16..31 (face 1 row 0: group 16, shared exponent 128 from 3.0):
  in.data[16] = 3.0f;  // 1.5 * 64 = 96 = 0x60
  in.data[17] = 0.3f;  // 0.15 * 64 = 9.6 -> 10 = 0x0a
  in.data[18] = 1.99f; // 0.995 * 64 = 63.68 -> 64 = 0x40
  // Row 1, columns 0..15 (face 0 row 1: group 1): 255/128 rounds up to 128 at exponent 127, so
  // the group takes exponent 128 and the value becomes 64 * 2^-5 = 2.0.
  in.data[32] = 255.0f / 128.0f;

  MeshDevicePtr device = openDevice();
  auto bufIn = dramBuffer(device, in, tt::DataFormat::Float32);
  auto bufBf16 = emptyBuffer(device, 1, tt::DataFormat::Float16_b);
  auto bufBfp8 = emptyBuffer(device, 1, tt::DataFormat::Bfp8_b);
  Program program = CreateProgram();
  const CoreCoord core{0, 0};
  addCb(program, core, 0, 1, tt::DataFormat::Float32);
  addCb(program, core, 16, 1, tt::DataFormat::Float16_b);
  addCb(program, core, 17, 1, tt::DataFormat::Bfp8_b);
  KernelHandle r = CreateKernel(program, "emu_test/round/reader.cpp", core,
                                readerConfig(withAccessors({}, {bufIn})));
  CreateKernel(program, "emu_test/round/compute.cpp", core, computeConfig());
  KernelHandle w = CreateKernel(program, "emu_test/round/writer.cpp", core,
                                writerConfig(withAccessors({}, {bufBf16, bufBfp8})));
  SetRuntimeArgs(program, r, core, {static_cast<uint32_t>(bufIn->address())});
  SetRuntimeArgs(
      program, w, core,
      {static_cast<uint32_t>(bufBf16->address()), static_cast<uint32_t>(bufBfp8->address())});
  runProgram(device, program);
  ASSERT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());

  std::vector<uint32_t> words = readWords(device, bufBf16);
  ASSERT_EQ(words.size(), 512u);
  auto bf16At = [&](int i) {
    uint16_t h;
    std::memcpy(&h, reinterpret_cast<const uint8_t*>(words.data()) + 2 * i, 2);
    return h;
  };
  EXPECT_EQ(bf16At(0), 0x3f80);
  EXPECT_EQ(bf16At(1), 0x3e9a);
  EXPECT_EQ(bf16At(2), 0xbf40);
  EXPECT_EQ(bf16At(3), 0x3f80);
  EXPECT_EQ(bf16At(4), 0x3f82);
  EXPECT_EQ(bf16At(5), 0x3f81);
  EXPECT_EQ(bf16At(256), 0x4040); // (0, 16) = 3.0 opens face 1
  EXPECT_EQ(bf16At(16), 0x3fff);  // (1, 0) = 255/128 = 1 + 127/128, bf16 exactly: face 0, row 1
  EXPECT_EQ(bf16At(32), 0x0000);  // (2, 0)
  EXPECT_EQ(bf16At(100), 0x0000);

  words = readWords(device, bufBfp8);
  ASSERT_EQ(words.size(), 1088u / 4);
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(words.data());
  EXPECT_EQ(bytes[0], 127);  // group 0 exponent: (0, 0..15)
  EXPECT_EQ(bytes[16], 128); // group 16: (0, 16..31), face 1's first row
  EXPECT_EQ(bytes[1], 128);  // group 1: (1, 0..15), bumped by rounding
  EXPECT_EQ(bytes[2], 0);    // group 2: (2, 0..15), all zero
  EXPECT_EQ(bytes[17], 0);   // group 17: (1, 16..31), all zero
  const uint8_t* mant = bytes + 64;
  EXPECT_EQ(mant[0], 0x40);
  EXPECT_EQ(mant[1], 0x13);
  EXPECT_EQ(mant[2], 0xb0);
  EXPECT_EQ(mant[6], 0x40);
  EXPECT_EQ(mant[7], 0x42);
  EXPECT_EQ(mant[256], 0x60); // (0, 16)
  EXPECT_EQ(mant[257], 0x0a); // (0, 17)
  EXPECT_EQ(mant[258], 0x40); // (0, 18)
  EXPECT_EQ(mant[16], 0x40);  // (1, 0)
  // And back: untilize decodes m * 2^(exp - 133).
  Matrix back;
  std::string error;
  ASSERT_TRUE(untilize(words, 32, 32, tt::DataFormat::Bfp8_b, back, error)) << error;
  EXPECT_EQ(back.data[1], 19.0f / 64);
  EXPECT_EQ(back.data[2], -0.75f);
  EXPECT_EQ(back.data[17], 10.0f / 32);
  EXPECT_EQ(back.data[32], 2.0f);
  EXPECT_EQ(back.data[18], 2.0f); // 1.99 at exponent 128: 63.68 -> 64 quanta of 2^-5
  device->close();
}

// DST capacity follows the sync mode and fp32_dest_acc_en: half sync 8 tiles, fp32 4 tiles.
void dstCapacityCompute() {
  compute_kernel_hw_startup(0, 16); // no CBs: the start-up only configures
  tile_regs_acquire();
  fill_tile_init();
  fill_tile(get_arg_val<uint32_t>(0), 1.0f);
  tile_regs_commit();
  tile_regs_wait();
  tile_regs_release();
}

TEST_F(EmuRuntime, DstCapacityHalvesWithFp32Accumulation) {
  registerKernel("emu_test/dst/compute.cpp", dstCapacityCompute);
  struct Case {
    bool fp32;
    uint32_t index;
    bool ok;
  } cases[] = {{false, 7, true}, {false, 8, false}, {true, 3, true}, {true, 4, false}};
  MeshDevicePtr device = openDevice();
  for (const Case& c : cases) {
    Program program = CreateProgram();
    ComputeConfig config = computeConfig();
    config.fp32_dest_acc_en = c.fp32;
    KernelHandle k = CreateKernel(program, "emu_test/dst/compute.cpp", CoreCoord{0, 0}, config);
    SetRuntimeArgs(program, k, CoreCoord{0, 0}, {c.index});
    runProgram(device, program);
    EXPECT_EQ(lastRunErrors().empty(), c.ok) << "fp32 " << c.fp32 << " index " << c.index;
    if (!c.ok) {
      // No `// FILE:LINE:COL:` comment in this file: the report names the C++ line.
      EXPECT_TRUE(hasError(lastRunErrors(), "misuse",
                           {"fill_tile: DST index " + std::to_string(c.index) + " is beyond the " +
                                std::to_string(c.index) + " tiles DST holds",
                            "EmuRuntimeTest.cpp:"}))
          << allReports(lastRunErrors());
    }
  }
  device->close();
}

} // namespace
} // namespace ttlplan::emu::test
