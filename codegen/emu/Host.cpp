// Host side of the emulator: device description, device memory (L1 per core, interleaved DRAM),
// buffers, the kernel registry, and the calls that build a program. EnqueueProgram is in Run.cpp.
#include "Runtime.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <sys/prctl.h>
#include <unistd.h>

namespace ttlplan::emu {
namespace {

// DRAM buffers start here in every bank (0 would look like an unset address).
constexpr uint64_t kDramBase = 0x10000;
constexpr uint64_t kDramAlign = 32;
constexpr uint32_t kL1Align = 32;
// NoC coordinates the emulator can encode in a 64-bit NoC address (docs: 12 bits).
constexpr uint32_t kMaxNocCoord = 4096;

struct Registry {
  std::mutex m;
  std::map<std::string, KernelEntry> kernels;
};

Registry& registry() {
  static Registry* r = new Registry; // never destroyed: static registrars may outlive main
  return *r;
}

struct SpecOverride {
  std::mutex m;
  std::optional<DeviceSpec> spec;
};

SpecOverride& specOverride() {
  static SpecOverride* s = new SpecOverride;
  return *s;
}

/// Looks `path` up: exactly, else the one registered path that ends in "/" + path or that path
/// ends in "/" + it (the host and the wrapper may spell the directory differently).
KernelEntry lookupKernel(const std::string& path, std::string& why) {
  Registry& r = registry();
  std::lock_guard lock(r.m);
  if (auto it = r.kernels.find(path); it != r.kernels.end()) return it->second;
  auto endsWith = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  KernelEntry found = nullptr;
  int matches = 0;
  for (const auto& [name, entry] : r.kernels)
    if (endsWith(name, "/" + path) || endsWith(path, "/" + name)) {
      found = entry;
      ++matches;
    }
  if (matches == 1) return found;
  std::string known;
  for (const auto& [name, entry] : r.kernels)
    known += (known.empty() ? "" : ", ") + name;
  why = matches > 1 ? "several registered kernels match it"
                    : "registered kernels: " + (known.empty() ? "none" : known);
  return nullptr;
}

void hostError(ErrorKind kind, const std::string& message, const std::source_location& loc,
               ProgramImpl* program = nullptr) {
  size_t idx =
      recordError(kind, message, "  host\n    at " + describeLocation(loc) + "\n", loc, false);
  if (program) program->setupErrors.push_back(idx);
}

std::string stem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

} // namespace

void registerKernel(const std::string& path, KernelEntry entry) {
  Registry& r = registry();
  std::lock_guard lock(r.m);
  r.kernels[path] = entry;
}

DeviceSpec wormholeB0Spec() {
  static const DeviceSpec spec = [] {
    static const char* const kJson =
#include "DefaultDevice.inc"
        ;
    DeviceSpec s;
    std::string error;
    if (!parseDeviceSpec(kJson, s, error)) {
      // The build wrote it from the device ttlplan plans for; it cannot fail to parse.
      std::fprintf(stderr, "ttlplan emulator: the built-in device does not parse: %s\n",
                   error.c_str());
      std::abort();
    }
    return s;
  }();
  return spec;
}

bool parseDeviceSpec(const std::string& text, DeviceSpec& out, std::string& error) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    error = "not a JSON object";
    return false;
  }
  DeviceSpec s;
  auto u64 = [&](const char* key, uint64_t& v, uint64_t lo, uint64_t hi) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned() || it->get<uint64_t>() < lo ||
        it->get<uint64_t>() > hi) {
      error = std::string("field '") + key + "' is missing or not an integer in [" +
              std::to_string(lo) + ", " + std::to_string(hi) + "]";
      return false;
    }
    v = it->get<uint64_t>();
    return true;
  };
  auto u32 = [&](const char* key, uint32_t& v, uint64_t lo, uint64_t hi) {
    uint64_t w = 0;
    if (!u64(key, w, lo, hi)) return false;
    v = static_cast<uint32_t>(w);
    return true;
  };
  auto list = [&](const char* key, std::vector<uint32_t>& v, size_t n) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_array() || it->size() != n) {
      error = std::string("field '") + key + "' is missing or does not have " + std::to_string(n) +
              " entries";
      return false;
    }
    for (const auto& e : *it) {
      if (!e.is_number_unsigned() || e.get<uint64_t>() >= kMaxNocCoord) {
        error = std::string("field '") + key + "' holds a value that is not an integer in [0, " +
                std::to_string(kMaxNocCoord) + ")";
        return false;
      }
      v.push_back(e.get<uint32_t>());
    }
    return true;
  };
  if (auto it = j.find("name"); it != j.end() && it->is_string()) s.name = it->get<std::string>();
  if (!u32("grid_rows", s.grid_rows, 1, 64) || !u32("grid_cols", s.grid_cols, 1, 64) ||
      !u32("l1_bytes", s.l1_bytes, 1024, 1u << 30) ||
      !u32("l1_unreserved_base", s.l1_unreserved_base, 0, s.l1_bytes) ||
      !u32("dram_banks", s.dram_banks, 1, 4095) ||
      !u64("dram_bank_bytes", s.dram_bank_bytes, 1, 0xffffffffull) ||
      !list("noc_x", s.noc_x, s.grid_cols) || !list("noc_y", s.noc_y, s.grid_rows) ||
      !u32("dst_tiles_full_sync", s.dst_tiles_full_sync, 4, kMaxDstTiles) ||
      !u32("semaphores", s.semaphores, 0, 1024) ||
      !u32("semaphore_base", s.semaphore_base, 0, s.l1_bytes) ||
      !u32("max_cbs", s.max_cbs, 1, 256) || !u32("max_runtime_args", s.max_runtime_args, 0, 65536))
    return false;
  // The other DST counts are optional (spec files written before them): each defaults to half
  // of the smaller count it is part of, and may not exceed it.
  auto dstCount = [&](const char* key, uint32_t& v, uint32_t within) {
    v = std::max(1u, within / 2);
    return !j.contains(key) || u32(key, v, 1, within);
  };
  if (!dstCount("dst_tiles_half_sync", s.dst_tiles_half_sync, s.dst_tiles_full_sync) ||
      !dstCount("dst_tiles_full_sync_fp32", s.dst_tiles_full_sync_fp32, s.dst_tiles_full_sync) ||
      !dstCount("dst_tiles_half_sync_fp32", s.dst_tiles_half_sync_fp32,
                std::min(s.dst_tiles_half_sync, s.dst_tiles_full_sync_fp32)))
    return false;
  auto sync = j.find("dst_full_sync");
  if (sync != j.end()) {
    if (!sync->is_boolean()) {
      error = "field 'dst_full_sync' is not a boolean";
      return false;
    }
    s.dst_full_sync = sync->get<bool>();
  }
  if (uint64_t{s.semaphore_base} + 16ull * s.semaphores > s.l1_bytes) {
    error = "semaphores (semaphore_base + 16 * semaphores) end past l1_bytes";
    return false;
  }
  out = std::move(s);
  return true;
}

