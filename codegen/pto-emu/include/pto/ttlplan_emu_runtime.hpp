#pragma once
// ttlplan's emulator of one Ascend AI core for the pto target (docs/pto.md, "The emulator"): the
// runtime behind pto/pto-inst.hpp. Every instruction the kernel issues goes to its pipe's queue
// and a thread per pipe runs it, so the pipes run concurrently as on the chip. set_flag and
// wait_flag are real: a wait blocks its pipe until the matching set has run. What the flags do not
// order is reported:
//  - a race: two pipes touch the same bytes (a 32-byte granule of UB, L1, L0A/B/C or global
//    memory), at least one writing, and no chain of flags orders the first before the second
//    (vector clocks: each pipe's clock ticks per instruction, a set_flag carries its pipe's clock,
//    the wait_flag joins it);
//  - a deadlock: after the kernel has issued everything, every pipe with work left waits for a
//    flag nothing will set;
//  - a flag set again before its wait, or left set at the end;
//  - a tile outside its buffer or misaligned (TASSIGN), or used before TASSIGN.
// Each report names the instructions and their TTL lines (TTLPLAN_AT in the generated code).
// Header-only; one emulated core per process, blocks run one after another (runBlocks).
#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace pto::emu {

inline constexpr int kPipes = 8; ///< PIPE_S .. PIPE_FIX (pto-isa's cpu_stub.hpp numbering)
inline constexpr int kEventIds = 8;
inline constexpr int64_t kGranule = 32;

inline const char* pipeName(int pipe) {
  static const char* names[kPipes] = {"S", "V", "MTE1", "MTE2", "MTE3", "M", "ALL", "FIX"};
  return pipe >= 0 && pipe < kPipes ? names[pipe] : "?";
}

/// The on-chip memories, by pto::TileType's storage (Vec UB, Mat L1, Left L0A, Right L0B, Acc
/// L0C); Global is global memory.
enum class Space : int { Ub, L1, L0a, L0b, L0c, Global };
inline const char* spaceName(Space s) {
  static const char* names[] = {"ub", "l1", "l0a", "l0b", "l0c", "gm"};
  return names[int(s)];
}

using Clock = std::array<int64_t, kPipes>;

/// One memory access of an instruction: [begin, end) bytes of a space.
struct Access {
  Space space;
  uintptr_t begin, end;
  bool write;
};

/// An instruction as queued: what it does, on which pipe, from where.
struct Instr {
  std::string what;  ///< "TADD", "set_flag(V, MTE3, 2)"
  std::string where; ///< the TTL location (TTLPLAN_AT), or ""
  std::vector<Access> accesses;
  std::function<void()> run;
  int waitSrc = -1, waitId = -1; ///< a wait_flag: the flag it waits for
  int setDst = -1, setId = -1;   ///< a set_flag: the flag it sets
};

class Runtime {
public:
  static Runtime& get() {
    static Runtime runtime;
    return runtime;
  }

  // --- Configuration ---------------------------------------------------------------------------
  /// Buffer sizes of the emulated part (A2/A3 by default; TTLPLAN_PTO_ARCH=a5 for A5), from
  /// hw-native-sys/pto-isa include/pto/common/buffer_limits.hpp.
  void configure() {
    const char* arch = std::getenv("TTLPLAN_PTO_ARCH");
    const bool a5 = arch && std::string(arch) == "a5";
    sizes_ = {int64_t(a5 ? 256 : 192) * 1024, 512 * 1024, 64 * 1024, 64 * 1024,
              int64_t(a5 ? 256 : 128) * 1024};
    for (int s = 0; s < 5; ++s)
      memory_[size_t(s)].assign(size_t(sizes_[size_t(s)]), 0);
  }
  int64_t size(Space s) const { return sizes_[size_t(s)]; }
  uint8_t* base(Space s) { return memory_[size_t(s)].data(); }

  // --- Issuing (the kernel's thread) -----------------------------------------------------------
  std::string currentWhere; ///< set by TTLPLAN_AT
  int blockIdx = 0, blockNum = 1;

  void issue(int pipe, Instr instr) {
    if (instr.where.empty()) instr.where = currentWhere;
    std::lock_guard<std::mutex> lock(mutex_);
    start();
    queues_[size_t(pipe)].push_back(std::move(instr));
    ++pending_;
    cv_.notify_all();
  }

