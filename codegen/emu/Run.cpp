// EnqueueMeshWorkload: checks the program against the device, sets up CBs and semaphores, runs one
// thread per (core, kernel) and joins them. Also the blocking machinery every blocking kernel call
// uses, which detects deadlock: all shared sync state is guarded by one mutex per run, each thread
// waits on its own condition variable, and a state change wakes only the threads of the core it
// touched whose wait is now satisfied (deciding that under the mutex, so a woken thread never
// counts as blocked and "every unfinished thread is blocked" is exact).
#include "Runtime.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>

namespace ttlplan::emu {
namespace {

thread_local ThreadCtx* tlsCtx = nullptr;

struct StatsStore {
  std::mutex m;
  RunStats last;
};

StatsStore& statsStore() {
  static StatsStore* s = new StatsStore;
  return *s;
}

const std::vector<uint32_t>& noArgs() {
  static const std::vector<uint32_t> none;
  return none;
}

std::string coreText(size_t x, size_t y) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + ")";
}

std::string tilesText(uint32_t n) {
  return std::to_string(n) + (n == 1 ? " tile" : " tiles");
}

uint32_t readWord(Run& r, int core, uint32_t addr) {
  uint32_t v;
  std::memcpy(&v, r.dev.l1[core] + addr, 4);
  return v;
}

bool satisfied(Run& r, const ThreadCtx& t) {
  switch (t.wait) {
  case WaitKind::None:
    return true;
  case WaitKind::Reserve:
    return r.cbAt(t.core, t.waitCb).freePages() >= t.waitWant;
  case WaitKind::Front:
    return r.cbAt(t.core, t.waitCb).filled() >= t.waitWant;
  case WaitKind::SemEq:
    return readWord(r, t.core, t.waitAddr) == t.waitWant;
  case WaitKind::SemMin:
    return readWord(r, t.core, t.waitAddr) >= t.waitWant;
  }
  return true;
}

/// Every unfinished thread is blocked (lock held): report each wait, then wake everybody so that
/// the threads unwind (RunAborted) and the run ends.
void abortDeadlock(Run& r) {
  std::string body;
  for (const auto& t : r.threads)
    if (t->blocked)
      body += "  " + t->where() + ": " + describeWait(r, *t) + "\n    at " +
              describeLocation(t->waitLoc) + "\n";
  recordError(ErrorKind::Deadlock, "every thread is blocked", body,
              ttlplan::emu::SourceLoc::current(),
              /*dedupe=*/false);
  r.aborted = true;
  for (const auto& t : r.threads)
    t->cv.notify_one();
}

void finishThread(ThreadCtx& t) {
  Run& r = *t.run;
  std::lock_guard lock(r.m);
  if (t.blocked) {
    t.blocked = false;
    --r.blocked;
  }
  t.finished = true;
  --r.live;
  if (!r.aborted && r.live > 0 && r.blocked == r.live) abortDeadlock(r);
}

void threadMain(ThreadCtx& t) {
  tlsCtx = &t;
  try {
    t.kernel->entry();
  } catch (const RunAborted&) {
    // The run was aborted (deadlock or time limit, reported already); this thread just ends.
  } catch (const std::exception& e) {
    threadError(t, ErrorKind::Misuse, std::string("the kernel threw: ") + e.what(),
                ttlplan::emu::SourceLoc::current());
  } catch (...) {
    threadError(t, ErrorKind::Misuse, "the kernel threw a non-standard exception",
                ttlplan::emu::SourceLoc::current());
  }
  tlsCtx = nullptr;
  finishThread(t);
}

void setupError(ErrorKind kind, const std::string& message, const ttlplan::emu::SourceLoc& loc) {
  recordError(kind, message, "  host\n    at " + describeLocation(loc) + "\n", loc, false);
}

/// Checks the program against the device and fills the run's CBs, semaphores and threads.
bool setUp(Run& r) {
  DeviceImpl& dev = r.dev;
  const DeviceSpec& spec = dev.spec;
  ProgramImpl& p = r.prog;
  bool ok = true;
  auto inGrid = [&](const CoreCoord& c) { return c.x < spec.grid_cols && c.y < spec.grid_rows; };
  auto gridText = std::to_string(spec.grid_rows) + " x " + std::to_string(spec.grid_cols);

  // Kernels: inside the grid, one per processor of a core, runtime args within the limit.
  std::vector<std::array<int, 3>> onCore(dev.numCores, {-1, -1, -1});
  static const char* processorNames[] = {"RISCV_0", "RISCV_1", "compute"};
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const KernelDef& kd = p.kernels[k];
    for (const CoreCoord& c : kd.cores) {
      if (!inGrid(c)) {
        setupError(ErrorKind::Misuse,
                   "CreateKernel(" + kd.path + "): core " + coreText(c.x, c.y) +
                       " is outside the " + gridText + " grid (rows x columns)",
                   kd.loc);
        ok = false;
        continue;
      }
      int& slot = onCore[c.y * spec.grid_cols + c.x][static_cast<int>(kd.processor)];
      if (slot >= 0) {
        setupError(ErrorKind::Misuse,
                   "CreateKernel(" + kd.path + "): core " + coreText(c.x, c.y) + " already runs " +
                       p.kernels[slot].path + " on " +
                       processorNames[static_cast<int>(kd.processor)],
                   kd.loc);
        ok = false;
        continue;
      }
      slot = static_cast<int>(k);
    }
    for (const auto& [core, args] : kd.runtimeArgs)
      if (args.size() > spec.max_runtime_args) {
        setupError(ErrorKind::Misuse,
                   "SetRuntimeArgs(" + kd.path + ", core " + coreText(core.first, core.second) +
                       "): " + std::to_string(args.size()) + " args, more than the " +
                       std::to_string(spec.max_runtime_args) + " a kernel may have",
                   kd.loc);
        ok = false;
      }
  }

