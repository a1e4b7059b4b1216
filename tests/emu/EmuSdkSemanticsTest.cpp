// The emulator keeps TT-Metalium's semantics where a kernel or host written against an older or
// imagined API goes wrong on a card (tenstorrent/tt-metal a8c5af0, docs/emulator.md): each test
// below fails if the emulator lets one of these mistakes through.
//   1. pack_tile without <true> ignores its index: the packer writes the next page;
//   2. a compute kernel must start the hardware (compute_kernel_hw_startup or a full init) first;
//   3. a full init (mm_init) after other compute calls reconfigures everything: a misuse;
//   4. tiles in DRAM and L1 are four 16 x 16 faces: a host that writes row-major tiles computes
//      wrong results;
//   5. CBs are placed in creation order from the unreserved base, each aligned, as the CB config
//      entries the firmware reads show after a run;
//   6. reduce_tile must read its scaler from the CB its reduce_init named.
#include "EmuTestSupport.h"
#include "tt-metalium/bfloat16.hpp"
#include "tt-metalium/tilize_utils.hpp"

#include <atomic>
#include <cmath>

namespace ttlplan::emu::test {
namespace {

using namespace tt::tt_metal;
using namespace ckernel;

class EmuSdkSemantics : public EmuFixture {};

constexpr uint32_t kOut = 16;

// ---- 1. In-order and out-of-order packing. DST 0 holds 1.0, DST 1 holds 2.0; the kernel packs
// them into a 2-page reservation of cb 16 as runtime arg 0 says, and the writer copies both pages
// to DRAM (its compile-time args: the output's TensorAccessorArgs).
//   0: pack_tile(0, cb, 0);       pack_tile(1, cb, 1)        in order, indices as written
//   1: pack_tile(0, cb, 0);       pack_tile(1, cb, 0)        in order: the index is ignored
//   2: pack_tile<true>(0, cb, 0); pack_tile<true>(1, cb, 0)  both at page 0, page 1 untouched
//   3: pack_tile<true>(1, cb, 1); pack_tile<true>(0, cb, 0)  out of order, at their pages
//   4: three in-order packs into the 2 pages: the third is a misuse
void packOrderCompute() {
  const uint32_t mode = get_arg_val<uint32_t>(0);
  compute_kernel_hw_startup(0, kOut);
  cb_reserve_back(kOut, 2);
  tile_regs_acquire();
  fill_tile_init();
  fill_tile(0, 1.0f);
  fill_tile(1, 2.0f);
  tile_regs_commit();
  tile_regs_wait();
  switch (mode) {
  case 0:
    pack_tile(0, kOut, 0);
    pack_tile(1, kOut, 1);
    break;
  case 1:
    pack_tile(0, kOut, 0);
    pack_tile(1, kOut, 0);
    break;
  case 2:
    pack_tile<true>(0, kOut, 0);
    pack_tile<true>(1, kOut, 0);
    break;
  case 3:
    pack_tile<true>(1, kOut, 1);
    pack_tile<true>(0, kOut, 0);
    break;
  default:
    pack_tile(0, kOut);
    pack_tile(1, kOut);
    pack_tile(1, kOut);
    break;
  }
  tile_regs_release();
  cb_push_back(kOut, 2);
}

void packOrderWriter() {
  const auto out = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  cb_wait_front(kOut, 2);
  noc_async_write_page(0, out, get_read_ptr(kOut));
  noc_async_write_page(1, out, get_read_ptr(kOut) + 2048);
  noc_async_write_barrier();
  cb_pop_front(kOut, 2);
}

TEST_F(EmuSdkSemantics, InOrderPackTileIgnoresItsIndex) {
  registerKernel("emu_test/pack_order/compute.cpp", packOrderCompute);
  registerKernel("emu_test/pack_order/writer.cpp", packOrderWriter);
  // The value every element of page 0 and page 1 should hold, by mode; NAN: not written (the
  // page keeps what L1 held, here 0 from the fresh device).
  const float want[4][2] = {{1.0f, 2.0f}, {1.0f, 2.0f}, {2.0f, NAN}, {1.0f, 2.0f}};
  for (uint32_t mode = 0; mode < 5; ++mode) {
    SCOPED_TRACE("mode " + std::to_string(mode));
    MeshDevicePtr device = openDevice(); // fresh L1 every mode
    auto out = emptyBuffer(device, 2, tt::DataFormat::Float16_b);
    Program program = CreateProgram();
    const CoreCoord core{0, 0};
    addCb(program, core, kOut, 2, tt::DataFormat::Float16_b);
    KernelHandle c =
        CreateKernel(program, "emu_test/pack_order/compute.cpp", core, computeConfig());
    KernelHandle w = CreateKernel(program, "emu_test/pack_order/writer.cpp", core,
                                  writerConfig(withAccessors({}, {out})));
    SetRuntimeArgs(program, c, core, {mode});
    SetRuntimeArgs(program, w, core, {static_cast<uint32_t>(out->address())});
    runProgram(device, program);
    if (mode == 4) {
      EXPECT_TRUE(hasError(lastRunErrors(), "misuse",
                           {"pack_tile (in order: page 2 after 2 packs since the last "
                            "cb_push_back) of cb 16, but only 2 pages were reserved"}))
          << allReports(lastRunErrors());
      device->close();
      continue;
    }
    ASSERT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());
    const Matrix m = readMatrix(device, out, 64, 32, tt::DataFormat::Float16_b);
    for (int page = 0; page < 2; ++page) {
      const float w = want[mode][page];
      for (int i = 0; i < 1024; ++i) {
        const float v = m.data[page * 1024 + i];
        if (std::isnan(w))
          ASSERT_TRUE(v != 1.0f && v != 2.0f) << "page " << page << " was written: " << v;
        else
          ASSERT_EQ(v, w) << "page " << page << ", element " << i;
      }
    }
    device->close();
  }
}

// ---- 2. A compute kernel that never starts the hardware: reported once, at its first compute
// call; the same kernel after compute_kernel_hw_startup runs clean.
void noStartupCompute() {
  const bool startup = get_arg_val<uint32_t>(0) != 0;
  if (startup) compute_kernel_hw_startup(0, kOut);
  cb_reserve_back(kOut, 1);
  tile_regs_acquire();
  fill_tile_init(); // the first compute call
  fill_tile(0, 3.0f);
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, kOut);
  tile_regs_release();
  cb_push_back(kOut, 1);
  cb_wait_front(kOut, 1);
  cb_pop_front(kOut, 1);
}

