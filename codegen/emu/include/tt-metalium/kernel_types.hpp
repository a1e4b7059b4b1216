// ttlplan CPU emulator: TT-Metalium's tt-metalium/kernel_types.hpp. Members keep TT-Metalium's
// order, so designated initializers that compile here compile there.
#pragma once

#include "tt-metalium/base_types.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace tt::tt_metal {

enum class DataMovementProcessor { RISCV_0 = 0, RISCV_1 = 1 };
/// RISCV_0_default: NOC0 (the reader), RISCV_1_default: NOC1 (the writer).
enum NOC : uint8_t { RISCV_0_default = 0, RISCV_1_default = 1, NOC_0 = 0, NOC_1 = 1 };
enum NOC_MODE : uint8_t { DM_DEDICATED_NOC = 0, DM_DYNAMIC_NOC = 1 };
enum class KernelBuildOptLevel : uint8_t { O1, O2, O3, O0, Os, Ofast, Oz };
enum class UnpackToDestMode : uint8_t { Default, UnpackToDestFp32 };

struct DataMovementConfig {
  DataMovementProcessor processor = DataMovementProcessor::RISCV_0;
  NOC noc = NOC::RISCV_0_default;
  NOC_MODE noc_mode = NOC_MODE::DM_DEDICATED_NOC;
  std::vector<uint32_t> compile_args;
  std::map<std::string, std::string> defines;
  std::unordered_map<std::string, uint32_t> named_compile_args;
  KernelBuildOptLevel opt_level = KernelBuildOptLevel::O2;
};

struct ComputeConfig {
  MathFidelity math_fidelity = MathFidelity::HiFi4;
  bool fp32_dest_acc_en = false; // halves DST capacity
  bool dst_full_sync_en = false; // doubles it (otherwise the device spec's dst_full_sync)
  std::vector<UnpackToDestMode> unpack_to_dest_mode;
  bool bfp8_pack_precise = false;
  bool math_approx_mode = false; // accepted and ignored
  std::vector<uint32_t> compile_args;
  std::map<std::string, std::string> defines;
  std::unordered_map<std::string, uint32_t> named_compile_args;
  KernelBuildOptLevel opt_level = KernelBuildOptLevel::O3;
};

} // namespace tt::tt_metal
