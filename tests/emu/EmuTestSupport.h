// Shared set-up of the emulator tests: a small device, errors collected instead of exiting, and
// helpers over TT-Metalium's Mesh API (tenstorrent/tt-metal a8c5af0) to build buffers, CBs and
// runs, and to look for reported errors. Kernels in these tests are plain functions registered
// under made-up paths; they run on the emulator's threads inside the test process. They include
// the SDK's kernel headers (api/dataflow/dataflow_api.h, api/compute/*.h) and speak its API: a
// test file says `using namespace ckernel;` for the compute calls, and names the kernel-side
// ::TensorAccessorArgs<N> with its leading :: where tt::tt_metal's host-side TensorAccessorArgs
// is in scope too.
#pragma once

#include "api/compute/bcast.h"
#include "api/compute/binary_max_min.h"
#include "api/compute/cb_api.h"
#include "api/compute/compute_kernel_api.h"
#include "api/compute/compute_kernel_hw_startup.h"
#include "api/compute/copy_dest_values.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/eltwise_unary/eltwise_unary.h"
#include "api/compute/eltwise_unary/exp.h"
#include "api/compute/eltwise_unary/fill.h"
#include "api/compute/matmul.h"
#include "api/compute/pack.h"
#include "api/compute/reduce.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"
#include "api/dataflow/dataflow_api.h"
#include "tt-metalium/distributed.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/mesh_buffer.hpp"
#include "tt-metalium/mesh_device.hpp"
#include "tt-metalium/mesh_workload.hpp"
#include "tt-metalium/tensor_accessor_args.hpp"
#include "tt-metalium/tt_metal.hpp"
#include "ttlplan_emu_kernel.h"
#include "ttlplan_host_io.h"

#include <cmath>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ttlplan::emu::test {

using MeshDevicePtr = std::shared_ptr<tt::tt_metal::distributed::MeshDevice>;
using MeshBufferPtr = std::shared_ptr<tt::tt_metal::distributed::MeshBuffer>;
/// What CreateCircularBuffer and CreateKernel take for their cores.
using CoreSpec = std::variant<CoreCoord, CoreRange, CoreRangeSet>;

/// Wormhole B0 numbers on a rows x cols grid (NoC coordinates 18, 19, ...).
inline DeviceSpec smallSpec(uint32_t rows, uint32_t cols) {
  DeviceSpec s = wormholeB0Spec();
  s.name = "test";
  s.grid_rows = rows;
  s.grid_cols = cols;
  s.noc_x.clear();
  s.noc_y.clear();
  for (uint32_t c = 0; c < cols; ++c)
    s.noc_x.push_back(18 + c);
  for (uint32_t r = 0; r < rows; ++r)
    s.noc_y.push_back(18 + r);
  return s;
}

class EmuFixture : public ::testing::Test {
protected:
  void SetUp() override {
    Options o;
    o.exitOnError = false; // errors are read through lastRunErrors()
    o.printReports = true; // the reports land in the test log, which helps when a test fails
    setOptions(o);
    setDeviceSpec(smallSpec(2, 2));
  }
  void TearDown() override { clearDeviceSpec(); }
};

/// The unit mesh of the emulated device (the spec setDeviceSpec gave, or the built-in one).
inline MeshDevicePtr openDevice() {
  return tt::tt_metal::distributed::MeshDevice::create_unit_mesh(0);
}

/// Whether an error of `kind` whose report contains every needle was reported.
inline bool hasError(const std::vector<Error>& errors, const std::string& kind,
                     const std::vector<std::string>& needles) {
  for (const Error& e : errors) {
    if (e.kind != kind) continue;
    bool all = true;
    for (const std::string& n : needles)
      all = all && e.report.find(n) != std::string::npos;
    if (all) return true;
  }
  return false;
}

inline std::string allReports(const std::vector<Error>& errors) {
  std::string out;
  for (const Error& e : errors)
    out += e.report;
  return out;
}

/// `f` rounded to bf16 (8 significant bits, nearest, ties to even), computed independently of the
/// emulator's packer: nearbyint rounds ties to even in the default rounding mode.
inline float bf16Reference(float f) {
  if (f == 0.0f || !std::isfinite(f)) return f;
  int e = 0;
  const double m = std::frexp(static_cast<double>(f), &e); // |m| in [0.5, 1)
  return static_cast<float>(std::ldexp(std::nearbyint(m * 256.0) / 256.0, e));
}

/// Random values in [-2, 2) rounded to bf16 (so that a bf16 buffer holds them exactly).
inline Matrix randomBf16Matrix(uint64_t rows, uint64_t cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  for (uint64_t i = 0; i < rows * cols; ++i)
    m.data.push_back(bf16Reference(dist(gen)));
  return m;
}

/// An empty DRAM buffer of `tiles` pages of `format`, one tile per page.
inline MeshBufferPtr emptyBuffer(const MeshDevicePtr& mesh_device, uint32_t tiles,
                                 tt::DataFormat format) {
  namespace d = tt::tt_metal::distributed;
  d::DeviceLocalBufferConfig local;
  local.page_size = tileBytes(format);
  local.buffer_type = tt::tt_metal::BufferType::DRAM;
  return d::MeshBuffer::create(
      d::ReplicatedBufferConfig{.size = uint64_t{tiles} * tileBytes(format)}, local,
      mesh_device.get());
}