  // CBs: every (core, index) once, pages of a supported format inside the unreserved L1.
  // Placed as TT-Metalium's allocator places them (tt_metal/impl/program/program.cpp,
  // ProgramImpl::allocate_circular_buffers): in creation order from l1_unreserved_base, each at
  // the aligned end of what earlier CBs took on any of its cores.
  r.cbs.assign(static_cast<size_t>(dev.numCores) * spec.max_cbs, CbState{});
  const uint64_t align = std::max<uint32_t>(spec.cb_alignment, 1);
  auto alignUp = [&](uint64_t v) { return (v + align - 1) / align * align; };
  std::vector<uint64_t> coreEnd(dev.numCores, spec.l1_unreserved_base);
  for (const CbDef& cd : p.cbs) {
    const auto& cfg = cd.config;
    uint64_t start = spec.l1_unreserved_base;
    for (const CoreCoord& c : cd.cores)
      if (inGrid(c)) start = std::max(start, coreEnd[c.y * spec.grid_cols + c.x]);
    start = alignUp(start);
    for (const CoreCoord& c : cd.cores)
      if (inGrid(c)) coreEnd[c.y * spec.grid_cols + c.x] = start + cfg.total_size();
    const uint32_t addr = static_cast<uint32_t>(std::min<uint64_t>(start, 0xffffffffu));
    if (cfg.data_formats().empty()) {
      setupError(ErrorKind::Misuse, "CreateCircularBuffer: the config names no CB index", cd.loc);
      ok = false;
    }
    for (const auto& [index, format] : cfg.data_formats()) {
      const std::string name = "CreateCircularBuffer(cb " + std::to_string(index) + ")";
      if (index >= spec.max_cbs) {
        setupError(ErrorKind::Misuse,
                   name + ": index beyond the " + std::to_string(spec.max_cbs) +
                       " CBs the device has",
                   cd.loc);
        ok = false;
        continue;
      }
      if (!formatSupported(format)) {
        setupError(ErrorKind::Misuse,
                   name + ": data format " + std::to_string(static_cast<int>(format)) +
                       " is not supported (Float16_b, Float32, Bfp8_b, Bfp4_b are)",
                   cd.loc);
        ok = false;
        continue;
      }
      auto ps = cfg.page_sizes().find(index);
      if (ps == cfg.page_sizes().end() || ps->second == 0) {
        setupError(ErrorKind::Misuse, name + ": no page size (set_page_size)", cd.loc);
        ok = false;
        continue;
      }
      const uint32_t page = ps->second;
      if (page < formatTileBytes(format)) {
        setupError(ErrorKind::Misuse,
                   name + ": page size " + std::to_string(page) + " B is smaller than a " +
                       formatName(format) + " tile (" + std::to_string(formatTileBytes(format)) +
                       " B)",
                   cd.loc);
        ok = false;
        continue;
      }
      if (cfg.total_size() == 0 || cfg.total_size() % page) {
        setupError(ErrorKind::Misuse,
                   name + ": total size " + std::to_string(cfg.total_size()) +
                       " B is not a positive multiple of the page size " + std::to_string(page) +
                       " B",
                   cd.loc);
        ok = false;
        continue;
      }
      const uint64_t end = uint64_t{addr} + cfg.total_size();
      if (addr < spec.l1_unreserved_base || end > spec.l1_bytes) {
        setupError(ErrorKind::WriteOutsideL1,
                   name + ": pages [" + std::to_string(addr) + ", " + std::to_string(end) +
                       ") lie outside [l1_unreserved_base, l1_bytes) = [" +
                       std::to_string(spec.l1_unreserved_base) + ", " +
                       std::to_string(spec.l1_bytes) + ")",
                   cd.loc);
        ok = false;
        continue;
      }
      for (const CoreCoord& c : cd.cores) {
        if (!inGrid(c)) {
          setupError(ErrorKind::Misuse,
                     name + ": core " + coreText(c.x, c.y) + " is outside the " + gridText +
                         " grid",
                     cd.loc);
          ok = false;
          continue;
        }
        CbState& s = r.cbAt(static_cast<int>(c.y * spec.grid_cols + c.x), index);
        if (s.configured) {
          setupError(ErrorKind::Misuse,
                     name + ": core " + coreText(c.x, c.y) + " already has a cb " +
                         std::to_string(index),
                     cd.loc);
          ok = false;
          continue;
        }
        s.configured = true;
        s.index = index;
        s.addr = addr;
        s.size = cfg.total_size();
        s.pageSize = page;
        s.numPages = cfg.total_size() / page;
        s.format = format;
        // The CB's config entry, where TT-Metalium's firmware reads it and a host may read it back
        // (MeshWorkload::get_cb_base_addr + detail::ReadFromDeviceL1): address, size, pages, page
        // size.
        const uint32_t entry[4] = {s.addr, s.size, s.numPages, s.pageSize};
        std::memcpy(dev.l1[c.y * spec.grid_cols + c.x] + cbConfigBase(spec) + 16 * index, entry,
                    sizeof entry);
      }
    }
  }
  // CBs whose address ranges intersect: their reads are checked against each other's live pages.
  r.coreHasOverlap.assign(dev.numCores, 0);
  for (uint32_t core = 0; core < dev.numCores; ++core)
    for (uint32_t a = 0; a < spec.max_cbs; ++a)
      for (uint32_t b = a + 1; b < spec.max_cbs; ++b) {
        CbState& x = r.cbAt(core, a);
        CbState& y = r.cbAt(core, b);
        if (!x.configured || !y.configured) continue;
        if (x.addr < y.addr + y.size && y.addr < x.addr + x.size) {
          x.overlaps.push_back(b);
          y.overlaps.push_back(a);
          r.coreHasOverlap[core] = 1;
        }
      }

