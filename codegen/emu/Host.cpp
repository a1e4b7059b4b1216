// Host side of the emulator: device description, device memory (L1 per core, interleaved DRAM),
// buffers, the kernel registry, and the calls that build a program. EnqueueMeshWorkload is in Run.cpp.
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

void hostError(ErrorKind kind, const std::string& message, const ttlplan::emu::SourceLoc& loc,
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
      !u32("max_cbs", s.max_cbs, 1, 256) ||
      !u32("max_runtime_args", s.max_runtime_args, 0, 65536) ||
      (j.contains("cb_alignment") && !u32("cb_alignment", s.cb_alignment, 1, 4096)))
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
  if (s.semaphore_base < 16ull * s.max_cbs) {
    error = "semaphore_base leaves no room below it for the CB config entries (16 * max_cbs B)";
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
    size_t x0 = std::min(r.start_coord.x, r.end_coord.x),
           x1 = std::max(r.start_coord.x, r.end_coord.x);
    size_t y0 = std::min(r.start_coord.y, r.end_coord.y),
           y1 = std::max(r.start_coord.y, r.end_coord.y);
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

IDevice::IDevice(std::shared_ptr<DeviceImpl> impl)
    : impl_(std::move(impl)), allocator_(std::make_unique<Allocator>(impl_)) {}
CoreCoord IDevice::compute_with_storage_grid_size() const {
  return CoreCoord{impl_->spec.grid_cols, impl_->spec.grid_rows};
}
CoreCoord IDevice::worker_core_from_logical_core(const CoreCoord& logical) const {
  if (logical.x >= impl_->spec.grid_cols || logical.y >= impl_->spec.grid_rows) return logical;
  return CoreCoord{impl_->spec.noc_x[logical.x], impl_->spec.noc_y[logical.y]};
}
uint32_t IDevice::l1_size_per_core() const {
  return impl_->spec.l1_bytes;
}

DeviceAddr Allocator::get_base_allocator_addr(const HalMemType& mem_type) const {
  return mem_type == HalMemType::L1 ? device_->spec.l1_unreserved_base : 0;
}
uint32_t Allocator::get_alignment(BufferType buffer_type) const {
  return buffer_type == BufferType::DRAM ? device_->spec.cb_alignment : 16;
}

namespace distributed {

MeshDevice::MeshDevice(std::shared_ptr<DeviceImpl> impl)
    : device_(std::make_unique<IDevice>(std::move(impl))) {}
MeshDevice::~MeshDevice() = default;
MeshCommandQueue& MeshDevice::mesh_command_queue(std::optional<uint8_t>) {
  return queue_;
}
IDevice* MeshDevice::get_device(const MeshCoordinate&) const {
  return device_.get();
}
CoreCoord MeshDevice::compute_with_storage_grid_size() const {
  return device_->compute_with_storage_grid_size();
}
CoreCoord MeshDevice::worker_core_from_logical_core(const CoreCoord& logical_core) const {
  return device_->worker_core_from_logical_core(logical_core);
}
uint32_t MeshDevice::l1_size_per_core() const {
  return device_->l1_size_per_core();
}

DeviceAddr MeshBuffer::address() const {
  return impl_->address;
}
DeviceAddr MeshBuffer::size() const {
  return impl_->size;
}
DeviceAddr MeshBuffer::page_size() const {
  return impl_->pageSize;
}
BufferType MeshBuffer::buffer_type() const {
  return impl_->type;
}

void MeshWorkload::add_program(const MeshCoordinateRange& device_range, Program&& program) {
  (void)device_range;
  programs_.push_back(std::move(program));
}

} // namespace distributed

TensorAccessorArgs::TensorAccessorArgs(const distributed::MeshBuffer& buffer)
    : flags_(buffer.buffer_type() == BufferType::DRAM ? 2u : 0u),
      page_size_(static_cast<uint32_t>(buffer.page_size())) {}
void TensorAccessorArgs::append_to(std::vector<uint32_t>& compile_time_args) const {
  compile_time_args.push_back(flags_);
  compile_time_args.push_back(page_size_);
}
std::vector<uint32_t> TensorAccessorArgs::get_compile_time_args() const {
  return {flags_, page_size_};
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

namespace distributed {
std::shared_ptr<MeshDevice> MeshDevice::create_unit_mesh(int device_id, std::size_t l1_small_size,
                                                         std::size_t trace_region_size,
                                                         std::size_t num_command_queues,
                                                         ttlplan::emu::SourceLoc loc) {
  (void)l1_small_size, (void)trace_region_size, (void)num_command_queues;
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit(exitIfErrorsAtExit);
    endWithParent();
  });
  if (device_id != 0)
    hostError(ErrorKind::Misuse,
              "MeshDevice::create_unit_mesh(" + std::to_string(device_id) +
                  "): the emulator has only device 0",
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
  return std::make_shared<MeshDevice>(std::make_shared<DeviceImpl>(std::move(spec)));
}

bool MeshDevice::close() {
  closed_ = true;
  exitIfErrors();
  return true;
}
} // namespace distributed

Program CreateProgram() {
  return Program();
}

namespace distributed {
std::shared_ptr<MeshBuffer> MeshBuffer::create(const ReplicatedBufferConfig& mesh_buffer_config,
                                               const DeviceLocalBufferConfig& local,
                                               MeshDevice* mesh_device,
                                               std::optional<DeviceAddr> address,
                                               ttlplan::emu::SourceLoc loc) {
  struct Config {
    uint64_t size, page_size;
  } config{mesh_buffer_config.size, local.page_size};
  auto impl = std::make_shared<BufferImpl>();
  impl->type = local.buffer_type;
  impl->size = config.size;
  impl->pageSize = config.page_size;
  if (!mesh_device) {
    hostError(ErrorKind::Misuse, "MeshBuffer::create: the mesh device is null", loc);
    return std::make_shared<MeshBuffer>(impl);
  }
  if (address)
    hostError(ErrorKind::Misuse,
              "MeshBuffer::create: an explicit address is not supported by the emulator", loc);
  DeviceImpl& dev = *mesh_device->impl();
  impl->device = mesh_device->impl();
  if (config.page_size == 0 || config.size == 0 || config.size % config.page_size) {
    hostError(ErrorKind::Misuse,
              "MeshBuffer::create: size " + std::to_string(config.size) +
                  " is not a positive multiple of page_size " + std::to_string(config.page_size),
              loc);
    return std::make_shared<MeshBuffer>(impl);
  }
  const uint64_t pages = config.size / config.page_size;
  if (local.buffer_type == BufferType::DRAM) {
    const uint64_t perBank = (pages + dev.spec.dram_banks - 1) / dev.spec.dram_banks;
    const uint64_t bankBytes = perBank * config.page_size;
    if (dev.nextDram + bankBytes > dev.spec.dram_bank_bytes) {
      hostError(ErrorKind::Misuse,
                "MeshBuffer::create: " + std::to_string(config.size) + " B do not fit in DRAM (" +
                    std::to_string(dev.spec.dram_banks) + " banks of " +
                    std::to_string(dev.spec.dram_bank_bytes) + " B, " +
                    std::to_string(dev.nextDram) + " B of each in use)",
                loc);
      return std::make_shared<MeshBuffer>(impl);
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
                "MeshBuffer::create: L1 buffer of " + std::to_string(config.size) +
                    " B does not fit in the L1 above l1_unreserved_base",
                loc);
      return std::make_shared<MeshBuffer>(impl);
    }
    dev.l1BufferTop -= static_cast<uint32_t>(bytes);
    impl->address = dev.l1BufferTop;
  }
  return std::make_shared<MeshBuffer>(impl);
}
} // namespace distributed

