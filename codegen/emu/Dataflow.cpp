// Kernel-side CB calls (shared by data-movement and compute kernels) and the data-movement API:
// NoC transfers, multicast, semaphores. Transfers take effect at the call; the barriers only
// retire the bookkeeping that lets cb_push_back / cb_pop_front catch a missing barrier.
//
// NoC addresses (uint64_t) are the emulator's own encoding; generated code only passes them on
// (and may add a byte offset, which stays in the low 32 bits):
//   bits 0..31 L1 address or DRAM bank offset;
//   bits 60..63 kind: 0 a core's L1 (x in bits 32..43, y in 44..55, NoC coordinates),
//                     1 a DRAM bank (bank in bits 32..43),
//                     2 a multicast rectangle (x_start 32..38, y_start 39..45, x_end 46..52,
//                       y_end 53..59).
#include "Runtime.h"
#include "api/dataflow/dataflow_api.h"

#include <algorithm>
#include <cstring>

namespace ttlplan::emu {
namespace {

constexpr uint64_t kKindCore = 0, kKindDram = 1, kKindMcast = 2;

uint64_t encodeCore(uint32_t x, uint32_t y, uint32_t addr) {
  return (uint64_t{y & 0xfffu} << 44) | (uint64_t{x & 0xfffu} << 32) | addr;
}
uint64_t encodeDram(uint32_t bank, uint32_t offset) {
  return (kKindDram << 60) | (uint64_t{bank & 0xfffu} << 32) | offset;
}

struct Decoded {
  uint64_t kind;
  uint32_t x, y, x2, y2; // x = bank for DRAM
  uint32_t addr;
};

Decoded decode(uint64_t noc) {
  Decoded d{noc >> 60, 0, 0, 0, 0, static_cast<uint32_t>(noc)};
  if (d.kind == kKindMcast) {
    d.x = (noc >> 32) & 0x7f;
    d.y = (noc >> 39) & 0x7f;
    d.x2 = (noc >> 46) & 0x7f;
    d.y2 = (noc >> 53) & 0x7f;
  } else {
    d.x = (noc >> 32) & 0xfff;
    d.y = (noc >> 44) & 0xfff;
  }
  return d;
}

/// Memory a transfer touches: bytes, and the core whose L1 they are (-1 for DRAM).
struct Span {
  uint8_t* p = nullptr;
  int core = -1;
  uint32_t addr = 0;
};

Span localSpan(ThreadCtx& t, uint32_t addr) {
  return Span{t.run->dev.l1[t.core] + addr, t.core, addr};
}

/// Resolves a unicast NoC address for `size` bytes; reports and returns false when it names no
/// memory.
bool resolve(ThreadCtx& t, uint64_t noc, uint64_t size, bool write, const char* fn,
             const ttlplan::emu::SourceLoc& loc, Span& out) {
  DeviceImpl& dev = t.run->dev;
  const Decoded d = decode(noc);
  if (d.kind == kKindCore) {
    const int core = dev.coreAtNoc(d.x, d.y);
    if (core < 0) {
      threadError(t, ErrorKind::Misuse,
                  std::string(fn) + ": NoC address " + hex(noc) +
                      " names (x=" + std::to_string(d.x) + ", y=" + std::to_string(d.y) +
                      "), which is no core of the grid",
                  loc);
      return false;
    }
    const uint64_t end = uint64_t{d.addr} + size;
    if (end > dev.spec.l1_bytes) {
      threadError(t, write ? ErrorKind::WriteOutsideL1 : ErrorKind::Misuse,
                  std::string(fn) + ": " + (write ? "writes" : "reads") + " L1 [" +
                      std::to_string(d.addr) + ", " + std::to_string(end) + ") of core (" +
                      std::to_string(core % dev.spec.grid_cols) + "," +
                      std::to_string(core / dev.spec.grid_cols) + "), outside [0, " +
                      std::to_string(dev.spec.l1_bytes) + ")",
                  loc);
      return false;
    }
    out = Span{dev.l1[core] + d.addr, core, d.addr};
    return true;
  }
  if (d.kind == kKindDram) {
    uint8_t* p = dev.dramSpan(d.x, d.addr, size);
    if (!p) {
      threadError(t, ErrorKind::Misuse,
                  std::string(fn) + ": DRAM bank " + std::to_string(d.x) + " bytes [" +
                      std::to_string(d.addr) + ", " + std::to_string(d.addr + size) +
                      ") lie outside every buffer",
                  loc);
      return false;
    }
    out = Span{p, -1, d.addr};
    return true;
  }
  threadError(t, ErrorKind::Misuse,
              std::string(fn) + ": " + hex(noc) +
                  (d.kind == kKindMcast ? " is a multicast address; a unicast one is expected"
                                        : " is not a NoC address"),
              loc);
  return false;
}

/// Copies size bytes. Semaphore words are only touched under the run mutex (a thread may wait on
/// them), and a write there wakes the destination core's waiters.
void transfer(Run& r, const Span& dst, const Span& src, uint64_t size, bool forceLock = false) {
  const bool lock = forceLock || (dst.core >= 0 && r.dev.touchesSemaphores(dst.addr, size)) ||
                    (src.core >= 0 && r.dev.touchesSemaphores(src.addr, size));
  if (!lock) {
    std::memmove(dst.p, src.p, size);
    return;
  }
  std::lock_guard guard(r.m);
  std::memmove(dst.p, src.p, size);
  if (dst.core >= 0) wakeCore(r, dst.core);
}

void addPending(std::vector<std::pair<uint32_t, uint32_t>>& list, uint32_t lo, uint32_t hi) {
  if (!list.empty() && list.back().second == lo) {
    list.back().second = hi; // consecutive tiles of a block merge into one range
    return;
  }
  list.emplace_back(lo, hi);
}

void doRead(ThreadCtx& t, uint64_t src_noc, uint32_t dst_l1, uint64_t size, const char* fn,
            const ttlplan::emu::SourceLoc& loc) {
  if (!checkL1Range(t, dst_l1, size, true, fn, loc)) return;
  Span src;
  if (!resolve(t, src_noc, size, false, fn, loc, src)) return;
  transfer(*t.run, localSpan(t, dst_l1), src, size);
  addPending(t.pendingReads, dst_l1, static_cast<uint32_t>(dst_l1 + size));
}

void doWrite(ThreadCtx& t, uint32_t src_l1, uint64_t dst_noc, uint64_t size, const char* fn,
             const ttlplan::emu::SourceLoc& loc) {
  if (!checkL1Range(t, src_l1, size, false, fn, loc)) return;
  Span dst;
  if (!resolve(t, dst_noc, size, true, fn, loc, dst)) return;
  checkCbOverlapRead(t, -1, src_l1, static_cast<uint32_t>(src_l1 + size), fn, loc);
  transfer(*t.run, dst, localSpan(t, src_l1), size);
  addPending(t.pendingWrites, src_l1, static_cast<uint32_t>(src_l1 + size));
}

/// The cores a multicast reaches (core indices), after checking the address, corner order and
/// num_dests; false after a report.
bool multicastDests(ThreadCtx& t, uint64_t mcast, uint32_t num_dests, bool loopback, const char* fn,
                    const ttlplan::emu::SourceLoc& loc, std::vector<int>& dests, uint32_t& addr) {
  DeviceImpl& dev = t.run->dev;
  const Decoded d = decode(mcast);
  if (d.kind != kKindMcast) {
    threadError(t, ErrorKind::Misuse,
                std::string(fn) + ": " + hex(mcast) +
                    " is not a multicast address (get_noc_multicast_addr)",
                loc);
    return false;
  }
  addr = d.addr;
  const int noc = t.kernel->noc;
  const bool ordered = noc == 0 ? (d.x <= d.x2 && d.y <= d.y2) : (d.x >= d.x2 && d.y >= d.y2);
  auto corner = [](uint32_t x, uint32_t y) {
    return "(" + std::to_string(x) + "," + std::to_string(y) + ")";
  };
  if (!ordered)
    threadError(t, ErrorKind::Misuse,
                std::string(fn) + ": on NOC" + std::to_string(noc) + " the start " +
                    corner(d.x, d.y) + " must be the " + (noc == 0 ? "smaller" : "larger") +
                    " corner, but the end is " + corner(d.x2, d.y2),
                loc);
  const uint32_t x0 = std::min(d.x, d.x2), x1 = std::max(d.x, d.x2);
  const uint32_t y0 = std::min(d.y, d.y2), y1 = std::max(d.y, d.y2);
  for (uint32_t y = y0; y <= y1; ++y)
    for (uint32_t x = x0; x <= x1; ++x) {
      const int core = dev.coreAtNoc(x, y);
      if (core < 0) {
        threadError(t, ErrorKind::Misuse,
                    std::string(fn) + ": the rectangle " + corner(d.x, d.y) + ".." +
                        corner(d.x2, d.y2) + " covers NoC " + corner(x, y) +
                        ", which is no core of the grid",
                    loc);
        continue;
      }
      if (core == t.core && !loopback) continue;
      dests.push_back(core);
    }
  if (dests.size() != num_dests) {
    threadError(t, ErrorKind::Misuse,
                std::string(fn) + ": num_dests is " + std::to_string(num_dests) +
                    ", but the rectangle " + corner(d.x, d.y) + ".." + corner(d.x2, d.y2) +
                    " reaches " + std::to_string(dests.size()) + " cores (the sender " +
                    (loopback ? "included" : "excluded") + ")",
                loc);
  }
  return true;
}

void doMulticast(ThreadCtx& t, uint32_t src_l1, uint64_t mcast, uint32_t size, uint32_t num_dests,
                 bool loopback, const char* fn, const ttlplan::emu::SourceLoc& loc) {
  if (!checkL1Range(t, src_l1, size, false, fn, loc)) return;
  std::vector<int> dests;
  uint32_t addr = 0;
  if (!multicastDests(t, mcast, num_dests, loopback, fn, loc, dests, addr)) return;
  if (!checkL1Range(t, addr, size, true, fn, loc)) return;
  checkCbOverlapRead(t, -1, src_l1, src_l1 + size, fn, loc);
  DeviceImpl& dev = t.run->dev;
  for (int core : dests)
    transfer(*t.run, Span{dev.l1[core] + addr, core, addr}, localSpan(t, src_l1), size);
  addPending(t.pendingWrites, src_l1, src_l1 + size);
}

/// The L1 address a semaphore pointer carries; false after a report when it is no semaphore.
bool semaphoreAddr(ThreadCtx& t, uint32_t addr, const char* fn,
                   const ttlplan::emu::SourceLoc& loc) {
  const DeviceImpl& dev = t.run->dev;
  if (addr >= dev.semLo() && addr + 4 <= dev.semHi() && (addr - dev.semLo()) % 4 == 0) return true;
  threadError(t, ErrorKind::Misuse,
              std::string(fn) + ": L1 address " + std::to_string(addr) +
                  " is not a semaphore (get_semaphore gives [" + std::to_string(dev.semLo()) +
                  ", " + std::to_string(dev.semHi()) + "))",
              loc);
  return false;
}

uint32_t pointerAddr(volatile uint32_t* p) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p));
}