  // Semaphores: initial values into L1 at semaphore_base + 16 * id.
  r.semaphoresCreated = static_cast<uint32_t>(p.sems.size());
  for (size_t id = 0; id < p.sems.size(); ++id) {
    const SemDef& sd = p.sems[id];
    if (id >= spec.semaphores) {
      setupError(ErrorKind::Misuse,
                 "CreateSemaphore: semaphore " + std::to_string(id) + " is beyond the " +
                     std::to_string(spec.semaphores) + " semaphores a core has",
                 sd.loc);
      ok = false;
      continue;
    }
    for (const CoreCoord& c : sd.cores) {
      if (!inGrid(c)) {
        setupError(ErrorKind::Misuse,
                   "CreateSemaphore: core " + coreText(c.x, c.y) + " is outside the " + gridText +
                       " grid",
                   sd.loc);
        ok = false;
        continue;
      }
      std::memcpy(dev.l1[c.y * spec.grid_cols + c.x] + spec.semaphore_base + 16 * id, &sd.initial,
                  4);
    }
  }
  if (!ok) return false;

  // Threads, in report order: cores row-major, then reader (RISCV_0), compute, writer (RISCV_1).
  r.coreThreads.assign(dev.numCores, {});
  static const int order[] = {static_cast<int>(Processor::Riscv0),
                              static_cast<int>(Processor::Compute),
                              static_cast<int>(Processor::Riscv1)};
  for (uint32_t core = 0; core < dev.numCores; ++core)
    for (int proc : order) {
      int k = onCore[core][proc];
      if (k < 0) continue;
      const KernelDef& kd = p.kernels[k];
      auto t = std::make_unique<ThreadCtx>();
      t->run = &r;
      t->core = static_cast<int>(core);
      t->x = core % spec.grid_cols;
      t->y = core / spec.grid_cols;
      t->kernel = &kd;
      auto args = kd.runtimeArgs.find({t->x, t->y});
      t->args = args == kd.runtimeArgs.end() ? &noArgs() : &args->second;
      if (kd.processor == Processor::Compute) {
        t->compute = std::make_unique<ComputeState>();
        const bool full = spec.dst_full_sync || kd.fullSync;
        t->compute->capacity =
            kd.fp32DestAcc ? (full ? spec.dst_tiles_full_sync_fp32 : spec.dst_tiles_half_sync_fp32)
                           : (full ? spec.dst_tiles_full_sync : spec.dst_tiles_half_sync);
        t->compute->capacityWhy = std::string(full ? "full" : "half") + " sync, fp32_dest_acc_en " +
                                  (kd.fp32DestAcc ? "on" : "off");
      }
      r.coreThreads[core].push_back(t.get());
      r.threads.push_back(std::move(t));
    }
  return true;
}