void setDeviceSpec(const DeviceSpec& spec) {
  SpecOverride& o = specOverride();
  std::lock_guard lock(o.m);
  o.spec = spec;
}

void clearDeviceSpec() {
  SpecOverride& o = specOverride();
  std::lock_guard lock(o.m);
  o.spec.reset();
}

DeviceImpl::DeviceImpl(DeviceSpec s) : spec(std::move(s)) {
  numCores = spec.grid_rows * spec.grid_cols;
  for (uint32_t i = 0; i < numCores; ++i)
    l1.push_back(static_cast<uint8_t*>(std::calloc(spec.l1_bytes, 1)));
  dram.resize(spec.dram_banks);
  nextDram = kDramBase;
  l1BufferTop = spec.l1_bytes;
  colOfNocX.assign(kMaxNocCoord, -1);
  rowOfNocY.assign(kMaxNocCoord, -1);
  for (uint32_t c = 0; c < spec.grid_cols; ++c)
    colOfNocX[spec.noc_x[c]] = static_cast<int>(c);
  for (uint32_t r = 0; r < spec.grid_rows; ++r)
    rowOfNocY[spec.noc_y[r]] = static_cast<int>(r);
}

DeviceImpl::~DeviceImpl() {
  for (uint8_t* p : l1)
    std::free(p);
}