namespace {
std::vector<CoreCoord> coresOf(const std::variant<CoreCoord, CoreRange, CoreRangeSet>& spec) {
  if (const auto* c = std::get_if<CoreCoord>(&spec)) return {*c};
  if (const auto* r = std::get_if<CoreRange>(&spec)) return expandCores(CoreRangeSet(*r));
  return expandCores(std::get<CoreRangeSet>(spec));
}
std::vector<CoreCoord> coresOf(const std::variant<CoreRange, CoreRangeSet>& spec) {
  if (const auto* r = std::get_if<CoreRange>(&spec)) return expandCores(CoreRangeSet(*r));
  return expandCores(std::get<CoreRangeSet>(spec));
}
} // namespace

CBHandle CreateCircularBuffer(Program& program,
                              const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                              const CircularBufferConfig& config, ttlplan::emu::SourceLoc loc) {
  ProgramImpl& p = *program.impl();
  CbDef def;
  def.cores = coresOf(core_spec);
  def.config = config;
  def.loc = loc;
  p.cbs.push_back(std::move(def));
  return p.cbs.size();
}

KernelHandle CreateKernel(Program& program, const std::string& file,
                          const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                          const std::variant<DataMovementConfig, ComputeConfig>& config,
                          ttlplan::emu::SourceLoc loc) {
  ProgramImpl& p = *program.impl();
  KernelDef k;
  k.path = file;
  k.name = stem(file);
  k.cores = coresOf(core_spec);
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
    k.mathFidelity = cc.math_fidelity;
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
void setArgs(const Program& program, KernelHandle kernel, const std::vector<CoreCoord>& cores,
             const std::vector<uint32_t>& args, const ttlplan::emu::SourceLoc& loc) {
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

void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                    std::initializer_list<uint32_t> runtime_args, ttlplan::emu::SourceLoc loc) {
  setArgs(program, kernel, coresOf(core_spec), std::vector<uint32_t>(runtime_args), loc);
}

void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                    const std::vector<uint32_t>& runtime_args, ttlplan::emu::SourceLoc loc) {
  setArgs(program, kernel, coresOf(core_spec), runtime_args, loc);
}