/// Options::timeLimitSeconds, or else TTLPLAN_EMU_TIMEOUT (0 when neither is set; a bad value is
/// reported and ignored).
double timeLimitSeconds(const ttlplan::emu::SourceLoc& loc) {
  if (double limit = options().timeLimitSeconds; limit > 0) return limit;
  const char* text = std::getenv("TTLPLAN_EMU_TIMEOUT");
  if (!text || !*text) return 0;
  char* end = nullptr;
  const double limit = std::strtod(text, &end);
  if (*end == '\0' && limit >= 0 && limit <= 1e9) return limit;
  setupError(ErrorKind::Misuse,
             std::string("TTLPLAN_EMU_TIMEOUT=") + text +
                 ": expected seconds, a number in [0, 1e9]; the run has no time limit",
             loc);
  return 0;
}

} // namespace

std::string describeWait(Run& r, const ThreadCtx& t) {
  std::string s = t.waitFn;
  switch (t.wait) {
  case WaitKind::Reserve:
  case WaitKind::Front: {
    const CbState& c = r.cbAt(t.core, t.waitCb);
    const bool reserve = t.wait == WaitKind::Reserve;
    s += "(cb " + std::to_string(t.waitCb) + ", " + tilesText(t.waitWant) +
         "): " + std::to_string(reserve ? c.freePages() : c.filled()) + " of " +
         std::to_string(t.waitWant) + " pages " + (reserve ? "free" : "filled");
    if (t.waitWant > c.numPages) s += " (the CB holds " + cbPagesText(c.numPages) + ")";
    return s;
  }
  case WaitKind::SemEq:
  case WaitKind::SemMin: {
    const uint32_t id = (t.waitAddr - r.dev.spec.semaphore_base) / 16;
    s += "(semaphore " + std::to_string(id) + " at L1 " + hex(t.waitAddr) + ", " +
         (t.wait == WaitKind::SemEq ? "== " : ">= ") + std::to_string(t.waitWant) + "): holds " +
         std::to_string(readWord(r, t.core, t.waitAddr));
    return s;
  }
  case WaitKind::None:
    break;
  }
  return s + ": not blocked";
}