int DeviceImpl::coreAtNoc(uint32_t x, uint32_t y) const {
  if (x >= kMaxNocCoord || y >= kMaxNocCoord) return -1;
  int col = colOfNocX[x], row = rowOfNocY[y];
  if (col < 0 || row < 0) return -1;
  return row * static_cast<int>(spec.grid_cols) + col;
}

uint8_t* DeviceImpl::dramSpan(uint32_t bank, uint64_t offset, uint64_t size) {
  if (bank >= dram.size()) return nullptr;
  auto& regions = dram[bank];
  auto it = regions.upper_bound(offset);
  if (it == regions.begin()) return nullptr;
  --it;
  DramRegion& r = it->second;
  if (offset + size > r.base + r.bytes.size()) return nullptr;
  return r.bytes.data() + (offset - r.base);
}

std::vector<CoreCoord> expandCores(const CoreRangeSet& set) {
  std::vector<CoreCoord> out;
  for (const CoreRange& r : set.ranges()) {
    size_t x0 = std::min(r.start.x, r.end.x), x1 = std::max(r.start.x, r.end.x);
    size_t y0 = std::min(r.start.y, r.end.y), y1 = std::max(r.start.y, r.end.y);
    // Bounded so that an absurd range cannot exhaust memory; the grid check reports it.
    x1 = std::min(x1, x0 + 4096);
    y1 = std::min(y1, y0 + 4096);
    for (size_t y = y0; y <= y1; ++y)
      for (size_t x = x0; x <= x1; ++x)
        if (std::find(out.begin(), out.end(), CoreCoord{x, y}) == out.end())
          out.push_back(CoreCoord{x, y});
  }
  return out;
}

} // namespace ttlplan::emu

namespace tt::tt_metal {

using namespace ttlplan::emu;

IDevice::IDevice(std::shared_ptr<DeviceImpl> impl) : impl_(std::move(impl)), queue_(this) {}
IDevice::~IDevice() = default;
CommandQueue& IDevice::command_queue(std::size_t) {
  return queue_;
}
CoreCoord IDevice::compute_with_storage_grid_size() const {
  return CoreCoord{impl_->spec.grid_cols, impl_->spec.grid_rows};
}
CoreCoord IDevice::worker_core_from_logical_core(const CoreCoord& logical) const {
  if (logical.x >= impl_->spec.grid_cols || logical.y >= impl_->spec.grid_rows) return logical;
  return CoreCoord{impl_->spec.noc_x[logical.x], impl_->spec.noc_y[logical.y]};
}
uint32_t IDevice::num_dram_channels() const {
  return impl_->spec.dram_banks;
}
uint32_t IDevice::l1_size_per_core() const {
  return impl_->spec.l1_bytes;
}

uint32_t Buffer::address() const {
  return impl_->address;
}
uint64_t Buffer::size() const {
  return impl_->size;
}
uint64_t Buffer::page_size() const {
  return impl_->pageSize;
}
BufferType Buffer::buffer_type() const {
  return impl_->type;
}

Program::Program() : impl_(std::make_shared<ProgramImpl>()) {}

namespace {

/// With TTLPLAN_EMU_PARENT=PID (set by `ttlplan run`), the program is killed when that parent
/// ends, even by SIGKILL, which it cannot forward: an emulated kernel that does not end must not
/// outlive the `run` that started it.
void endWithParent() {
  const char* text = std::getenv("TTLPLAN_EMU_PARENT");
  if (!text || !*text) return;
  const long parent = std::strtol(text, nullptr, 10);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) std::_Exit(1); // it ended before the line above took effect
}

} // namespace