TEST_F(EmuSdkSemantics, ComputeKernelWithoutHwStartupIsReported) {
  registerKernel("emu_test/no_startup/compute.cpp", noStartupCompute);
  MeshDevicePtr device = openDevice();
  for (uint32_t startup = 0; startup < 2; ++startup) {
    SCOPED_TRACE(startup ? "with compute_kernel_hw_startup" : "without");
    Program program = CreateProgram();
    addCb(program, CoreCoord{0, 0}, kOut, 1, tt::DataFormat::Float16_b);
    KernelHandle k =
        CreateKernel(program, "emu_test/no_startup/compute.cpp", CoreCoord{0, 0}, computeConfig());
    SetRuntimeArgs(program, k, CoreCoord{0, 0}, {startup});
    runProgram(device, program);
    const auto errors = lastRunErrors();
    if (startup) {
      EXPECT_TRUE(errors.empty()) << allReports(errors);
      continue;
    }
    ASSERT_EQ(errors.size(), 1u) << allReports(errors); // once, not at every call
    EXPECT_TRUE(hasError(errors, "misuse",
                         {"fill_tile_init before compute_kernel_hw_startup", "core (0,0) compute",
                          "EmuSdkSemanticsTest.cpp:"}))
        << allReports(errors);
  }
  device->close();
}

// ---- 3. mm_init in the loop, after a matmul: the full init reconfigures the whole hardware and
// belongs once at the start; mm_init_short is the init after other ops. Runtime arg 0: 1 for
// mm_init in the loop, 0 for mm_init_short. The reader pushes one page each of cb 0 and cb 1.
void mmInitLoopReader() {
  cb_reserve_back(0, 1);
  cb_reserve_back(1, 1);
  cb_push_back(0, 1);
  cb_push_back(1, 1);
}

void mmInitLoopCompute() {
  const bool fullInitInLoop = get_arg_val<uint32_t>(0) != 0;
  mm_init(0, 1, kOut);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  for (int i = 0; i < 2; ++i) {
    if (fullInitInLoop)
      mm_init(0, 1, kOut); // fine the first time (nothing ran yet), a misuse the second
    else
      mm_init_short(0, 1);
    cb_reserve_back(kOut, 1);
    tile_regs_acquire();
    matmul_tiles(0, 1, 0, 0, 0);
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, kOut);
    tile_regs_release();
    cb_push_back(kOut, 1);
    cb_wait_front(kOut, 1);
    cb_pop_front(kOut, 1);
  }
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
}