std::string ThreadCtx::where() const {
  return "core " + coreText(x, y) + " " + (kernel ? kernel->name : std::string("?"));
}

ThreadCtx& current(const ttlplan::emu::SourceLoc& loc) {
  if (!tlsCtx) {
    std::fprintf(stderr,
                 "emulator: fatal: a kernel API function was called outside a kernel thread (at "
                 "%s:%u)\n",
                 loc.file_name(), static_cast<unsigned>(loc.line()));
    std::abort();
  }
  ThreadCtx& t = *tlsCtx;
  t.lastFile.store(loc.file_name(), std::memory_order_relaxed);
  t.lastLine.store(loc.line(), std::memory_order_relaxed);
  t.lastFunction.store(loc.function_name(), std::memory_order_relaxed);
  if (t.run->stopRequested.load(std::memory_order_relaxed)) throw RunAborted{};
  return t;
}

void threadError(ThreadCtx& t, ErrorKind kind, const std::string& message,
                 const ttlplan::emu::SourceLoc& loc) {
  recordError(kind, message, "  " + t.where() + "\n    at " + describeLocation(loc) + "\n", loc);
}

CbState* cbOf(ThreadCtx& t, uint32_t cb, const char* fn, const ttlplan::emu::SourceLoc& loc) {
  Run& r = *t.run;
  if (cb < r.dev.spec.max_cbs && r.cbAt(t.core, cb).configured) return &r.cbAt(t.core, cb);
  threadError(t, ErrorKind::Misuse,
              std::string(fn) + "(cb " + std::to_string(cb) + "): no cb " + std::to_string(cb) +
                  " is configured on core " + coreText(t.x, t.y),
              loc);
  return nullptr;
}

void blockUntilSatisfied(ThreadCtx& t, std::unique_lock<std::mutex>& lock) {
  Run& r = *t.run;
  if (r.aborted) throw RunAborted{};
  if (satisfied(r, t)) {
    t.wait = WaitKind::None;
    return;
  }
  t.blocked = true;
  ++r.blocked;
  if (r.blocked == r.live) abortDeadlock(r);
  while (t.blocked && !r.aborted)
    t.cv.wait(lock);
  if (r.aborted) throw RunAborted{};
  t.wait = WaitKind::None;
}

void wakeCore(Run& r, int core) {
  for (ThreadCtx* o : r.coreThreads[core])
    if (o->blocked && satisfied(r, *o)) {
      o->blocked = false;
      --r.blocked;
      o->cv.notify_one();
    }
}

bool checkL1Range(ThreadCtx& t, uint32_t addr, uint64_t size, bool write, const char* fn,
                  const ttlplan::emu::SourceLoc& loc) {
  const uint64_t end = uint64_t{addr} + size;
  const uint32_t top = t.run->dev.spec.l1_bytes;
  if (end <= top) return true;
  threadError(t, write ? ErrorKind::WriteOutsideL1 : ErrorKind::Misuse,
              std::string(fn) + ": " + (write ? "writes" : "reads") + " L1 [" +
                  std::to_string(addr) + ", " + std::to_string(end) + ") outside [0, " +
                  std::to_string(top) + ")",
              loc);
  return false;
}

