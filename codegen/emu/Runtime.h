// Internal state of the ttlplan CPU emulator (docs/emulator.md): the device (L1 of every core,
// interleaved DRAM), programs as the host builds them, and one run of a program (CB state,
// emulated threads, blocking and deadlock detection). Only codegen/emu/*.cpp include this.
#pragma once

#include "tt-metalium/distributed.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/tensor_accessor_args.hpp"
#include "tt-metalium/tt_backend_api_types.hpp"
#include "tt-metalium/tt_metal.hpp"
#include "ttlplan_emu_kernel.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ttlplan::emu {

constexpr uint32_t kTileElems = 1024;
constexpr uint32_t kMaxDstTiles = 16;

// ---------------------------------------------------------------------------------------------
// Errors (Report.cpp)

enum class ErrorKind {
  Deadlock,
  Timeout,
  PopWithoutWait,
  PushBeyondCapacity,
  WriteOutsideL1,
  CbOverlap,
  UnissuedBarrier,
  Misuse
};
const char* kindName(ErrorKind kind);

/// Unwinds an emulated thread when its run is aborted (deadlock, time limit). Thrown only inside
/// kernel threads and caught at their entry; it never reaches the host or a test.
struct RunAborted {};

/// "FILE:LINE:COL: text" of the nearest `// FILE:LINE:COL: text` comment at or before loc's line in
/// loc's file (the generated C++), looking no further back than the previous top-level function
/// (a line starting with '}'), or "file:line" of the C++ call when there is none.
std::string describeLocation(const ttlplan::emu::SourceLoc& loc);

/// Records and (Options::printReports) prints one error:
///   emulator: error: KIND: MESSAGE
///   BODY (already indented lines, each ending in '\n')
/// An error whose kind and C++ source line were already reported in this run only counts as a
/// repeat, so a bug inside a loop is reported once. dedupe = false reports every occurrence.
/// Returns the error's index in the global list.
size_t recordError(ErrorKind kind, const std::string& message, const std::string& body,
                   const ttlplan::emu::SourceLoc& loc, bool dedupe = true);
/// Starts collecting the errors of a run; `setup` are indices of errors found while the program
/// was built. Clears the repeat filter.
void beginRunErrors(const std::vector<size_t>& setup);
size_t totalErrorCount();
/// Exits with status 3 when an error was reported and Options::exitOnError is set.
void exitIfErrors();
/// The same for an atexit handler (host programs that never call MeshDevice::close).
void exitIfErrorsAtExit();

// ---------------------------------------------------------------------------------------------
// Data formats (Formats.cpp)

uint32_t formatTileBytes(tt::DataFormat format);
bool formatSupported(tt::DataFormat format);
const char* formatName(tt::DataFormat format);
/// 1024 values of a tile (row-major) from its bytes in `format`.
void unpackTile(tt::DataFormat format, const uint8_t* src, float* out);
/// The bytes of a tile in `format`, rounded as the packer does.
void packTile(tt::DataFormat format, const float* in, uint8_t* dst);
/// A tile's 1024 values between row-major 32 x 32 order (how compute sees a tile in DST) and the
/// page order of L1 and DRAM: four 16 x 16 faces, top-left, top-right, bottom-left, bottom-right,
/// each row-major (tenstorrent/tt-metal tt_metal/api/tt-metalium/tilize_utils.hpp, tilize_nfaces).
void rowMajorToFaces(const float* in, float* out);
void facesToRowMajor(const float* in, float* out);
float bf16Round(float value);

// ---------------------------------------------------------------------------------------------
// Device

/// One DRAM bank's bytes of one buffer: [base, base + bytes.size()).
struct DramRegion {
  uint64_t base = 0;
  std::vector<uint8_t> bytes;
};

struct DeviceImpl {
  explicit DeviceImpl(DeviceSpec s);
  ~DeviceImpl();
  DeviceImpl(const DeviceImpl&) = delete;
  DeviceImpl& operator=(const DeviceImpl&) = delete;

