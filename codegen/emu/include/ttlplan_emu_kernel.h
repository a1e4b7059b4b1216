// ttlplan CPU emulator: what is emulator-specific, as opposed to the TT-Metalium API it stands in
// for (docs/emulator.md):
//   - registration of compiled kernels by path (the wrapper `ttlplan run` writes, and tests);
//   - the kernel-side functions that data-movement and compute kernels share (CB and argument
//     access), declared once here so that dataflow_api.h and compute_kernel_api.h can both be
//     included in one translation unit;
//   - control of the emulator from a host or a test: device description, options, the errors and
//     statistics of the last run.
// API names follow TT-Metalium (tenstorrent/tt-metal tt_metal/hw/inc/dataflow_api.h,
// tt_metal/include/compute_kernel_api/*.h); the code is ttlplan's own.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ttlplan::emu {

/// Where a kernel API call was made: std::source_location for C++17, which TT-Metalium compiles
/// kernels with (tt_metal/jit_build/build.cpp: -std=c++17). Every kernel API function takes one as
/// a trailing defaulted argument, so that an error names the generated line.
struct SourceLoc {
  const char* file_ = "";
  unsigned line_ = 0;
  const char* function_ = "";
  static constexpr SourceLoc current(const char* file = __builtin_FILE(),
                                     unsigned line = __builtin_LINE(),
                                     const char* function = __builtin_FUNCTION()) noexcept {
    return SourceLoc{file, line, function};
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr unsigned column() const noexcept { return 0; }
  constexpr const char* function_name() const noexcept { return function_; }
};

/// A compiled kernel: the `kernel_main` of one kernel source file.
using KernelEntry = void (*)();

/// Maps `path` (the file name the host passes to CreateKernel, e.g. "eltwise_add/reader.cpp") to
/// `entry`. A later registration of the same path replaces the earlier one.
void registerKernel(const std::string& path, KernelEntry entry);

/// Registers at static-initialisation time; see TTLPLAN_EMU_REGISTER_KERNEL.
struct KernelRegistrar {
  KernelRegistrar(const char* path, KernelEntry entry) { registerKernel(path, entry); }
};

#define TTLPLAN_EMU_CAT_INNER(a, b) a##b
#define TTLPLAN_EMU_CAT(a, b) TTLPLAN_EMU_CAT_INNER(a, b)
/// TTLPLAN_EMU_REGISTER_KERNEL("eltwise_add/reader.cpp", ttlplan_kernel_0); at namespace scope of a
/// translation unit that is linked as an object file (not from a static library, whose unreferenced
/// objects the linker drops).
#define TTLPLAN_EMU_REGISTER_KERNEL(path, entry)                                                   \
  static const ::ttlplan::emu::KernelRegistrar TTLPLAN_EMU_CAT(ttlplan_emu_registrar_,             \
                                                               __COUNTER__) {                      \
    path, entry                                                                                    \
  }

/// The device the emulator models (docs/emulator.md "Device spec"). MeshDevice::create_unit_mesh
/// uses, in order: the spec given to setDeviceSpec, the JSON file named by TTLPLAN_EMU_DEVICE,
/// wormholeB0Spec().
struct DeviceSpec {
  std::string name;
  uint32_t grid_rows = 0;
  uint32_t grid_cols = 0;
  uint32_t l1_bytes = 0;
  uint32_t l1_unreserved_base = 0;
  uint32_t dram_banks = 0;
  uint64_t dram_bank_bytes = 0;
  std::vector<uint32_t> noc_x; // translated NoC x of each logical column
  std::vector<uint32_t> noc_y; // translated NoC y of each logical row
  // DST tiles per sync mode and accumulation (ir/devices/*.json's dst section). The last three
  // default to halves: half sync and fp32 accumulation each halve the full-sync 16-bit count.
  uint32_t dst_tiles_full_sync = 0;
  uint32_t dst_tiles_half_sync = 0;
  uint32_t dst_tiles_full_sync_fp32 = 0;
  uint32_t dst_tiles_half_sync_fp32 = 0;
  bool dst_full_sync = false;
  uint32_t semaphores = 0;
  uint32_t semaphore_base = 0;
  uint32_t max_cbs = 0;
  uint32_t max_runtime_args = 0;
  /// A program's CBs start at multiples of this (TT-Metalium's allocator DRAM alignment: 32 on
  /// Wormhole, 64 on Blackhole; ir/devices/*.json cb.address_alignment_bytes).
  uint32_t cb_alignment = 32;
};

/// The compute kernel API calls the emulator implements, each with the init it needs before it
/// (tests check the op registry's compute records against them).
std::vector<std::pair<std::string, std::string>> computeApiCalls();

/// ttlplan's built-in wormhole_b0 (ir/devices/wormhole_b0.json) as `ttlplan run` hands it to the
/// emulator; written into this library at build time (docs/emulator.md).
DeviceSpec wormholeB0Spec();
/// Parses the TTLPLAN_EMU_DEVICE JSON format; on failure `error` names the bad field.
bool parseDeviceSpec(const std::string& json, DeviceSpec& out, std::string& error);
/// Makes MeshDevice::create_unit_mesh use `spec` (tests); `clearDeviceSpec` goes back to the
/// environment/default.
void setDeviceSpec(const DeviceSpec& spec);
void clearDeviceSpec();

struct Options {
  /// A generated host program exits with status 3 at MeshDevice::close (or, without it, when it
  /// returns from main) if the emulator reported any error. Tests turn this off and read
  /// lastRunErrors() instead.
  bool exitOnError = true;
  /// Print each error report and the per-run statistics line to stderr.
  bool printReports = true;
  /// Seconds one EnqueueMeshWorkload may run, 0 for no limit (TTLPLAN_EMU_TIMEOUT sets it for a
  /// generated host program; `ttlplan run --timeout` passes it). At the limit a "timeout" error
  /// lists every unfinished thread with the wait it is blocked in or the kernel API call it made
  /// last; each thread then ends at its next kernel API call. With exitOnError the program exits
  /// with status 4 right after; a thread that makes no further call ends the process (status 4)
  /// 2 s later whatever the options.
  double timeLimitSeconds = 0;
};
void setOptions(const Options& options);
Options options();

/// One detected error (docs/emulator.md "What it detects").
struct Error {
  std::string kind;     // "deadlock", "timeout", "pop without wait", "push beyond capacity",
                        // "write outside L1", "CB overlap", "unissued barrier", "misuse"
  std::string message;  // first line after the kind, e.g. "cb_pop_front(cb 1, 2 tiles): ..."
  std::string report;   // the full text block printed to stderr (every line)
  unsigned repeats = 0; // further occurrences at the same source line that were not reported again
};

/// Errors of the last EnqueueMeshWorkload (including those found while the program was built:
/// unknown kernel path, bad CB placement, ...). Empty when the run was clean.
std::vector<Error> lastRunErrors();
/// Every error since the process started (or since resetErrors()), host-side ones included.
std::vector<Error> allErrors();
void resetErrors();

struct RunStats {
  uint64_t tiles = 0; // packed tiles + matmul tile operations of the last EnqueueMeshWorkload
  uint64_t packed_tiles = 0; // pack_tile calls
  uint64_t matmul_tiles = 0; // matmul_tiles calls
  double seconds = 0;        // wall time of the run (thread start to join)
  double tiles_per_second = 0;
};
RunStats lastRunStats();

// ---- Kernel-side entry points shared by data-movement and compute kernels (implemented in the
// runtime; the documented TT-Metalium spellings below forward to them).
uint32_t kernelArg(int index, const ttlplan::emu::SourceLoc& loc);
uint32_t kernelCompileTimeArg(int index, const ttlplan::emu::SourceLoc& loc);

} // namespace ttlplan::emu