  /// Records a report (with mutex_ held: from a pipe); past kMaxReports only counts them.
  void error(const std::string& message) {
    if (errors_.size() < kMaxReports) errors_.push_back(message);
  }
  static constexpr size_t kMaxReports = 20;
  void issueError(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    errors_.push_back(where(currentWhere) + message);
  }

  /// Waits until every pipe has run its queue, or reports the deadlock; then checks that no flag
  /// is left set and forgets the shadow state (what ran before is ordered before what follows).
  bool drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return pending_ == 0 || deadlocked(); });
    bool ok = true;
    if (pending_ > 0) {
      std::string report = "deadlock: the kernel issued everything, and these pipes wait for "
                           "flags that nothing left to run will set:";
      for (int p = 0; p < kPipes; ++p)
        if (waiting_[size_t(p)])
          report += "\n  " + std::string(pipeName(p)) + ": " + waitingWhat_[size_t(p)];
      errors_.push_back(report);
      stopping_ = true;
      cv_.notify_all();
      lock.unlock();
      for (std::thread& t : workers_)
        if (t.joinable()) t.join();
      lock.lock();
      workers_.clear();
      started_ = false;
      stopping_ = false;
      for (auto& q : queues_)
        q.clear();
      pending_ = 0;
      waiting_.fill(false);
      ok = false;
    }
    for (int s = 0; s < kPipes; ++s)
      for (int d = 0; d < kPipes; ++d)
        for (int id = 0; id < kEventIds; ++id)
          if (flag(s, d, id).set) {
            errors_.push_back(where(flag(s, d, id).where) + "set_flag(" + pipeName(s) + ", " +
                              pipeName(d) + ", " + std::to_string(id) +
                              ") is never waited for: the flag is left set at the end");
            flag(s, d, id).set = false;
          }
    shadow_.clear();
    names_.clear();
    for (Clock& c : clocks_)
      c.fill(0);
    return ok && errors_.empty();
  }

  const std::vector<std::string>& errors() const { return errors_; }

  ~Runtime() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      cv_.notify_all();
    }
    for (std::thread& t : workers_)
      if (t.joinable()) t.join();
  }