TEST_F(EmuSdkSemantics, FullInitAfterOtherComputeCallsIsReported) {
  registerKernel("emu_test/mm_init_loop/reader.cpp", mmInitLoopReader);
  registerKernel("emu_test/mm_init_loop/compute.cpp", mmInitLoopCompute);
  MeshDevicePtr device = openDevice();
  for (uint32_t fullInit = 0; fullInit < 2; ++fullInit) {
    SCOPED_TRACE(fullInit ? "mm_init in the loop" : "mm_init_short in the loop");
    Program program = CreateProgram();
    const CoreCoord core{1, 1};
    addCb(program, core, 0, 1, tt::DataFormat::Float16_b);
    addCb(program, core, 1, 1, tt::DataFormat::Float16_b);
    addCb(program, core, kOut, 1, tt::DataFormat::Float16_b);
    CreateKernel(program, "emu_test/mm_init_loop/reader.cpp", core, readerConfig());
    KernelHandle k =
        CreateKernel(program, "emu_test/mm_init_loop/compute.cpp", core, computeConfig());
    SetRuntimeArgs(program, k, core, {fullInit});
    runProgram(device, program);
    const auto errors = lastRunErrors();
    EXPECT_EQ(lastRunStats().matmul_tiles, 2u);
    if (!fullInit) {
      EXPECT_TRUE(errors.empty()) << allReports(errors);
      continue;
    }
    ASSERT_EQ(errors.size(), 1u) << allReports(errors); // the second mm_init only
    EXPECT_TRUE(hasError(errors, "misuse",
                         {"mm_init after other compute calls: it reconfigures the whole hardware",
                          "use mm_init_short before later ops", "core (1,1) compute"}))
        << allReports(errors);
  }
  device->close();
}

// ---- 4. Face layout. A one-tile matmul C = A * B, once from a host that tilizes as TT-Metalium
// does (tilize_nfaces: four 16 x 16 faces) and once from a host that writes each 32 x 32 tile
// row-major (and reads C back the same way): the first agrees with a reference product, the
// second does not, since the unpacker takes the row-major bytes for faces.
void faceMatmulReader() {
  const auto a = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  const auto b = TensorAccessor(::TensorAccessorArgs<2>(), get_arg_val<uint32_t>(1), 2048);
  cb_reserve_back(0, 1);
  cb_reserve_back(1, 1);
  noc_async_read_page(0, a, get_write_ptr(0));
  noc_async_read_page(0, b, get_write_ptr(1));
  noc_async_read_barrier();
  cb_push_back(0, 1);
  cb_push_back(1, 1);
}

void faceMatmulCompute() {
  mm_init(0, 1, kOut);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  cb_reserve_back(kOut, 1);
  tile_regs_acquire();
  matmul_tiles(0, 1, 0, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, kOut);
  tile_regs_release();
  cb_push_back(kOut, 1);
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
}

void faceMatmulWriter() {
  const auto c = TensorAccessor(::TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  cb_wait_front(kOut, 1);
  noc_async_write_page(0, c, get_read_ptr(kOut));
  noc_async_write_barrier();
  cb_pop_front(kOut, 1);
}

/// C = A * B on the emulator, the host tilizing with tilize_nfaces (faces) or not at all.
std::vector<float> matmulOnDevice(const std::vector<float>& a, const std::vector<float>& b,
                                  bool faces) {
  MeshDevicePtr device = openDevice();
  distributed::MeshCommandQueue& cq = device->mesh_command_queue();
  auto upload = [&](const std::vector<float>& values) {
    auto buffer = emptyBuffer(device, 1, tt::DataFormat::Float16_b);
    const std::vector<float> tiles = faces ? tilize_nfaces(values, 32, 32) : values;
    distributed::EnqueueWriteMeshBuffer(cq, buffer,
                                        std::vector<bfloat16>(tiles.begin(), tiles.end()), true);
    return buffer;
  };
  auto bufA = upload(a);
  auto bufB = upload(b);
  auto bufC = emptyBuffer(device, 1, tt::DataFormat::Float16_b);
  Program program = CreateProgram();
  const CoreCoord core{0, 0};
  addCb(program, core, 0, 1, tt::DataFormat::Float16_b);
  addCb(program, core, 1, 1, tt::DataFormat::Float16_b);
  addCb(program, core, kOut, 1, tt::DataFormat::Float16_b);
  KernelHandle r = CreateKernel(program, "emu_test/face_mm/reader.cpp", core,
                                readerConfig(withAccessors({}, {bufA, bufB})));
  CreateKernel(program, "emu_test/face_mm/compute.cpp", core, computeConfig());
  KernelHandle w = CreateKernel(program, "emu_test/face_mm/writer.cpp", core,
                                writerConfig(withAccessors({}, {bufC})));
  SetRuntimeArgs(program, r, core,
                 {static_cast<uint32_t>(bufA->address()), static_cast<uint32_t>(bufB->address())});
  SetRuntimeArgs(program, w, core, {static_cast<uint32_t>(bufC->address())});
  runProgram(device, program);
  EXPECT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());
  std::vector<bfloat16> words;
  distributed::EnqueueReadMeshBuffer(cq, words, bufC, true);
  const std::vector<float> tiles(words.begin(), words.end());
  device->close();
  return faces ? untilize_nfaces(tiles, 32, 32) : tiles;
}