/// Runtime arg `arg_idx` of this kernel on this core (SetRuntimeArgs), as a T of 4 bytes.
template <typename T>
T get_arg_val(int arg_idx, ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current()) {
  static_assert(sizeof(T) == 4 && std::is_trivially_copyable_v<T>, "runtime args are 32-bit words");
  const uint32_t word = ::ttlplan::emu::kernelArg(arg_idx, loc);
  T value;
  std::memcpy(&value, &word, sizeof value);
  return value;
}

/// Compile-time arg `arg_idx` of this kernel (CreateKernel's compile_args). On hardware a constant
/// expression; here read at run time, so generated code declares `const uint32_t`, not constexpr.
/// This core's logical column / row in the grid (api/dataflow/dataflow_api.h and
/// api/compute/common.h both declare them).
uint32_t get_absolute_logical_x(ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
uint32_t get_absolute_logical_y(ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
uint32_t get_compile_time_arg_val(int arg_idx,
                                  ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

void cb_reserve_back(uint32_t cb, uint32_t num_tiles,
                     ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
void cb_push_back(uint32_t cb, uint32_t num_tiles,
                  ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
void cb_wait_front(uint32_t cb, uint32_t num_tiles,
                   ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
void cb_pop_front(uint32_t cb, uint32_t num_tiles,
                  ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
/// L1 address of the first reserved page (the back) / the first filled page (the front).
uint32_t get_write_ptr(uint32_t cb,
                       ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
uint32_t get_read_ptr(uint32_t cb,
                      ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