int CbState::liveIntervals(std::pair<uint32_t, uint32_t> out[2]) const {
  const uint32_t count = std::min(numPages, filled() + reserved);
  if (count == 0) return 0;
  const uint32_t start = rdPage(), end = start + count;
  if (end <= numPages) {
    out[0] = {addr + start * pageSize, addr + end * pageSize};
    return 1;
  }
  out[0] = {addr + start * pageSize, addr + size};
  out[1] = {addr, addr + (end - numPages) * pageSize};
  return 2;
}

void checkCbOverlapRead(ThreadCtx& t, int cb, uint32_t lo, uint32_t hi, const char* fn,
                        const ttlplan::emu::SourceLoc& loc) {
  Run& r = *t.run;
  if (!r.coreHasOverlap[t.core]) return;
  std::string message;
  {
    std::lock_guard lock(r.m);
    // (cb, live interval clipped to the read) for the CBs that take part.
    struct Piece {
      uint32_t cb, lo, hi;
    };
    std::vector<Piece> pieces;
    for (uint32_t i = 0; i < r.dev.spec.max_cbs; ++i) {
      const CbState& c = r.cbAt(t.core, i);
      if (!c.configured || c.overlaps.empty()) continue;
      std::pair<uint32_t, uint32_t> iv[2];
      for (int k = 0, n = c.liveIntervals(iv); k < n; ++k) {
        uint32_t a = std::max(lo, iv[k].first), b = std::min(hi, iv[k].second);
        if (a < b) pieces.push_back({i, a, b});
      }
    }
    for (const Piece& x : pieces) {
      if (cb >= 0 && x.cb != static_cast<uint32_t>(cb)) continue;
      for (const Piece& y : pieces) {
        if (y.cb == x.cb) continue;
        uint32_t a = std::max(x.lo, y.lo), b = std::min(x.hi, y.hi);
        if (a >= b) continue;
        message = std::string(fn) + " reads L1 [" + std::to_string(a) + ", " + std::to_string(b) +
                  ") of cb " + std::to_string(x.cb) + " while cb " + std::to_string(y.cb) +
                  " holds live pages there (cb " + std::to_string(x.cb) + " at " +
                  std::to_string(r.cbAt(t.core, x.cb).addr) + ", cb " + std::to_string(y.cb) +
                  " at " + std::to_string(r.cbAt(t.core, y.cb).addr) + ")";
        break;
      }
      if (!message.empty()) break;
    }
  }
  if (!message.empty()) threadError(t, ErrorKind::CbOverlap, message, loc);
}

uint32_t kernelArg(int index, const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  if (index >= 0 && static_cast<size_t>(index) < t.args->size())
    return (*t.args)[static_cast<size_t>(index)];
  threadError(t, ErrorKind::Misuse,
              "get_arg_val(" + std::to_string(index) + "): runtime arg " + std::to_string(index) +
                  " was never set (SetRuntimeArgs gave " + std::to_string(t.args->size()) +
                  " args to " + t.kernel->path + " on core " + coreText(t.x, t.y) + ")",
              loc);
  return 0;
}

uint32_t kernelCompileTimeArg(int index, const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  const auto& args = t.kernel->compileArgs;
  if (index >= 0 && static_cast<size_t>(index) < args.size())
    return args[static_cast<size_t>(index)];
  threadError(t, ErrorKind::Misuse,
              "get_compile_time_arg_val(" + std::to_string(index) + "): " + t.kernel->path +
                  " has " + std::to_string(args.size()) + " compile-time args",
              loc);
  return 0;
}

RunStats lastRunStats() {
  StatsStore& s = statsStore();
  std::lock_guard lock(s.m);
  return s.last;
}

} // namespace ttlplan::emu