void semaphoreWait(volatile uint32_t* sem, uint32_t value, WaitKind kind, const char* fn,
                   const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  const uint32_t addr = pointerAddr(sem);
  if (!semaphoreAddr(t, addr, fn, loc)) return;
  std::unique_lock lock(t.run->m);
  t.wait = kind;
  t.waitAddr = addr;
  t.waitWant = value;
  t.waitFn = fn;
  t.waitLoc = loc;
  blockUntilSatisfied(t, lock);
}

/// Byte ranges of `count` pages of c starting at ring page `start` (wrapping), up to two.
int pageRanges(const CbState& c, uint32_t start, uint32_t count,
               std::pair<uint32_t, uint32_t> out[2]) {
  count = std::min(count, c.numPages);
  if (count == 0) return 0;
  const uint32_t end = start + count;
  if (end <= c.numPages) {
    out[0] = {c.addr + start * c.pageSize, c.addr + end * c.pageSize};
    return 1;
  }
  out[0] = {c.addr + start * c.pageSize, c.addr + c.size};
  out[1] = {c.addr, c.addr + (end - c.numPages) * c.pageSize};
  return 2;
}

/// The first pending range that intersects the pages, as text; empty if none.
std::string pendingHit(const std::vector<std::pair<uint32_t, uint32_t>>& pending,
                       const std::pair<uint32_t, uint32_t>* ranges, int n) {
  for (const auto& [lo, hi] : pending)
    for (int i = 0; i < n; ++i) {
      const uint32_t a = std::max(lo, ranges[i].first), b = std::min(hi, ranges[i].second);
      if (a < b) return "[" + std::to_string(a) + ", " + std::to_string(b) + ")";
    }
  return "";
}