uint32_t CreateSemaphore(Program& program, const std::variant<CoreRange, CoreRangeSet>& core_spec,
                         uint32_t initial_value, ttlplan::emu::SourceLoc loc) {
  ProgramImpl& p = *program.impl();
  SemDef s;
  s.cores = coresOf(core_spec);
  s.initial = initial_value;
  s.loc = loc;
  p.sems.push_back(std::move(s));
  return static_cast<uint32_t>(p.sems.size() - 1);
}

} // namespace tt::tt_metal

namespace ttlplan::emu {

namespace {

/// Calls f(pointer, bytes) for each page of `buffer` in page order; false after an error report.
template <typename F>
bool forEachPage(const BufferImpl& b, const char* fn, const SourceLoc& loc, F&& f) {
  if (!b.device || b.pageSize == 0) {
    hostError(ErrorKind::Misuse, std::string(fn) + ": the buffer was not created", loc);
    return false;
  }
  DeviceImpl& dev = *b.device;
  const uint64_t pages = b.size / b.pageSize;
  for (uint64_t i = 0; i < pages; ++i) {
    uint8_t* p = nullptr;
    if (b.type == tt::tt_metal::BufferType::DRAM) {
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

bool writeMeshBuffer(tt::tt_metal::distributed::MeshBuffer& buffer, const void* data,
                     std::size_t bytes, const SourceLoc& loc) {
  const BufferImpl& b = *buffer.impl();
  if (bytes < b.size) {
    hostError(ErrorKind::Misuse,
              "EnqueueWriteMeshBuffer: " + std::to_string(bytes) + " B of data for a buffer of " +
                  std::to_string(b.size) + " B",
              loc);
    return false;
  }
  const uint8_t* src = static_cast<const uint8_t*>(data);
  return forEachPage(b, "EnqueueWriteMeshBuffer", loc, [&](uint8_t* p, uint64_t n) {
    std::memcpy(p, src, n);
    src += n;
  });
}

bool readMeshBuffer(tt::tt_metal::distributed::MeshBuffer& buffer, void* data, std::size_t bytes,
                    const SourceLoc& loc) {
  const BufferImpl& b = *buffer.impl();
  std::memset(data, 0, bytes);
  uint8_t* dst = static_cast<uint8_t*>(data);
  uint64_t left = bytes;
  return forEachPage(b, "EnqueueReadMeshBuffer", loc, [&](uint8_t* p, uint64_t n) {
    const uint64_t k = std::min(n, left);
    std::memcpy(dst, p, k);
    dst += k;
    left -= k;
  });
}

} // namespace ttlplan::emu

namespace tt::tt_metal {

namespace detail {
bool ReadFromDeviceL1(IDevice* device, const CoreCoord& logical_core, uint32_t address,
                      uint32_t size, std::vector<uint32_t>& host_buffer, CoreType core_type) {
  (void)core_type;
  host_buffer.assign((size + 3) / 4, 0);
  if (!device) return false;
  ttlplan::emu::DeviceImpl& dev = *device->impl();
  if (logical_core.x >= dev.spec.grid_cols || logical_core.y >= dev.spec.grid_rows ||
      uint64_t{address} + size > dev.spec.l1_bytes)
    return false;
  std::memcpy(host_buffer.data(),
              dev.l1[logical_core.y * dev.spec.grid_cols + logical_core.x] + address, size);
  return true;
}
} // namespace detail

} // namespace tt::tt_metal
