// ttlplan CPU emulator: the host API (docs/emulator.md "Host API").
// Names follow TT-Metalium's tenstorrent/tt-metal tt_metal/api/tt-metalium/host_api.hpp (and the
// types it uses: CoreCoord, CircularBufferConfig, DataMovementConfig, ComputeConfig, Buffer); the
// declarations and their implementation are ttlplan's own. Nothing here throws: a misuse is
// reported as an emulator error (printed to stderr, exit status 3 at CloseDevice).
#pragma once

#include "ttlplan_emu_kernel.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tt {
/// Data formats the emulator implements (values as in TT-Metalium's tt::DataFormat).
enum class DataFormat : uint8_t {
  Float32 = 0,
  Float16_b = 5,
  Bfp8_b = 6,
  Bfp4_b = 7,
  Invalid = 0xff
};

/// CB indices by name (TT-Metalium tt::CBIndex); any uint8_t works as well.
enum CBIndex : uint8_t {
  c_0,
  c_1,
  c_2,
  c_3,
  c_4,
  c_5,
  c_6,
  c_7,
  c_8,
  c_9,
  c_10,
  c_11,
  c_12,
  c_13,
  c_14,
  c_15,
  c_16,
  c_17,
  c_18,
  c_19,
  c_20,
  c_21,
  c_22,
  c_23,
  c_24,
  c_25,
  c_26,
  c_27,
  c_28,
  c_29,
  c_30,
  c_31
};
} // namespace tt

enum class MathFidelity : uint8_t { LoFi = 0, HiFi2 = 2, HiFi3 = 3, HiFi4 = 4 };

/// A core: x = logical column, y = logical row (or NoC coordinates where a function says so).
struct CoreCoord {
  std::size_t x = 0;
  std::size_t y = 0;
  friend bool operator==(const CoreCoord&, const CoreCoord&) = default;
};

/// The cores [start, end] (inclusive in both coordinates).
struct CoreRange {
  CoreCoord start;
  CoreCoord end;
  CoreRange() = default;
  CoreRange(const CoreCoord& s, const CoreCoord& e) : start(s), end(e) {}
  explicit CoreRange(const CoreCoord& c) : start(c), end(c) {}
  friend bool operator==(const CoreRange&, const CoreRange&) = default;
};

/// A union of core ranges; implicitly made from one core or one range.
struct CoreRangeSet {
  std::vector<CoreRange> ranges_;
  CoreRangeSet() = default;
  CoreRangeSet(const CoreCoord& c) : ranges_{CoreRange(c)} {}
  CoreRangeSet(const CoreRange& r) : ranges_{r} {}
  CoreRangeSet(std::vector<CoreRange> r) : ranges_(std::move(r)) {}
  const std::vector<CoreRange>& ranges() const { return ranges_; }
};

namespace ttlplan::emu {
struct DeviceImpl;
struct ProgramImpl;
struct BufferImpl;
} // namespace ttlplan::emu