std::string cbCall(const char* fn, uint32_t cb, uint32_t n) {
  return std::string(fn) + "(cb " + std::to_string(cb) + ", " + std::to_string(n) +
         (n == 1 ? " tile)" : " tiles)");
}

} // namespace

uint64_t interleavedNocAddr(bool dram, uint32_t id, uint32_t bank_base_address, uint32_t page_size,
                            uint32_t offset, const ttlplan::emu::SourceLoc& loc) {
  ThreadCtx& t = current(loc);
  DeviceImpl& dev = t.run->dev;
  if (dram) {
    auto [bank, off] = interleavedPage(dev.spec.dram_banks, bank_base_address, page_size, id);
    return encodeDram(bank, static_cast<uint32_t>(off + offset));
  }
  auto [core, off] = interleavedPage(dev.numCores, bank_base_address, page_size, id);
  return encodeCore(dev.nocX(static_cast<int>(core)), dev.nocY(static_cast<int>(core)),
                    static_cast<uint32_t>(off + offset));
}

} // namespace ttlplan::emu

using namespace ttlplan::emu;

TensorAccessor::TensorAccessor(int cta_offset, std::size_t bank_base_address, uint32_t page_size,
                               const ttlplan::emu::SourceLoc& loc)
    : bank_base_(static_cast<uint32_t>(bank_base_address)), loc_(loc) {
  ThreadCtx& t = current(loc);
  // [flags, aligned page size], as the host's TensorAccessorArgs(buffer).append_to wrote them.
  const uint32_t flags = kernelCompileTimeArg(cta_offset, loc);
  page_size_ = kernelCompileTimeArg(cta_offset + 1, loc);
  constexpr uint32_t kSharded = 1, kIsDram = 2;
  dram_ = (flags & kIsDram) != 0;
  if (flags & kSharded)
    threadError(t, ErrorKind::Misuse,
                "TensorAccessor: compile-time arg " + std::to_string(cta_offset) +
                    " says a sharded tensor; the emulator has interleaved tensors only",
                loc);
  if (page_size != 0 && page_size != page_size_)
    threadError(t, ErrorKind::Misuse,
                "TensorAccessor: page size " + std::to_string(page_size) +
                    " differs from the aligned page size " + std::to_string(page_size_) +
                    " in compile-time arg " + std::to_string(cta_offset + 1),
                loc);
  if (bank_base_address > UINT32_MAX)
    threadError(t, ErrorKind::Misuse,
                "TensorAccessor: bank base address " + std::to_string(bank_base_address) +
                    " does not fit 32 bits",
                loc);
}