TEST_F(EmuSdkSemantics, RowMajorTilesFromTheHostGiveWrongMatmulResults) {
  registerKernel("emu_test/face_mm/reader.cpp", faceMatmulReader);
  registerKernel("emu_test/face_mm/compute.cpp", faceMatmulCompute);
  registerKernel("emu_test/face_mm/writer.cpp", faceMatmulWriter);
  const Matrix a = randomBf16Matrix(32, 32, 41);
  const Matrix b = randomBf16Matrix(32, 32, 42);
  // Elements of C within bf16 rounding of the reference product.
  auto agreeing = [&](const std::vector<float>& c) {
    int n = 0;
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) {
        double ref = 0, mag = 0;
        for (int k = 0; k < 32; ++k) {
          ref += double{a.data[i * 32 + k]} * b.data[k * 32 + j];
          mag += std::fabs(double{a.data[i * 32 + k]} * b.data[k * 32 + j]);
        }
        n += std::fabs(c[i * 32 + j] - ref) <= std::fabs(ref) / 256 + mag * 1e-6 + 1e-6;
      }
    return n;
  };
  EXPECT_EQ(agreeing(matmulOnDevice(a.data, b.data, true)), 1024);
  // Row-major tiles: the unpacker takes bytes 32 r .. 32 r + 31 of a tile for faces (for r < 8,
  // face 0's rows 2r and 2r + 1), so row i of A and column j of B are not what C(i, j) is made
  // of: with these inputs no element agrees; the bound leaves room for a few by chance.
  EXPECT_LT(agreeing(matmulOnDevice(a.data, b.data, false)), 16);
}

// ---- 5. CB placement: in creation order from the unreserved base, each CB at the aligned end of
// the one before, whatever its index. cb 5 first (one page of 2056 B: 8 B more than a bf16 tile,
// so that the next start needs aligning), then cb 2 (two pages of 2048 B). The reader records the
// addresses the kernel sees; the host reads the CB config entries (address, size, pages, page
// size) of the run.
std::atomic<uint32_t> seenCb5{0}, seenCb2{0};

void placementReader() {
  cb_reserve_back(5, 1);
  seenCb5 = get_write_ptr(5);
  cb_reserve_back(2, 2);
  seenCb2 = get_write_ptr(2);
}