uint32_t get_compile_time_arg_val(int arg_idx, ttlplan::emu::SourceLoc loc) {
  return ttlplan::emu::kernelCompileTimeArg(arg_idx, loc);
}

namespace tt::tt_metal {

using namespace ttlplan::emu;

namespace distributed {

uint32_t MeshWorkload::get_cb_base_addr(std::shared_ptr<MeshDevice>& mesh_device,
                                        CoreCoord logical_core, CoreType core_type) {
  (void)logical_core, (void)core_type;
  return cbConfigBase(mesh_device->impl()->spec);
}

void Finish(MeshCommandQueue& mesh_cq) {
  (void)mesh_cq;
}

void EnqueueMeshWorkload(MeshCommandQueue& cq, MeshWorkload& workload, bool blocking,
                         ttlplan::emu::SourceLoc loc) {
  (void)blocking;
  if (workload.programs().size() != 1) {
    setupError(ErrorKind::Misuse,
               "EnqueueMeshWorkload: the workload holds " +
                   std::to_string(workload.programs().size()) +
                   " programs; the emulator runs one on its unit mesh",
               loc);
    return;
  }
  ProgramImpl& p = *workload.programs().front().impl();
  beginRunErrors(p.setupErrors);
  {
    StatsStore& s = statsStore();
    std::lock_guard lock(s.m);
    s.last = RunStats{};
  }
  if (!cq.device()) {
    setupError(ErrorKind::Misuse, "EnqueueMeshWorkload: the command queue has no device", loc);
    return;
  }
  Run run(*cq.device()->impl(), p);
  const bool ok = setUp(run) && p.setupErrors.empty();
  if (!ok) {
    if (options().printReports)
      std::fprintf(stderr, "emulator: the program was not run (errors above)\n");
    return;
  }

  const double timeLimit = timeLimitSeconds(loc);
  const auto start = std::chrono::steady_clock::now();
  RunTimeLimit limit(run, timeLimit);
  std::vector<std::thread> threads;
  threads.reserve(run.threads.size());
  run.live = static_cast<int>(run.threads.size());
  for (size_t i = 0; i < run.threads.size(); ++i) {
    try {
      threads.emplace_back(threadMain, std::ref(*run.threads[i]));
    } catch (const std::system_error& e) {
      setupError(ErrorKind::Misuse,
                 std::string("EnqueueMeshWorkload: cannot start thread ") + std::to_string(i + 1) +
                     " of " + std::to_string(run.threads.size()) + ": " + e.what(),
                 loc);
      std::lock_guard lock(run.m);
      run.live -= static_cast<int>(run.threads.size() - i);
      run.aborted = true;
      for (size_t k = 0; k < i; ++k)
        run.threads[k]->cv.notify_one();
      break;
    }
  }
  for (std::thread& th : threads)
    th.join();
  if (limit.stopped() && options().exitOnError) {
    std::fprintf(stderr, "emulator: the run was stopped at its time limit; exit status 4\n");
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(4);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  RunStats stats;
  for (const auto& t : run.threads) {
    stats.packed_tiles += t->packed;
    stats.matmul_tiles += t->matmuls;
  }
  stats.tiles = stats.packed_tiles + stats.matmul_tiles;
  stats.seconds = seconds;
  stats.tiles_per_second = seconds > 0 ? static_cast<double>(stats.tiles) / seconds : 0;
  {
    StatsStore& s = statsStore();
    std::lock_guard lock(s.m);
    s.last = stats;
  }
  if (options().printReports) {
    std::fprintf(stderr, "emulator: %llu tiles in %.3f s (%.0f tiles/s)\n",
                 static_cast<unsigned long long>(stats.tiles), stats.seconds,
                 stats.tiles_per_second);
    std::fflush(stderr);
  }
}

} // namespace distributed

} // namespace tt::tt_metal
