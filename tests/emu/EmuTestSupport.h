// Shared set-up of the emulator tests: a small device, errors collected instead of exiting, and
// helpers to build buffers and look for reported errors. Kernels in these tests are plain functions
// registered under made-up paths; they run on the emulator's threads inside the test process.
#pragma once

#include "compute_kernel_api.h"
#include "dataflow_api.h"
#include "host_api.h"
#include "ttlplan_emu_kernel.h"
#include "ttlplan_host_io.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace ttlplan::emu::test {

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

/// A DRAM buffer holding `m` tilized in `format`, one tile per page.
inline std::shared_ptr<tt::tt_metal::Buffer> dramBuffer(tt::tt_metal::IDevice* device,
                                                        const Matrix& m, tt::DataFormat format) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(tilize(m, format, words, error)) << error;
  auto buffer = tt::tt_metal::CreateBuffer(tt::tt_metal::InterleavedBufferConfig{
      device, words.size() * 4, tileBytes(format), tt::tt_metal::BufferType::DRAM});
  tt::tt_metal::EnqueueWriteBuffer(device->command_queue(), buffer, words, true);
  return buffer;
}

/// An empty DRAM buffer of `tiles` pages of `format`.
inline std::shared_ptr<tt::tt_metal::Buffer> emptyBuffer(tt::tt_metal::IDevice* device,
                                                         uint32_t tiles, tt::DataFormat format) {
  return tt::tt_metal::CreateBuffer(
      tt::tt_metal::InterleavedBufferConfig{device, uint64_t{tiles} * tileBytes(format),
                                            tileBytes(format), tt::tt_metal::BufferType::DRAM});
}

inline Matrix readMatrix(tt::tt_metal::IDevice* device,
                         const std::shared_ptr<tt::tt_metal::Buffer>& buffer, uint64_t rows,
                         uint64_t cols, tt::DataFormat format) {
  std::vector<uint32_t> words;
  tt::tt_metal::EnqueueReadBuffer(device->command_queue(), buffer, words, true);
  Matrix m;
  std::string error;
  EXPECT_TRUE(untilize(words, rows, cols, format, m, error)) << error;
  return m;
}

/// A CB of `pages` tiles of `format` at L1 address `address` (0: the emulator places it).
inline void addCb(tt::tt_metal::Program& program, const CoreRangeSet& cores, uint8_t index,
                  uint32_t pages, tt::DataFormat format, uint32_t address = 0) {
  tt::tt_metal::CircularBufferConfig config(pages * tileBytes(format), {{index, format}});
  config.set_page_size(index, tileBytes(format));
  if (address) config.set_l1_address(address);
  tt::tt_metal::CreateCircularBuffer(program, cores, config);
}

inline tt::tt_metal::DataMovementConfig readerConfig(std::vector<uint32_t> compileArgs = {}) {
  return tt::tt_metal::DataMovementConfig{.processor = tt::tt_metal::DataMovementProcessor::RISCV_0,
                                          .noc = tt::tt_metal::NOC::RISCV_0_default,
                                          .compile_args = std::move(compileArgs)};
}

inline tt::tt_metal::DataMovementConfig writerConfig(std::vector<uint32_t> compileArgs = {}) {
  return tt::tt_metal::DataMovementConfig{.processor = tt::tt_metal::DataMovementProcessor::RISCV_1,
                                          .noc = tt::tt_metal::NOC::RISCV_1_default,
                                          .compile_args = std::move(compileArgs)};
}

inline tt::tt_metal::ComputeConfig computeConfig(std::vector<uint32_t> compileArgs = {}) {
  return tt::tt_metal::ComputeConfig{.math_fidelity = MathFidelity::HiFi4,
                                     .fp32_dest_acc_en = false,
                                     .compile_args = std::move(compileArgs)};
}

} // namespace ttlplan::emu::test