IDevice* CreateDevice(int device_id, std::source_location loc) {
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit(exitIfErrorsAtExit);
    endWithParent();
  });
  if (device_id != 0)
    hostError(ErrorKind::Misuse,
              "CreateDevice(" + std::to_string(device_id) + "): the emulator has only device 0",
              loc);
  std::optional<DeviceSpec> given;
  {
    SpecOverride& o = specOverride();
    std::lock_guard lock(o.m);
    given = o.spec;
  }
  DeviceSpec spec = given ? *given : wormholeB0Spec();
  if (!given) {
    if (const char* file = std::getenv("TTLPLAN_EMU_DEVICE"); file && *file) {
      std::ifstream in(file);
      std::stringstream text;
      text << in.rdbuf();
      std::string error;
      if (!in) {
        error = "cannot read the file";
      }
      if (!in || !parseDeviceSpec(text.str(), spec, error)) {
        hostError(ErrorKind::Misuse,
                  std::string("TTLPLAN_EMU_DEVICE=") + file + ": " + error +
                      " (docs/emulator.md \"Device spec\")",
                  loc);
        exitIfErrors();
        return nullptr;
      }
    }
  }
  return new IDevice(std::make_shared<DeviceImpl>(std::move(spec)));
}

bool CloseDevice(IDevice* device, std::source_location loc) {
  (void)loc;
  delete device;
  exitIfErrors();
  return true;
}

Program CreateProgram() {
  return Program();
}

std::shared_ptr<Buffer> CreateBuffer(const InterleavedBufferConfig& config,
                                     std::source_location loc) {
  auto impl = std::make_shared<BufferImpl>();
  impl->type = config.buffer_type;
  impl->size = config.size;
  impl->pageSize = config.page_size;
  if (!config.device) {
    hostError(ErrorKind::Misuse, "CreateBuffer: InterleavedBufferConfig::device is null", loc);
    return std::make_shared<Buffer>(impl);
  }
  DeviceImpl& dev = *config.device->impl();
  impl->device = config.device->impl();
  if (config.page_size == 0 || config.size == 0 || config.size % config.page_size) {
    hostError(ErrorKind::Misuse,
              "CreateBuffer: size " + std::to_string(config.size) +
                  " is not a positive multiple of page_size " + std::to_string(config.page_size),
              loc);
    return std::make_shared<Buffer>(impl);
  }
  const uint64_t pages = config.size / config.page_size;
  if (config.buffer_type == BufferType::DRAM) {
    const uint64_t perBank = (pages + dev.spec.dram_banks - 1) / dev.spec.dram_banks;
    const uint64_t bankBytes = perBank * config.page_size;
    if (dev.nextDram + bankBytes > dev.spec.dram_bank_bytes) {
      hostError(ErrorKind::Misuse,
                "CreateBuffer: " + std::to_string(config.size) + " B do not fit in DRAM (" +
                    std::to_string(dev.spec.dram_banks) + " banks of " +
                    std::to_string(dev.spec.dram_bank_bytes) + " B, " +
                    std::to_string(dev.nextDram) + " B of each in use)",
                loc);
      return std::make_shared<Buffer>(impl);
    }
    impl->address = static_cast<uint32_t>(dev.nextDram);
    // Only the banks' bytes this buffer owns are allocated (lazily: a 12 x 1 GiB DRAM is never
    // materialised).
    for (uint32_t b = 0; b < dev.spec.dram_banks; ++b) {
      const uint64_t inBank = pages / dev.spec.dram_banks + (b < pages % dev.spec.dram_banks);
      if (inBank == 0) continue;
      DramRegion region;
      region.base = dev.nextDram;
      region.bytes.assign(inBank * config.page_size, 0);
      dev.dram[b].emplace(region.base, std::move(region));
    }
    dev.nextDram = (dev.nextDram + bankBytes + kDramAlign - 1) / kDramAlign * kDramAlign;
  } else {
    const uint64_t perCore = (pages + dev.numCores - 1) / dev.numCores;
    const uint64_t bytes = (perCore * config.page_size + kL1Align - 1) / kL1Align * kL1Align;
    if (bytes > dev.l1BufferTop || dev.l1BufferTop - bytes < dev.spec.l1_unreserved_base) {
      hostError(ErrorKind::Misuse,
                "CreateBuffer: L1 buffer of " + std::to_string(config.size) +
                    " B does not fit in the L1 above l1_unreserved_base",
                loc);
      return std::make_shared<Buffer>(impl);
    }
    dev.l1BufferTop -= static_cast<uint32_t>(bytes);
    impl->address = dev.l1BufferTop;
  }
  return std::make_shared<Buffer>(impl);
}