namespace tt::tt_metal {

using ::CoreCoord;
using ::CoreRange;
using ::CoreRangeSet;
using ::MathFidelity;

using KernelHandle = uint32_t;
using CBHandle = uintptr_t;

enum class BufferType { DRAM, L1 };
enum class DataMovementProcessor { RISCV_0 = 0, RISCV_1 = 1 };
/// RISCV_0_default: NOC0 (the reader), RISCV_1_default: NOC1 (the writer).
enum NOC : uint8_t { RISCV_0_default = 0, RISCV_1_default = 1, NOC_0 = 0, NOC_1 = 1 };

class IDevice;
class CommandQueue {
public:
  explicit CommandQueue(IDevice* device) : device_(device) {}
  IDevice* device() const { return device_; }

private:
  IDevice* device_;
};

class IDevice {
public:
  explicit IDevice(std::shared_ptr<ttlplan::emu::DeviceImpl> impl);
  ~IDevice();
  IDevice(const IDevice&) = delete;
  IDevice& operator=(const IDevice&) = delete;
  int id() const { return 0; }
  CommandQueue& command_queue(std::size_t cq_id = 0);
  /// The compute grid: x = columns, y = rows.
  CoreCoord compute_with_storage_grid_size() const;
  /// NoC (translated) coordinates of a logical core.
  CoreCoord worker_core_from_logical_core(const CoreCoord& logical) const;
  uint32_t num_dram_channels() const;
  uint32_t l1_size_per_core() const;
  const std::shared_ptr<ttlplan::emu::DeviceImpl>& impl() const { return impl_; }

private:
  std::shared_ptr<ttlplan::emu::DeviceImpl> impl_;
  CommandQueue queue_;
};

class Buffer {
public:
  explicit Buffer(std::shared_ptr<ttlplan::emu::BufferImpl> impl) : impl_(std::move(impl)) {}
  /// Bank base address. 32 bits (TT-Metalium: 64) so that it goes into runtime args unconverted.
  uint32_t address() const;
  uint64_t size() const;
  uint64_t page_size() const;
  BufferType buffer_type() const;
  const std::shared_ptr<ttlplan::emu::BufferImpl>& impl() const { return impl_; }

private:
  std::shared_ptr<ttlplan::emu::BufferImpl> impl_;
};

struct InterleavedBufferConfig {
  IDevice* device = nullptr;
  uint64_t size = 0;
  uint64_t page_size = 0;
  BufferType buffer_type = BufferType::DRAM;
};

class CircularBufferConfig {
public:
  CircularBufferConfig(uint32_t total_size, std::map<uint8_t, tt::DataFormat> data_formats)
      : total_size_(total_size), data_formats_(std::move(data_formats)) {}
  CircularBufferConfig& set_page_size(uint8_t cb_index, uint32_t page_size) {
    page_sizes_[cb_index] = page_size;
    return *this;
  }
  /// ttlplan extension: the CB's L1 address (ttlplan places CBs; TT-Metalium allocates them).
  CircularBufferConfig& set_l1_address(uint32_t address) {
    address_ = address;
    return *this;
  }
  uint32_t total_size() const { return total_size_; }
  const std::map<uint8_t, tt::DataFormat>& data_formats() const { return data_formats_; }
  const std::map<uint8_t, uint32_t>& page_sizes() const { return page_sizes_; }
  std::optional<uint32_t> l1_address() const { return address_; }

private:
  uint32_t total_size_;
  std::map<uint8_t, tt::DataFormat> data_formats_;
  std::map<uint8_t, uint32_t> page_sizes_;
  std::optional<uint32_t> address_;
};

struct DataMovementConfig {
  DataMovementProcessor processor = DataMovementProcessor::RISCV_0;
  NOC noc = NOC::RISCV_0_default;
  // Last member on purpose: designated initializers that stop before a later member draw
  // -Wmissing-field-initializers (TT-Metalium's `defines` is left out for that reason).
  std::vector<uint32_t> compile_args;
};
struct ComputeConfig {
  MathFidelity math_fidelity = MathFidelity::HiFi4;
  bool fp32_dest_acc_en = false; // halves DST capacity
  bool dst_full_sync_en = false; // doubles it (otherwise the device spec's dst_full_sync)
  bool math_approx_mode = false; // accepted and ignored
  // Last member on purpose: designated initializers that stop before a later member draw
  // -Wmissing-field-initializers (TT-Metalium's `defines` is left out for that reason).
  std::vector<uint32_t> compile_args;
};

class Program {
public:
  Program();
  const std::shared_ptr<ttlplan::emu::ProgramImpl>& impl() const { return impl_; }

private:
  std::shared_ptr<ttlplan::emu::ProgramImpl> impl_;
};

#define TTLPLAN_EMU_LOC ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current()

/// Reads the device description (docs/emulator.md) and allocates L1 for every core. Returns
/// nullptr (after an error report) only when the description is broken and exitOnError is off.
IDevice* CreateDevice(int device_id, TTLPLAN_EMU_LOC);
/// Frees the device. With an error reported and Options::exitOnError, exits with status 3.
bool CloseDevice(IDevice* device, TTLPLAN_EMU_LOC);
Program CreateProgram();

std::shared_ptr<Buffer> CreateBuffer(const InterleavedBufferConfig& config, TTLPLAN_EMU_LOC);

CBHandle CreateCircularBuffer(Program& program, const CoreRangeSet& cores,
                              const CircularBufferConfig& config, TTLPLAN_EMU_LOC);

/// `file` is looked up among the registered kernels (ttlplan_emu_kernel.h).
KernelHandle CreateKernel(Program& program, const std::string& file, const CoreRangeSet& cores,
                          const std::variant<DataMovementConfig, ComputeConfig>& config,
                          TTLPLAN_EMU_LOC);

void SetRuntimeArgs(Program& program, KernelHandle kernel, const CoreCoord& core,
                    const std::vector<uint32_t>& args, TTLPLAN_EMU_LOC);
void SetRuntimeArgs(Program& program, KernelHandle kernel, const CoreRange& cores,
                    const std::vector<uint32_t>& args, TTLPLAN_EMU_LOC);

/// Semaphore ids are 0, 1, ... in creation order; initial_value is written at EnqueueProgram.
uint32_t CreateSemaphore(Program& program, const CoreRangeSet& cores, uint32_t initial_value,
                         TTLPLAN_EMU_LOC);

/// words.size() * 4 must equal the buffer's size.
void EnqueueWriteBuffer(CommandQueue& cq, const std::shared_ptr<Buffer>& buffer,
                        const std::vector<uint32_t>& words, bool blocking, TTLPLAN_EMU_LOC);
void EnqueueWriteBuffer(CommandQueue& cq, Buffer& buffer, const std::vector<uint32_t>& words,
                        bool blocking, TTLPLAN_EMU_LOC);
/// Resizes `words` to the buffer's size / 4.
void EnqueueReadBuffer(CommandQueue& cq, const std::shared_ptr<Buffer>& buffer,
                       std::vector<uint32_t>& words, bool blocking, TTLPLAN_EMU_LOC);
void EnqueueReadBuffer(CommandQueue& cq, Buffer& buffer, std::vector<uint32_t>& words,
                       bool blocking, TTLPLAN_EMU_LOC);

/// Runs the program: one thread per (core, kernel), joined before it returns.
void EnqueueProgram(CommandQueue& cq, Program& program, bool blocking, TTLPLAN_EMU_LOC);
void Finish(CommandQueue& cq, TTLPLAN_EMU_LOC);

#undef TTLPLAN_EMU_LOC

} // namespace tt::tt_metal