  DeviceSpec spec;
  uint32_t numCores = 0;    // grid_rows * grid_cols; core index = row * grid_cols + col
  std::vector<uint8_t*> l1; // l1_bytes per core, zeroed lazily by the OS (calloc)
  std::vector<std::map<uint64_t, DramRegion>> dram; // per bank, by base
  uint64_t nextDram = 0;                            // bump allocator, the same base in every bank
  uint32_t l1BufferTop = 0;   // L1 buffers are allocated downwards from l1_bytes
  std::vector<int> colOfNocX; // logical column of a NoC x, -1 if none
  std::vector<int> rowOfNocY;

  uint32_t semLo() const { return spec.semaphore_base; }
  uint32_t semHi() const { return spec.semaphore_base + 16 * spec.semaphores; }
  bool touchesSemaphores(uint32_t addr, uint64_t size) const {
    return addr < semHi() && addr + size > semLo();
  }
  /// Core index at NoC coordinates, or -1.
  int coreAtNoc(uint32_t x, uint32_t y) const;
  uint32_t nocX(int core) const { return spec.noc_x[core % spec.grid_cols]; }
  uint32_t nocY(int core) const { return spec.noc_y[core / spec.grid_cols]; }
  /// Bytes [offset, offset + size) of DRAM bank `bank` if they lie inside one buffer, else null.
  uint8_t* dramSpan(uint32_t bank, uint64_t offset, uint64_t size);
};

struct BufferImpl {
  std::shared_ptr<DeviceImpl> device;
  tt::tt_metal::BufferType type = tt::tt_metal::BufferType::DRAM;
  uint32_t address = 0;
  uint64_t size = 0;
  uint64_t pageSize = 0;
};

/// Where page `page` of an interleaved buffer lies: bank (DRAM bank or core) and bank offset.
inline std::pair<uint32_t, uint64_t> interleavedPage(uint32_t banks, uint64_t base,
                                                     uint64_t pageSize, uint64_t page) {
  return {static_cast<uint32_t>(page % banks), base + (page / banks) * pageSize};
}

// ---------------------------------------------------------------------------------------------
// Program (as the host builds it; checked against the device at EnqueueMeshWorkload)

enum class Processor { Riscv0 = 0, Riscv1 = 1, Compute = 2 };

struct KernelDef {
  std::string path;
  std::string name; // file stem: "reader", "compute", ...
  KernelEntry entry = nullptr;
  std::vector<CoreCoord> cores;
  Processor processor = Processor::Riscv0;
  int noc = 0;
  std::vector<uint32_t> compileArgs;
  bool fp32DestAcc = false;
  bool fullSync = false;
  MathFidelity mathFidelity = MathFidelity::HiFi4; // accepted; the emulator computes in float
  std::map<std::pair<size_t, size_t>, std::vector<uint32_t>> runtimeArgs; // by (x, y)
  ttlplan::emu::SourceLoc loc;
};

struct CbDef {
  std::vector<CoreCoord> cores;
  tt::tt_metal::CircularBufferConfig config{0, {}};
  ttlplan::emu::SourceLoc loc;
};

struct SemDef {
  std::vector<CoreCoord> cores;
  uint32_t initial = 0;
  ttlplan::emu::SourceLoc loc;
};

struct ProgramImpl {
  std::vector<KernelDef> kernels;
  std::vector<CbDef> cbs;
  std::vector<SemDef> sems;
  std::vector<size_t> setupErrors; // indices of errors found while the host built it
};

std::vector<CoreCoord> expandCores(const CoreRangeSet& set);

// ---------------------------------------------------------------------------------------------
// One run of a program