TEST_F(EmuSdkSemantics, CbsArePlacedInCreationOrderAligned) {
  registerKernel("emu_test/placement/reader.cpp", placementReader);
  MeshDevicePtr device = openDevice();
  const uint32_t base =
      static_cast<uint32_t>(device->allocator()->get_base_allocator_addr(HalMemType::L1));
  const uint32_t align = device->allocator()->get_alignment(BufferType::DRAM);
  ASSERT_EQ(base, 103712u); // the built-in wormhole_b0's unreserved base, a multiple of 32
  ASSERT_EQ(align, 32u);
  Program program = CreateProgram();
  const CoreCoord core{1, 0};
  CircularBufferConfig first(2056, {{5, tt::DataFormat::Float16_b}});
  first.set_page_size(5, 2056);
  CreateCircularBuffer(program, core, first);
  addCb(program, core, 2, 2, tt::DataFormat::Float16_b);
  CreateKernel(program, "emu_test/placement/reader.cpp", core, readerConfig());
  distributed::MeshWorkload workload;
  workload.add_program(distributed::MeshCoordinateRange(device->shape()), std::move(program));
  distributed::EnqueueMeshWorkload(device->mesh_command_queue(), workload, true);
  ASSERT_TRUE(lastRunErrors().empty()) << allReports(lastRunErrors());

  const uint32_t cb5 = base;                                      // 103712
  const uint32_t cb2 = (base + 2056 + align - 1) / align * align; // 105792, not 105768
  ASSERT_EQ(cb2, 105792u);
  EXPECT_EQ(seenCb5.load(), cb5);
  EXPECT_EQ(seenCb2.load(), cb2);
  std::vector<uint32_t> entries;
  ASSERT_TRUE(detail::ReadFromDeviceL1(device->get_device(distributed::MeshCoordinate(0, 0)), core,
                                       workload.get_cb_base_addr(device, core, CoreType::WORKER),
                                       32 * 16, entries));
  ASSERT_EQ(entries.size(), 32u * 4);
  EXPECT_EQ(entries[4 * 5 + 0], cb5);
  EXPECT_EQ(entries[4 * 5 + 1], 2056u);
  EXPECT_EQ(entries[4 * 5 + 2], 1u);
  EXPECT_EQ(entries[4 * 5 + 3], 2056u);
  EXPECT_EQ(entries[4 * 2 + 0], cb2);
  EXPECT_EQ(entries[4 * 2 + 1], 4096u);
  EXPECT_EQ(entries[4 * 2 + 2], 2u);
  EXPECT_EQ(entries[4 * 2 + 3], 2048u);
  device->close();
}

// ---- 6. reduce_tile with another scaler CB than its reduce_init named: a misuse. cb 1 and cb 2
// both hold a scaler tile; runtime arg 0 is the scaler CB reduce_tile reads (reduce_init names
// cb 1).
void scalerCbCompute() {
  const uint32_t scalerCb = get_arg_val<uint32_t>(0);
  compute_kernel_hw_startup(0, 1, kOut);
  cb_reserve_back(0, 1);
  cb_reserve_back(1, 1);
  cb_reserve_back(2, 1);
  tile_regs_acquire();
  fill_tile_init();
  fill_tile(0, 1.0f);
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, 0);
  pack_tile(0, 1);
  pack_tile(0, 2);
  tile_regs_release();
  cb_push_back(0, 1);
  cb_push_back(1, 1);
  cb_push_back(2, 1);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  cb_wait_front(2, 1);
  tile_regs_acquire();
  reduce_init<PoolType::SUM, ReduceDim::REDUCE_ROW>(0, 1, kOut);
  reduce_tile<PoolType::SUM, ReduceDim::REDUCE_ROW>(0, scalerCb, 0, 0, 0);
  reduce_uninit();
  tile_regs_commit();
  tile_regs_wait();
  tile_regs_release();
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
  cb_pop_front(2, 1);
}

TEST_F(EmuSdkSemantics, ReduceTileWithAnotherScalerCbThanItsInitIsReported) {
  registerKernel("emu_test/scaler_cb/compute.cpp", scalerCbCompute);
  MeshDevicePtr device = openDevice();
  for (uint32_t scalerCb = 1; scalerCb <= 2; ++scalerCb) {
    SCOPED_TRACE("reduce_tile reads cb " + std::to_string(scalerCb));
    Program program = CreateProgram();
    const CoreCoord core{0, 1};
    for (uint8_t cb = 0; cb < 3; ++cb)
      addCb(program, core, cb, 1, tt::DataFormat::Float16_b);
    KernelHandle k = CreateKernel(program, "emu_test/scaler_cb/compute.cpp", core, computeConfig());
    SetRuntimeArgs(program, k, core, {scalerCb});
    runProgram(device, program);
    const auto errors = lastRunErrors();
    if (scalerCb == 1) {
      EXPECT_TRUE(errors.empty()) << allReports(errors);
      continue;
    }
    ASSERT_EQ(errors.size(), 1u) << allReports(errors);
    EXPECT_TRUE(hasError(errors, "misuse",
                         {"reduce_tile reads its scaler from cb 2, but reduce_init named cb 1"}))
        << allReports(errors);
  }
  device->close();
}

} // namespace
} // namespace ttlplan::emu::test