uint64_t TensorAccessor::get_noc_addr(uint32_t id, uint32_t offset, uint8_t noc) const {
  (void)noc;
  return interleavedNocAddr(dram_, id, bank_base_, page_size_, offset, loc_);
}

void noc_async_read_page(uint32_t id, const TensorAccessor& addrgen, uint32_t dst_local_l1_addr,
                         uint32_t offset, uint8_t noc, ttlplan::emu::SourceLoc loc) {
  (void)noc;
  ThreadCtx& t = current(loc);
  doRead(t,
         interleavedNocAddr(addrgen.is_dram(), id, addrgen.bank_base_address(),
                            addrgen.get_aligned_page_size(), offset, loc),
         dst_local_l1_addr, addrgen.get_aligned_page_size(), "noc_async_read_page", loc);
}

void noc_async_write_page(uint32_t id, const TensorAccessor& addrgen, uint32_t src_local_l1_addr,
                          uint32_t size, uint32_t offset, uint8_t noc,
                          ttlplan::emu::SourceLoc loc) {
  (void)noc;
  ThreadCtx& t = current(loc);
  doWrite(t, src_local_l1_addr,
          interleavedNocAddr(addrgen.is_dram(), id, addrgen.bank_base_address(),
                             addrgen.get_aligned_page_size(), offset, loc),
          size ? size : addrgen.get_aligned_page_size(), "noc_async_write_page", loc);
}