private:
  struct Flag {
    bool set = false;
    Clock clock{};
    std::string where;
  };
  struct Shadow {
    int writer = -1;
    int64_t writeClock = 0;
    std::string writeWhat;
    std::array<int64_t, kPipes> readClock{};
    std::array<const std::string*, kPipes> readWhat{};
  };

  Runtime() { configure(); }

  static std::string where(const std::string& w) { return w.empty() ? "" : w + ": "; }
  Flag& flag(int src, int dst, int id) {
    return flags_[size_t((src * kPipes + dst) * kEventIds + id)];
  }

  void start() {
    if (started_) return;
    started_ = true;
    for (int p = 0; p < kPipes; ++p)
      workers_.emplace_back([this, p] { work(p); });
  }

  bool deadlocked() const {
    // Everything issued (drain is called after the kernel returns); some pipe waits, and every
    // pipe either waits or has nothing left.
    bool anyWaiting = false;
    for (int p = 0; p < kPipes; ++p) {
      if (waiting_[size_t(p)]) {
        // A waiter whose flag is set has not woken up yet: it will run.
        if (waitingFor_[size_t(p)]->set) return false;
        anyWaiting = true;
        continue;
      }
      if (!queues_[size_t(p)].empty() || running_[size_t(p)]) return false;
    }
    return anyWaiting;
  }

  void work(int p) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !queues_[size_t(p)].empty(); });
      if (stopping_) return;
      Instr& head = queues_[size_t(p)].front();
      if (head.waitSrc >= 0) {
        Flag& f = flag(head.waitSrc, p, head.waitId);
        if (!f.set) {
          waiting_[size_t(p)] = true;
          waitingFor_[size_t(p)] = &f;
          waitingWhat_[size_t(p)] = where(head.where) + head.what;
          cv_.notify_all(); // drain() may now see a deadlock
          cv_.wait(lock, [&] { return stopping_ || f.set; });
          waiting_[size_t(p)] = false;
          if (stopping_) return;
        }
        f.set = false;
        for (int q = 0; q < kPipes; ++q)
          clocks_[size_t(p)][size_t(q)] =
              std::max(clocks_[size_t(p)][size_t(q)], f.clock[size_t(q)]);
      }
      Instr instr = std::move(queues_[size_t(p)].front());
      queues_[size_t(p)].pop_front();
      running_[size_t(p)] = true;
      ++clocks_[size_t(p)][size_t(p)];
      if (instr.setDst >= 0) {
        Flag& f = flag(p, instr.setDst, instr.setId);
        if (f.set)
          error(where(instr.where) + instr.what +
                ": the flag is set again before a wait_flag took " + "the set at " +
                (f.where.empty() ? "?" : f.where) + " (an event id used by two slots at once?)");
        f.set = true;
        f.clock = clocks_[size_t(p)];
        f.where = instr.where;
      }
      check(p, instr);
      // Instructions run one at a time (under the lock): the pipes interleave at instruction
      // boundaries, and the flags alone say which order is guaranteed.
      if (instr.run) instr.run();
      running_[size_t(p)] = false;
      --pending_;
      cv_.notify_all();
    }
  }

  void check(int p, const Instr& instr) {
    const Clock& mine = clocks_[size_t(p)];
    for (const Access& a : instr.accesses) {
      for (uintptr_t g = a.begin / kGranule; g * kGranule < a.end; ++g) {
        Shadow& s = shadow_[key(a.space, g)];
        auto report = [&](int other, const std::string& otherWhat, const char* kind) {
          error(where(instr.where) + "race: " + pipeName(p) + "'s " + instr.what + " " +
                (a.write ? "writes " : "reads ") + spaceName(a.space) + " bytes [" +
                std::to_string(a.begin) + ", " + std::to_string(a.end) + ") that " +
                pipeName(other) + "'s " + otherWhat + " " + kind +
                ", and no flag orders the two (a missing or mis-numbered set_flag/wait_flag)");
        };
        if (s.writer >= 0 && s.writer != p && s.writeClock > mine[size_t(s.writer)]) {
          report(s.writer, s.writeWhat, "writes");
          return;
        }
        if (a.write)
          for (int q = 0; q < kPipes; ++q)
            if (q != p && s.readClock[size_t(q)] > mine[size_t(q)]) {
              report(q, s.readWhat[size_t(q)] ? *s.readWhat[size_t(q)] : "instruction", "reads");
              return;
            }
      }
      const std::string* name = nullptr;
      if (!a.write) {
        names_.push_back(instr.what + (instr.where.empty() ? "" : " at " + instr.where));
        name = &names_.back();
      }
      for (uintptr_t g = a.begin / kGranule; g * kGranule < a.end; ++g) {
        Shadow& s = shadow_[key(a.space, g)];
        if (a.write) {
          s.writer = p;
          s.writeClock = mine[size_t(p)];
          s.writeWhat = instr.what + (instr.where.empty() ? "" : " at " + instr.where);
          s.readClock.fill(0);
        } else {
          s.readClock[size_t(p)] = mine[size_t(p)];
          s.readWhat[size_t(p)] = name;
        }
      }
    }
  }

  static uint64_t key(Space s, uintptr_t granule) { return (uint64_t(s) << 58) ^ granule; }

  std::array<int64_t, 5> sizes_{};
  std::array<std::vector<uint8_t>, 5> memory_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::thread> workers_;
  std::array<std::deque<Instr>, kPipes> queues_;
  std::array<bool, kPipes> waiting_{}, running_{};
  std::array<std::string, kPipes> waitingWhat_;
  std::array<const Flag*, kPipes> waitingFor_{};
  std::array<Clock, kPipes> clocks_{};
  std::vector<Flag> flags_ = std::vector<Flag>(size_t(kPipes * kPipes * kEventIds));
  std::unordered_map<uint64_t, Shadow> shadow_;
  std::deque<std::string> names_;
  std::vector<std::string> errors_;
  int64_t pending_ = 0;
  bool started_ = false, stopping_ = false;
};

/// Runs `kernel` once per block 0..blocks-1, each on the emulated core after the previous one
/// finished; prints every report to stderr. Returns whether the runs were clean.
inline bool runBlocks(int blocks, const std::function<void()>& kernel) {
  Runtime& rt = Runtime::get();
  bool ok = true;
  for (int b = 0; b < blocks; ++b) {
    rt.blockIdx = b;
    rt.blockNum = blocks;
    kernel();
    ok = rt.drain() && ok;
    if (!ok) break;
  }
  for (const std::string& e : rt.errors())
    std::fprintf(stderr, "pto emulator: error: %s\n", e.c_str());
  return ok && rt.errors().empty();
}

} // namespace pto::emu