/// A CB on one core. Counters only grow; pages in the ring are counter % numPages.
struct CbState {
  bool configured = false;
  uint32_t index = 0;
  uint32_t addr = 0;
  uint32_t size = 0;
  uint32_t pageSize = 0;
  uint32_t numPages = 0;
  tt::DataFormat format = tt::DataFormat::Float16_b;
  uint64_t received = 0; // pages pushed
  uint64_t acked = 0;    // pages popped
  uint32_t reserved = 0; // pages the producer made sure are free and has not pushed yet
  uint32_t waited = 0;   // pages the consumer made sure are filled and has not popped yet
  uint32_t packNext = 0; // page of the back the next in-order pack_tile writes (0 after a push)
  std::vector<uint32_t> overlaps; // CB indices on this core whose address ranges intersect

  uint32_t filled() const { return static_cast<uint32_t>(received - acked); }
  uint32_t freePages() const { return numPages - filled(); }
  uint32_t wrPage() const { return static_cast<uint32_t>(received % numPages); }
  uint32_t rdPage() const { return static_cast<uint32_t>(acked % numPages); }
  /// Live bytes (reserved, or pushed and not popped) as up to two intervals [lo, hi).
  int liveIntervals(std::pair<uint32_t, uint32_t> out[2]) const;
};

enum class WaitKind { None, Reserve, Front, SemEq, SemMin };

enum class Regs { Free, Acquired, Committed, Waited };

/// A compute thread's DST register file and the state that checks its protocol.
struct ComputeState {
  std::vector<float> dst = std::vector<float>(kMaxDstTiles * kTileElems);
  uint32_t capacity = 8;
  std::string capacityWhy; // "half sync, fp32_dest_acc_en off" (for messages)
  Regs regs = Regs::Free;
  uint32_t inits = 0; // bit per op kind whose init is still in effect
  bool l1Acc = false;
  bool transposeB = false;     // the last matmul init's transpose
  int reduceConfig = -1;       // pool * 4 + dim of the last reduce_init (-1: none)
  uint32_t reduceScalerCb = 0; // the scaler CB that reduce_init named
  bool hwStarted = false;      // compute_kernel_hw_startup or a full init has run
  bool hwReported = false;     // a call before it was reported (once per thread)
  bool opCalled = false; // an op, a short init or a pack has run (a full init after it is late)
};

struct Run;

/// One emulated thread: one kernel on one core.
struct ThreadCtx {
  Run* run = nullptr;
  int core = 0;
  uint32_t x = 0, y = 0; // logical
  const KernelDef* kernel = nullptr;
  const std::vector<uint32_t>* args = nullptr;
  std::condition_variable cv;

  // What the thread blocks on (guarded by Run::m).
  bool blocked = false;
  WaitKind wait = WaitKind::None;
  uint32_t waitCb = 0;
  uint32_t waitWant = 0;
  uint32_t waitAddr = 0;
  const char* waitFn = "";
  ttlplan::emu::SourceLoc waitLoc;
  bool finished = false; // returned from its kernel (guarded by Run::m)
  /// The location of its latest kernel API call (for the time limit's report; written by the
  /// thread, read by the watchdog).
  /// Its fields one by one (a SourceLoc is three words; its strings are static): the watchdog may
  /// read the file of one call with the line of the next, which only its report shows.
  std::atomic<const char*> lastFile{""};
  std::atomic<unsigned> lastLine{0};
  std::atomic<const char*> lastFunction{""};

  // Transfers issued and not yet barrier-waited: local L1 byte ranges [lo, hi).
  std::vector<std::pair<uint32_t, uint32_t>> pendingReads;  // destinations
  std::vector<std::pair<uint32_t, uint32_t>> pendingWrites; // sources

  uint64_t packed = 0;
  uint64_t matmuls = 0;
  std::unique_ptr<ComputeState> compute;

  std::string where() const; // "core (x,y) reader"
};

struct Run {
  Run(DeviceImpl& d, ProgramImpl& p) : dev(d), prog(p) {}
  DeviceImpl& dev;
  ProgramImpl& prog;

  /// Guards CB counters, blocking state, and every access to the semaphore region of L1.
  std::mutex m;
  int live = 0;
  int blocked = 0;
  bool aborted = false;
  /// Set at the time limit: every kernel API call then ends its thread (RunAborted).
  std::atomic<bool> stopRequested{false};