// ---- CBs (both kernel kinds)

namespace {

/// Records what the thread waits for (the deadlock report reads it) and blocks until it holds.
void blockOnCb(ThreadCtx& t, std::unique_lock<std::mutex>& lock, WaitKind kind, uint32_t cb,
               uint32_t tiles, const char* fn, ttlplan::emu::SourceLoc loc) {
  t.wait = kind;
  t.waitCb = cb;
  t.waitWant = tiles;
  t.waitFn = fn;
  t.waitLoc = loc;
  blockUntilSatisfied(t, lock);
}

} // namespace

void cb_reserve_back(uint32_t cb, uint32_t num_tiles, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  CbState* c = cbOf(t, cb, "cb_reserve_back", loc);
  if (!c) return;
  std::unique_lock lock(t.run->m);
  blockOnCb(t, lock, WaitKind::Reserve, cb, num_tiles, "cb_reserve_back", loc);
  c->reserved = std::max(c->reserved, num_tiles);
}

void cb_push_back(uint32_t cb, uint32_t num_tiles, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  CbState* c = cbOf(t, cb, "cb_push_back", loc);
  if (!c) return;
  std::lock_guard lock(t.run->m);
  if (num_tiles > c->reserved) {
    std::string why = "only " + cbPagesText(c->reserved) + " reserved (cb_reserve_back)";
    if (num_tiles > c->numPages) why += "; the CB holds " + cbPagesText(c->numPages);
    threadError(t, ErrorKind::PushBeyondCapacity,
                cbCall("cb_push_back", cb, num_tiles) + ": " + why, loc);
  }
  // Never more than the free pages, so the ring stays consistent after the error.
  const uint32_t pushed = std::min(num_tiles, c->freePages());
  std::pair<uint32_t, uint32_t> ranges[2];
  const int n = pageRanges(*c, c->wrPage(), pushed, ranges);
  if (std::string hit = pendingHit(t.pendingReads, ranges, n); !hit.empty())
    threadError(t, ErrorKind::UnissuedBarrier,
                cbCall("cb_push_back", cb, num_tiles) + ": L1 " + hit +
                    " was filled by a NoC read that was not waited for (noc_async_read_barrier)",
                loc);
  c->received += pushed;
  c->reserved -= std::min(c->reserved, num_tiles);
  c->packNext = 0; // the packer's in-order tile pointer restarts at the new back
  wakeCore(*t.run, t.core);
}

void cb_wait_front(uint32_t cb, uint32_t num_tiles, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  CbState* c = cbOf(t, cb, "cb_wait_front", loc);
  if (!c) return;
  std::unique_lock lock(t.run->m);
  blockOnCb(t, lock, WaitKind::Front, cb, num_tiles, "cb_wait_front", loc);
  c->waited = std::max(c->waited, num_tiles);
}

void cb_pop_front(uint32_t cb, uint32_t num_tiles, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  CbState* c = cbOf(t, cb, "cb_pop_front", loc);
  if (!c) return;
  std::lock_guard lock(t.run->m);
  if (num_tiles > c->waited)
    threadError(t, ErrorKind::PopWithoutWait,
                cbCall("cb_pop_front", cb, num_tiles) + ": only " + cbPagesText(c->waited) +
                    " waited for (cb_wait_front)",
                loc);
  const uint32_t popped = std::min(num_tiles, c->filled());
  std::pair<uint32_t, uint32_t> ranges[2];
  const int n = pageRanges(*c, c->rdPage(), popped, ranges);
  if (std::string hit = pendingHit(t.pendingWrites, ranges, n); !hit.empty())
    threadError(t, ErrorKind::UnissuedBarrier,
                cbCall("cb_pop_front", cb, num_tiles) + ": L1 " + hit +
                    " is the source of a NoC write that was not waited for "
                    "(noc_async_write_barrier)",
                loc);
  c->acked += popped;
  c->waited -= std::min(c->waited, num_tiles);
  wakeCore(*t.run, t.core);
}