CBHandle CreateCircularBuffer(Program& program, const CoreRangeSet& cores,
                              const CircularBufferConfig& config, std::source_location loc) {
  ProgramImpl& p = *program.impl();
  CbDef def;
  def.cores = expandCores(cores);
  def.config = config;
  def.loc = loc;
  p.cbs.push_back(std::move(def));
  return p.cbs.size();
}

KernelHandle CreateKernel(Program& program, const std::string& file, const CoreRangeSet& cores,
                          const std::variant<DataMovementConfig, ComputeConfig>& config,
                          std::source_location loc) {
  ProgramImpl& p = *program.impl();
  KernelDef k;
  k.path = file;
  k.name = stem(file);
  k.cores = expandCores(cores);
  k.loc = loc;
  if (const auto* dm = std::get_if<DataMovementConfig>(&config)) {
    k.processor =
        dm->processor == DataMovementProcessor::RISCV_1 ? Processor::Riscv1 : Processor::Riscv0;
    k.noc = dm->noc == NOC::RISCV_1_default ? 1 : 0;
    k.compileArgs = dm->compile_args;
  } else {
    const auto& cc = std::get<ComputeConfig>(config);
    k.processor = Processor::Compute;
    k.compileArgs = cc.compile_args;
    k.fp32DestAcc = cc.fp32_dest_acc_en;
    k.fullSync = cc.dst_full_sync_en;
  }
  std::string why;
  k.entry = lookupKernel(file, why);
  if (!k.entry)
    hostError(ErrorKind::Misuse, "CreateKernel: unknown kernel path \"" + file + "\" (" + why + ")",
              loc, &p);
  p.kernels.push_back(std::move(k));
  return static_cast<KernelHandle>(p.kernels.size() - 1);
}

namespace {
void setArgs(Program& program, KernelHandle kernel, const std::vector<CoreCoord>& cores,
             const std::vector<uint32_t>& args, const std::source_location& loc) {
  ProgramImpl& p = *program.impl();
  if (kernel >= p.kernels.size()) {
    hostError(ErrorKind::Misuse,
              "SetRuntimeArgs: kernel handle " + std::to_string(kernel) + " was never created", loc,
              &p);
    return;
  }
  KernelDef& k = p.kernels[kernel];
  for (const CoreCoord& c : cores) {
    if (std::find(k.cores.begin(), k.cores.end(), c) == k.cores.end()) {
      hostError(ErrorKind::Misuse,
                "SetRuntimeArgs: kernel " + k.path + " does not run on core (" +
                    std::to_string(c.x) + "," + std::to_string(c.y) + ")",
                loc, &p);
      continue;
    }
    k.runtimeArgs[{c.x, c.y}] = args;
  }
}
} // namespace

void SetRuntimeArgs(Program& program, KernelHandle kernel, const CoreCoord& core,
                    const std::vector<uint32_t>& args, std::source_location loc) {
  setArgs(program, kernel, {core}, args, loc);
}

void SetRuntimeArgs(Program& program, KernelHandle kernel, const CoreRange& cores,
                    const std::vector<uint32_t>& args, std::source_location loc) {
  setArgs(program, kernel, expandCores(cores), args, loc);
}