  std::vector<CbState> cbs; // numCores * max_cbs
  std::vector<uint8_t> coreHasOverlap;
  std::vector<std::vector<ThreadCtx*>> coreThreads;
  std::vector<std::unique_ptr<ThreadCtx>> threads;
  uint32_t semaphoresCreated = 0;

  CbState& cbAt(int core, uint32_t index) { return cbs[core * dev.spec.max_cbs + index]; }
};

/// The calling kernel thread's context; a fatal error outside a kernel thread. Every kernel API
/// call starts here: it records the call's location and ends the thread (RunAborted) once the
/// run's time limit has passed.
ThreadCtx& current(const ttlplan::emu::SourceLoc& loc);
/// What a blocked thread waits for: "cb_wait_front(cb 1, 2 tiles): 0 of 2 pages filled" (lock
/// held).
std::string describeWait(Run& r, const ThreadCtx& t);

/// Watches one run's time limit (Options::timeLimitSeconds; TimeLimit.cpp): when it passes, reports
/// a timeout that lists every unfinished thread and stops the run.
class RunTimeLimit {
public:
  /// Starts watching when seconds > 0.
  RunTimeLimit(Run& run, double seconds);
  /// Tells the watchdog the run ended (every thread joined) and waits for it.
  ~RunTimeLimit();
  RunTimeLimit(const RunTimeLimit&) = delete;
  RunTimeLimit& operator=(const RunTimeLimit&) = delete;
  /// Whether the run was stopped at its limit.
  bool stopped() const { return stopped_; }

private:
  void watch();
  void stopRun();
  Run& run_;
  double seconds_;
  std::mutex m_;
  std::condition_variable cv_;
  bool ended_ = false;
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};
/// The configured CB `cb` of the calling thread's core, or null after a misuse report.
CbState* cbOf(ThreadCtx& t, uint32_t cb, const char* fn, const ttlplan::emu::SourceLoc& loc);
/// Blocks (lock held) until the wait recorded in t is satisfied; throws RunAborted on deadlock.
void blockUntilSatisfied(ThreadCtx& t, std::unique_lock<std::mutex>& lock);
/// Wakes the threads of `core` whose wait became satisfied (lock held).
void wakeCore(Run& run, int core);
/// Reports a CB overlap if L1 bytes [lo, hi) that the thread reads are live in two CBs (or, with
/// `cb` >= 0, live in CB `cb` and in another CB). Lock not held.
void checkCbOverlapRead(ThreadCtx& t, int cb, uint32_t lo, uint32_t hi, const char* fn,
                        const ttlplan::emu::SourceLoc& loc);
/// Reports a misuse (kind misuse) or another kind from a kernel thread: adds where().
void threadError(ThreadCtx& t, ErrorKind kind, const std::string& message,
                 const ttlplan::emu::SourceLoc& loc);
/// Whether [addr, addr + size) lies in L1; reports `kind` naming fn otherwise.
bool checkL1Range(ThreadCtx& t, uint32_t addr, uint64_t size, bool write, const char* fn,
                  const ttlplan::emu::SourceLoc& loc);

/// L1 address of the CB config entries (16 B per CB index), just below the semaphores.
inline uint32_t cbConfigBase(const DeviceSpec& spec) {
  return (spec.semaphore_base - 16 * spec.max_cbs) / 16 * 16;
}

/// NoC address of byte `offset` of page `id` of an interleaved buffer (DRAM banks, or the cores'
/// L1 when !dram).
uint64_t interleavedNocAddr(bool dram, uint32_t id, uint32_t bank_base_address, uint32_t page_size,
                            uint32_t offset, const ttlplan::emu::SourceLoc& loc);

std::string cbPagesText(uint32_t n); // "1 page" / "2 pages"
std::string hex(uint64_t v);

} // namespace ttlplan::emu