uint32_t get_write_ptr(uint32_t cb, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  CbState* c = cbOf(t, cb, "get_write_ptr", loc);
  if (!c) return 0;
  std::lock_guard lock(t.run->m);
  return c->addr + c->wrPage() * c->pageSize;
}

uint32_t get_read_ptr(uint32_t cb, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  CbState* c = cbOf(t, cb, "get_read_ptr", loc);
  if (!c) return 0;
  std::lock_guard lock(t.run->m);
  return c->addr + c->rdPage() * c->pageSize;
}

// ---- NoC

uint64_t get_noc_addr(uint32_t noc_x, uint32_t noc_y, uint32_t addr, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  if (noc_x >= 4096 || noc_y >= 4096)
    threadError(t, ErrorKind::Misuse,
                "get_noc_addr: NoC coordinates (" + std::to_string(noc_x) + "," +
                    std::to_string(noc_y) + ") are out of range",
                loc);
  return encodeCore(noc_x, noc_y, addr);
}

uint64_t get_noc_addr(uint32_t addr, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  return encodeCore(t.run->dev.nocX(t.core), t.run->dev.nocY(t.core), addr);
}

void noc_async_read(uint64_t src_noc_addr, uint32_t dst_l1, uint32_t size,
                    ttlplan::emu::SourceLoc loc) {
  doRead(current(loc), src_noc_addr, dst_l1, size, "noc_async_read", loc);
}

void noc_async_write(uint32_t src_l1, uint64_t dst_noc_addr, uint32_t size,
                     ttlplan::emu::SourceLoc loc) {
  doWrite(current(loc), src_l1, dst_noc_addr, size, "noc_async_write", loc);
}

void noc_inline_dw_write(uint64_t addr, uint32_t val, uint8_t be, uint8_t noc, uint8_t vc,
                         uint32_t customized_src_addr, ttlplan::emu::SourceLoc loc) {
  (void)noc, (void)vc, (void)customized_src_addr;
  ThreadCtx& t = current(loc);
  if (decode(addr).kind == kKindDram) {
    threadError(t, ErrorKind::Misuse,
                "noc_inline_dw_write: " + hex(addr) +
                    " is a DRAM address; inline writes reach L1 "
                    "only",
                loc);
    return;
  }
  Span dst;
  if (!resolve(t, addr, 4, true, "noc_inline_dw_write", loc, dst)) return;
  uint8_t bytes[4];
  std::memcpy(bytes, &val, 4);
  for (int i = 0; i < 4; ++i)
    if (be & (1u << i)) {
      Span src{bytes + i, -1, 0};
      Span one{dst.p + i, dst.core, dst.addr + static_cast<uint32_t>(i)};
      transfer(*t.run, one, src, 1);
    }
}

uint32_t ttlplan_l1_load(volatile uint32_t* p, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  const uint32_t addr = pointerAddr(p);
  if (!checkL1Range(t, addr, 4, false, "ttlplan_l1_load", loc)) return 0;
  std::unique_lock lock(t.run->m); // the word may be a semaphore's, which NoC writes change
  uint32_t value = 0;
  std::memcpy(&value, localSpan(t, addr).p, 4);
  return value;
}

void noc_async_read_barrier(ttlplan::emu::SourceLoc loc) {
  current(loc).pendingReads.clear();
}

void noc_async_write_barrier(ttlplan::emu::SourceLoc loc) {
  current(loc).pendingWrites.clear();
}

uint64_t get_noc_multicast_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end,
                                uint32_t addr, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  if (std::max({x_start, y_start, x_end, y_end}) > 0x7f)
    threadError(t, ErrorKind::Misuse,
                "get_noc_multicast_addr: the emulator encodes NoC coordinates up to 127", loc);
  return (kKindMcast << 60) | (uint64_t{y_end & 0x7fu} << 53) | (uint64_t{x_end & 0x7fu} << 46) |
         (uint64_t{y_start & 0x7fu} << 39) | (uint64_t{x_start & 0x7fu} << 32) | addr;
}