/// A DRAM buffer holding `words` (whole tiles of `format`, one tile per page), as the host wrote
/// them: no conversion on the way.
inline MeshBufferPtr dramBufferOfWords(const MeshDevicePtr& mesh_device,
                                       const std::vector<uint32_t>& words, tt::DataFormat format) {
  MeshBufferPtr buffer =
      emptyBuffer(mesh_device, static_cast<uint32_t>(words.size() * 4 / tileBytes(format)), format);
  tt::tt_metal::distributed::EnqueueWriteMeshBuffer(mesh_device->mesh_command_queue(), buffer,
                                                    words, true);
  return buffer;
}

/// A DRAM buffer holding `m` tilized in `format` (four 16 x 16 faces a tile), one tile per page.
inline MeshBufferPtr dramBuffer(const MeshDevicePtr& mesh_device, const Matrix& m,
                                tt::DataFormat format) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(tilize(m, format, words, error)) << error;
  return dramBufferOfWords(mesh_device, words, format);
}

/// The buffer's bytes, as 32-bit words.
inline std::vector<uint32_t> readWords(const MeshDevicePtr& mesh_device, MeshBufferPtr buffer) {
  std::vector<uint32_t> words;
  tt::tt_metal::distributed::EnqueueReadMeshBuffer(mesh_device->mesh_command_queue(), words, buffer,
                                                   true);
  return words;
}

/// The buffer's tiles of `format` as a row-major rows x cols matrix.
inline Matrix readMatrix(const MeshDevicePtr& mesh_device, const MeshBufferPtr& buffer,
                         uint64_t rows, uint64_t cols, tt::DataFormat format) {
  Matrix m;
  std::string error;
  EXPECT_TRUE(untilize(readWords(mesh_device, buffer), rows, cols, format, m, error)) << error;
  return m;
}

/// A CB of `pages` tiles of `format` at index `index`. TT-Metalium has no way to give a CB its
/// address: the program places its CBs in creation order from the unreserved base (aligned).
inline tt::tt_metal::CBHandle addCb(tt::tt_metal::Program& program, const CoreSpec& cores,
                                    uint8_t index, uint32_t pages, tt::DataFormat format) {
  tt::tt_metal::CircularBufferConfig config(pages * tileBytes(format), {{index, format}});
  config.set_page_size(index, tileBytes(format));
  return tt::tt_metal::CreateCircularBuffer(program, cores, config);
}

/// Runs `program` as TT-Metalium's hosts do (a MeshWorkload on the unit mesh, blocking) and moves
/// it back into `program` (MeshWorkload::programs is an emulator extension), so that a test may
/// run it again.
inline void runProgram(const MeshDevicePtr& mesh_device, tt::tt_metal::Program& program) {
  namespace d = tt::tt_metal::distributed;
  d::MeshWorkload workload;
  workload.add_program(d::MeshCoordinateRange(mesh_device->shape()), std::move(program));
  d::EnqueueMeshWorkload(mesh_device->mesh_command_queue(), workload, true);
  program = std::move(workload.programs().front());
}

/// `args` followed by each buffer's TensorAccessorArgs ([flags, page size] each), which a kernel
/// reads with ::TensorAccessorArgs<args.size() + 2 * i>().
inline std::vector<uint32_t> withAccessors(std::vector<uint32_t> args,
                                           const std::vector<MeshBufferPtr>& buffers) {
  for (const MeshBufferPtr& b : buffers)
    tt::tt_metal::TensorAccessorArgs(*b).append_to(args);
  return args;
}

// Members set one by one: a designated initializer that leaves out TT-Metalium's later members
// (defines, named_compile_args, ...) draws -Wmissing-field-initializers.
inline tt::tt_metal::DataMovementConfig readerConfig(std::vector<uint32_t> compileArgs = {}) {
  tt::tt_metal::DataMovementConfig config;
  config.processor = tt::tt_metal::DataMovementProcessor::RISCV_0;
  config.noc = tt::tt_metal::NOC::RISCV_0_default;
  config.compile_args = std::move(compileArgs);
  return config;
}

inline tt::tt_metal::DataMovementConfig writerConfig(std::vector<uint32_t> compileArgs = {}) {
  tt::tt_metal::DataMovementConfig config;
  config.processor = tt::tt_metal::DataMovementProcessor::RISCV_1;
  config.noc = tt::tt_metal::NOC::RISCV_1_default;
  config.compile_args = std::move(compileArgs);
  return config;
}

inline tt::tt_metal::ComputeConfig computeConfig(std::vector<uint32_t> compileArgs = {}) {
  tt::tt_metal::ComputeConfig config;
  config.math_fidelity = MathFidelity::HiFi4;
  config.fp32_dest_acc_en = false;
  config.compile_args = std::move(compileArgs);
  return config;
}

} // namespace ttlplan::emu::test
