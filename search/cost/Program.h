#pragma once
// What the cost model reads (docs/cost-model.md): a planned kernel as plain data, no IR. Cores
// that run the same program (same pipe roles, same work count) form one class; the simulation runs
// one representative core per class. Each class's threads are step lists over the class's CBs and
// the kernel's multicast nets. Steps carry their costs already priced (bytes, cycles), so the
// model never needs to know which TTL op a step came from; `origin` keeps that for reports.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::search::cost {

/// Which hardware a thread occupies.
enum class ThreadRole : uint8_t {
  Noc0,    ///< first data-movement thread (BRISC, NoC 0)
  Noc1,    ///< second data-movement thread (NCRISC, NoC 1)
  Compute, ///< the three TRISCs (unpack, math, pack) as one thread
};

/// "noc0", "noc1" or "compute", as reports name the threads.
const char* toString(ThreadRole role);

enum class StepKind : uint8_t {
  Reserve,       ///< producer acquires the next block of `cb`; blocks while the CB is full
  Push,          ///< producer publishes the block it reserved
  Wait,          ///< consumer acquires the next block of `cb`; blocks while the CB is empty
  Pop,           ///< consumer frees the block it waited for
  Read,          ///< issue a DRAM read of `bytes` in `requests` NoC requests (asynchronous)
  Write,         ///< issue a DRAM write of `bytes` in `requests` NoC requests (asynchronous)
  WaitTransfers, ///< block until every transfer this thread issued has finished (ttl.wait)
  Send,          ///< multicast `bytes` on `net` once every receiver is ready; blocks until sent
  Receive,       ///< tell the sender of `net` this core is ready, then block until the data is in
  Compute,       ///< the compute engine is busy for `cycles` (priced by the extractor)
  Loop,          ///< run `body` `count` times
};

/// Where a compute step's cycles go, for the report (the sum is `Step::cycles`).
struct ComputeBreakdown {
  double math = 0;     ///< FPU/SFPU cycles not hidden behind unpack
  double unpack = 0;   ///< unpacker cycles not hidden behind math
  double pack = 0;     ///< packer cycles not overlapped with the next round's math
  double overhead = 0; ///< DST acquire/commit/release and init cycles
  bool operator==(const ComputeBreakdown&) const = default;
};

struct Step {
  StepKind kind = StepKind::Compute;
  int cb = -1;            ///< Reserve/Push/Wait/Pop: index into CoreClass::cbs
  int net = -1;           ///< Send/Receive: index into Program::nets
  int64_t bytes = 0;      ///< Read/Write/Send: payload bytes
  int64_t requests = 0;   ///< Read/Write: NoC requests (one per tile page)
  double cycles = 0;      ///< Compute: engine cycles
  ComputeBreakdown split; ///< Compute: where `cycles` go
  double idealCycles = 0; ///< Compute: FPU cycles at the ideal rate (for utilisation)
  int64_t count = 0;      ///< Loop: trip count (>= 0)
  bool workLoop = false;  ///< Loop: a ttl.work_loop (its count is the core's work items)
  /// Loop: when this is one run of a source loop split where its body's branches change (an edge
  /// core's valid and padded blocks), the source loop's trip count and the iterations before
  /// this run; the model samples the source loop as a whole (0, 0 when not split).
  int64_t sourceCount = 0;
  int64_t sourceOffset = 0;
  std::vector<Step> body; ///< Loop: the steps repeated
  int origin = -1;        ///< the TTL op, for reports: index into Program::origins (-1: none)
  bool operator==(const Step&) const = default;

  static Step onCb(StepKind kind, int cb) {
    Step s;
    s.kind = kind;
    s.cb = cb;
    return s;
  }
  static Step transfer(StepKind kind, int64_t bytes, int64_t requests) {
    Step s;
    s.kind = kind;
    s.bytes = bytes;
    s.requests = requests;
    return s;
  }
  static Step onNet(StepKind kind, int net, int64_t bytes) {
    Step s;
    s.kind = kind;
    s.net = net;
    s.bytes = bytes;
    return s;
  }
  static Step compute(double cycles) {
    Step s;
    s.cycles = cycles;
    return s;
  }
  static Step waitTransfers() {
    Step s;
    s.kind = StepKind::WaitTransfers;
    return s;
  }
  static Step loop(int64_t count, std::vector<Step> body, bool workLoop = false) {
    Step s;
    s.kind = StepKind::Loop;
    s.count = count;
    s.workLoop = workLoop;
    s.body = std::move(body);
    return s;
  }
};

struct Thread {
  ThreadRole role = ThreadRole::Compute;
  std::vector<Step> steps;
  bool operator==(const Thread&) const = default;
};

/// One circular buffer of a core class.
struct Cb {
  std::string name;       ///< "%cba"
  int64_t depth = 1;      ///< blocks the CB holds (>= 1)
  int64_t blockBytes = 0; ///< bytes of one block (for the report)
  bool operator==(const Cb&) const = default;
};

/// Cores that run the same program.
struct CoreClass {
  std::string name;        ///< "A sender, B receiver" or "core (0,0)"; for reports
  int cores = 1;           ///< how many cores of the grid run it (>= 1)
  int representativeX = 0; ///< logical x of the core the class is named after
  int representativeY = 0; ///< logical y
  int64_t workItems = 0;   ///< work items per core (0 when the kernel splits work by hand)
  std::vector<Cb> cbs;
  std::vector<Thread> threads;
  bool operator==(const CoreClass&) const = default;
};

/// A multicast (or unicast) net as the simulation sees it: one representative sender class and
/// the classes whose representative receives from it. Nets of the grid that look alike (one per
/// grid row, say) share one representative.
struct Net {
  std::string name;                 ///< "%pa row net"; for reports
  int senderClass = -1;             ///< index into Program::classes
  std::vector<int> receiverClasses; ///< classes that receive from this sender
  int destinations = 0;             ///< receiving cores of one real net (for latency and bytes)
  int nets = 1;                     ///< real nets this one stands for (NoC traffic totals)
  bool operator==(const Net&) const = default;
};

/// The file:line:col of the TTL ops steps came from (Step::origin), shared by the Programs of one
/// kernel; equal when the names are.
struct Origins {
  std::shared_ptr<const std::vector<std::string>> names;
  bool operator==(const Origins& other) const {
    if (names == other.names) return true;
    return names && other.names && *names == *other.names;
  }
};

/// The whole kernel.
struct Program {
  std::string kernel; ///< "@matmul"
  int gridRows = 1;   ///< cores along y of the grid the kernel runs on
  int gridCols = 1;   ///< cores along x
  std::vector<CoreClass> classes;
  std::vector<Net> nets;
  Origins origins;
  bool operator==(const Program&) const = default;

  /// Where `step` came from ("" when it names no op).
  std::string_view originOf(const Step& step) const {
    if (step.origin < 0 || !origins.names || size_t(step.origin) >= origins.names->size())
      return {};
    return (*origins.names)[size_t(step.origin)];
  }
};

} // namespace ttlplan::search::cost