void noc_async_write_multicast(uint32_t src_l1, uint64_t dst_mcast, uint32_t size,
                               uint32_t num_dests, ttlplan::emu::SourceLoc loc) {
  doMulticast(current(loc), src_l1, dst_mcast, size, num_dests, false, "noc_async_write_multicast",
              loc);
}

void noc_async_write_multicast_loopback_src(uint32_t src_l1, uint64_t dst_mcast, uint32_t size,
                                            uint32_t num_dests, ttlplan::emu::SourceLoc loc) {
  doMulticast(current(loc), src_l1, dst_mcast, size, num_dests, true,
              "noc_async_write_multicast_loopback_src", loc);
}

// ---- Semaphores

uint32_t get_semaphore(uint32_t semaphore_id, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  if (semaphore_id >= t.run->semaphoresCreated)
    threadError(t, ErrorKind::Misuse,
                "get_semaphore(" + std::to_string(semaphore_id) + "): the program created " +
                    std::to_string(t.run->semaphoresCreated) + " semaphores",
                loc);
  return t.run->dev.spec.semaphore_base + 16 * semaphore_id;
}

void noc_semaphore_set(volatile uint32_t* sem, uint32_t value, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  const uint32_t addr = pointerAddr(sem);
  if (!semaphoreAddr(t, addr, "noc_semaphore_set", loc)) return;
  transfer(*t.run, localSpan(t, addr), Span{reinterpret_cast<uint8_t*>(&value), -1, 0}, 4, true);
}

void noc_semaphore_wait(volatile uint32_t* sem, uint32_t value, ttlplan::emu::SourceLoc loc) {
  semaphoreWait(sem, value, WaitKind::SemEq, "noc_semaphore_wait", loc);
}

void noc_semaphore_wait_min(volatile uint32_t* sem, uint32_t value, ttlplan::emu::SourceLoc loc) {
  semaphoreWait(sem, value, WaitKind::SemMin, "noc_semaphore_wait_min", loc);
}

void noc_semaphore_inc(uint64_t noc_addr, uint32_t incr, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  Span dst;
  if (!resolve(t, noc_addr, 4, true, "noc_semaphore_inc", loc, dst)) return;
  if (dst.core < 0 || !semaphoreAddr(t, dst.addr, "noc_semaphore_inc", loc)) return;
  std::lock_guard lock(t.run->m);
  uint32_t v;
  std::memcpy(&v, dst.p, 4);
  v += incr;
  std::memcpy(dst.p, &v, 4);
  wakeCore(*t.run, dst.core);
}

void noc_semaphore_set_remote(uint32_t src_l1, uint64_t dst_noc_addr, ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  if (!checkL1Range(t, src_l1, 4, false, "noc_semaphore_set_remote", loc)) return;
  Span dst;
  if (!resolve(t, dst_noc_addr, 4, true, "noc_semaphore_set_remote", loc, dst)) return;
  if (dst.core < 0 || !semaphoreAddr(t, dst.addr, "noc_semaphore_set_remote", loc)) return;
  transfer(*t.run, dst, localSpan(t, src_l1), 4, true);
}

void noc_semaphore_set_multicast(uint32_t src_l1, uint64_t dst_mcast, uint32_t num_dests,
                                 ttlplan::emu::SourceLoc loc) {
  ThreadCtx& t = current(loc);
  const char* fn = "noc_semaphore_set_multicast";
  if (!checkL1Range(t, src_l1, 4, false, fn, loc)) return;
  std::vector<int> dests;
  uint32_t addr = 0;
  if (!multicastDests(t, dst_mcast, num_dests, false, fn, loc, dests, addr)) return;
  if (!semaphoreAddr(t, addr, fn, loc)) return;
  DeviceImpl& dev = t.run->dev;
  for (int core : dests)
    transfer(*t.run, Span{dev.l1[core] + addr, core, addr}, localSpan(t, src_l1), 4, true);
}

uint32_t get_absolute_logical_x(ttlplan::emu::SourceLoc loc) {
  return current(loc).x;
}
uint32_t get_absolute_logical_y(ttlplan::emu::SourceLoc loc) {
  return current(loc).y;
}