uint32_t CreateSemaphore(Program& program, const CoreRangeSet& cores, uint32_t initial_value,
                         std::source_location loc) {
  ProgramImpl& p = *program.impl();
  SemDef s;
  s.cores = expandCores(cores);
  s.initial = initial_value;
  s.loc = loc;
  p.sems.push_back(std::move(s));
  return static_cast<uint32_t>(p.sems.size() - 1);
}

namespace {

/// Calls f(pointer, bytes) for each page of `buffer` in page order; false after an error report.
template <typename F>
bool forEachPage(const Buffer& buffer, const char* fn, const std::source_location& loc, F&& f) {
  const BufferImpl& b = *buffer.impl();
  if (!b.device || b.pageSize == 0) {
    hostError(ErrorKind::Misuse, std::string(fn) + ": the buffer was not created", loc);
    return false;
  }
  DeviceImpl& dev = *b.device;
  const uint64_t pages = b.size / b.pageSize;
  for (uint64_t i = 0; i < pages; ++i) {
    uint8_t* p = nullptr;
    if (b.type == BufferType::DRAM) {
      auto [bank, offset] = interleavedPage(dev.spec.dram_banks, b.address, b.pageSize, i);
      p = dev.dramSpan(bank, offset, b.pageSize);
    } else {
      auto [core, offset] = interleavedPage(dev.numCores, b.address, b.pageSize, i);
      p = dev.l1[core] + offset;
    }
    if (!p) {
      hostError(ErrorKind::Misuse,
                std::string(fn) + ": page " + std::to_string(i) +
                    " of the buffer lies outside its DRAM allocation",
                loc);
      return false;
    }
    f(p, b.pageSize);
  }
  return true;
}

} // namespace

void EnqueueWriteBuffer(CommandQueue& cq, Buffer& buffer, const std::vector<uint32_t>& words,
                        bool blocking, std::source_location loc) {
  (void)cq;
  (void)blocking;
  if (words.size() * 4 != buffer.size()) {
    hostError(ErrorKind::Misuse,
              "EnqueueWriteBuffer: " + std::to_string(words.size() * 4) +
                  " B of data for a buffer of " + std::to_string(buffer.size()) + " B",
              loc);
    if (words.size() * 4 < buffer.size()) return;
  }
  const uint8_t* src = reinterpret_cast<const uint8_t*>(words.data());
  forEachPage(buffer, "EnqueueWriteBuffer", loc, [&](uint8_t* p, uint64_t n) {
    std::memcpy(p, src, n);
    src += n;
  });
}

void EnqueueWriteBuffer(CommandQueue& cq, const std::shared_ptr<Buffer>& buffer,
                        const std::vector<uint32_t>& words, bool blocking,
                        std::source_location loc) {
  if (!buffer) {
    hostError(ErrorKind::Misuse, "EnqueueWriteBuffer: null buffer", loc);
    return;
  }
  EnqueueWriteBuffer(cq, *buffer, words, blocking, loc);
}

void EnqueueReadBuffer(CommandQueue& cq, Buffer& buffer, std::vector<uint32_t>& words,
                       bool blocking, std::source_location loc) {
  (void)cq;
  (void)blocking;
  words.assign((buffer.size() + 3) / 4, 0);
  uint8_t* dst = reinterpret_cast<uint8_t*>(words.data());
  forEachPage(buffer, "EnqueueReadBuffer", loc, [&](uint8_t* p, uint64_t n) {
    std::memcpy(dst, p, n);
    dst += n;
  });
}

void EnqueueReadBuffer(CommandQueue& cq, const std::shared_ptr<Buffer>& buffer,
                       std::vector<uint32_t>& words, bool blocking, std::source_location loc) {
  if (!buffer) {
    hostError(ErrorKind::Misuse, "EnqueueReadBuffer: null buffer", loc);
    return;
  }
  EnqueueReadBuffer(cq, *buffer, words, blocking, loc);
}

void Finish(CommandQueue& cq, std::source_location loc) {
  (void)cq;
  (void)loc;
}

} // namespace tt::tt_metal
