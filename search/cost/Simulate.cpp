#include "ttlplan/search/cost/Simulate.h"

#include <algorithm>
#include <fmt/format.h>

namespace ttlplan::search::cost {

void SimResult::addScaled(const SimResult& other, double weight) {
  end += weight * other.end;
  for (size_t c = 0; c < classes.size(); ++c) {
    ClassStats& mine = classes[c];
    const ClassStats& theirs = other.classes[c];
    mine.end += weight * theirs.end;
    for (size_t i = 0; i < mine.cbStall.size(); ++i)
      mine.cbStall[i] += weight * theirs.cbStall[i];
    for (size_t t = 0; t < mine.threads.size(); ++t) {
      ThreadStats& a = mine.threads[t];
      const ThreadStats& b = theirs.threads[t];
      a.end += weight * b.end;
      a.busy += weight * b.busy;
      a.stallCbFull += weight * b.stallCbFull;
      a.stallCbEmpty += weight * b.stallCbEmpty;
      a.stallTransfer += weight * b.stallTransfer;
      a.stallNet += weight * b.stallNet;
    }
  }
}

namespace {

// Blocks a CB's history holds before it grows (sampled loops run few blocks: no reallocation).
constexpr size_t kReserveBlocks = 64;

// Block sequence numbers of one CB: when each block was pushed and popped.
struct CbState {
  int64_t depth = 1;
  int64_t reserved = 0; // Reserve calls so far
  int64_t waited = 0;   // Wait calls so far
  std::vector<double> pushTime;
  std::vector<double> popTime;
};

// One representative net: when each send's data arrives, and when each receiver class was ready.
struct NetState {
  std::vector<double> arrival;            // by send number
  std::vector<std::vector<double>> ready; // [receiver slot][receive number]
};

// A thread's steps compiled to a flat list once per program: a loop becomes LoopBegin, its body,
// LoopEnd, and every index a step needs (its CB's state, its net's receiver slot) is resolved, so
// that running a step is a switch and a few loads.
enum class OpCode : uint8_t { Step, LoopBegin, LoopEnd };

struct Op {
  OpCode code = OpCode::Step;
  StepKind kind = StepKind::Compute; // Step: what it does
  int cb = -1;                       // CB steps: index into Engine::cbs_
  int net = -1;                      // Send, Receive: the net
  int slot = -1;                     // Receive: this class's receiver slot on the net
  int loop = -1;                     // LoopBegin: index into Engine::loops_
  int jump = -1;    // LoopBegin: the op after its LoopEnd; LoopEnd: the first op of its body
  int localCb = -1; // CB steps: the CB's index in its class (CoreClass::cbs, ClassStats::cbStall)
  // Durations at the Engine's rates, in cycles: Compute its cycles; Read/Write the issue (per
  // request), the transfer at the shared rate and at the core's own rate plus the latency; Send
  // the payload's stream.
  double own = 0, shared = 0, issue = 0, cycles = 0;
  const Step* step = nullptr; // the step (LoopBegin: the loop)
};

struct ThreadState {
  int cls = 0;
  int index = 0;
  std::vector<Op> code;
  size_t pc = 0;
  std::vector<int64_t> left; // per loop being run, innermost last: iterations after this one
  double t = 0;
  double readFree = 0;  // when this thread's reads stop occupying its NoC read path
  double writeFree = 0; // when its writes and multicasts stop occupying the write path
  double lastDone = 0;  // when the last issued read or write completes
  ThreadStats stats;
  bool signalled = false; // a Receive has told its sender and waits for the data
  bool done = false;
};

} // namespace

class Simulation::Engine {
public:
  Engine(const Program& program, const Rates& rates);

  Status run(const LoopCounts& counts, SimResult& result);

private:
  void compile(const std::vector<Step>& steps, int cls, std::vector<Op>& code);
  void reset(SimResult& result);
  // Runs the thread until it must wait for another thread or ends; whether it moved.
  bool advance(ThreadState& th);
  bool execute(ThreadState& th, const Op& op);
  std::string describeBlocked(const ThreadState& th) const;
  // The thread does `cycles` of its own work.
  static void spend(ThreadState& th, double cycles) {
    th.t += cycles;
    th.stats.busy += cycles;
  }
  static void stall(double& bucket, ThreadState& th, double until) {
    if (until > th.t) {
      bucket += until - th.t;
      th.t = until;
    }
  }

  const Program& program_;
  const Rates& rates_;
  SimResult* result_ = nullptr;      // this run's
  std::vector<ThreadState> threads_; // every class's, in class order
  std::vector<CbState> cbs_;         // every class's CBs, in class order
  std::vector<size_t> firstCb_;      // per class: its first CB in cbs_
  std::vector<NetState> nets_;
  std::vector<const Step*> loops_;  // every loop of every thread
  std::vector<int64_t> loopCounts_; // this run's count of each
  bool signalled_ = false;          // a Receive signalled its sender during this round
};

// Ops compile() makes of `steps` at most (a loop: its begin and end).
static size_t opsOf(const std::vector<Step>& steps) {
  size_t n = 0;
  for (const Step& s : steps)
    n += s.kind == StepKind::Loop ? 2 + opsOf(s.body) : 1;
  return n;
}

void Simulation::Engine::compile(const std::vector<Step>& steps, int cls, std::vector<Op>& code) {
  for (const Step& s : steps) {
    Op op;
    op.step = &s;
    if (s.kind == StepKind::Loop) {
      size_t begin = code.size();
      op.code = OpCode::LoopBegin;
      op.loop = int(loops_.size());
      loops_.push_back(&s);
      code.push_back(op);
      compile(s.body, cls, code);
      if (code.size() == begin + 1) { // nothing to repeat
        code.pop_back();
        loops_.pop_back();
        continue;
      }
      Op end;
      end.code = OpCode::LoopEnd;
      end.jump = int(begin + 1);
      end.step = &s;
      code.push_back(end);
      code[begin].jump = int(code.size());
      continue;
    }
    op.kind = s.kind;
    op.localCb = s.cb;
    if (s.cb >= 0) op.cb = int(firstCb_[size_t(cls)]) + s.cb;
    double bytes = double(s.bytes);
    if (s.kind == StepKind::Compute) op.cycles = s.cycles;
    if (s.kind == StepKind::Read || s.kind == StepKind::Write) {
      bool read = s.kind == StepKind::Read;
      op.issue = double(s.requests) * rates_.nocRequestCycles;
      op.shared = bytes / (read ? rates_.readBytesPerCycle : rates_.writeBytesPerCycle);
      op.own = bytes / (read ? rates_.coreReadBytesPerCycle : rates_.coreWriteBytesPerCycle) +
               (read ? rates_.dramLatencyCycles : rates_.nocLatencyCycles);
    }
    if (s.kind == StepKind::Send) op.shared = bytes / rates_.mcastBytesPerCycle;
    op.net = s.net;
    if (s.kind == StepKind::Receive) {
      const std::vector<int>& receivers = program_.nets[size_t(s.net)].receiverClasses;
      op.slot = int(std::find(receivers.begin(), receivers.end(), cls) - receivers.begin());
    }
    code.push_back(op);
  }
}

bool Simulation::Engine::execute(ThreadState& th, const Op& op) {
  switch (op.kind) {
  case StepKind::Reserve: {
    CbState& cb = cbs_[size_t(op.cb)];
    int64_t needPopped = cb.reserved - cb.depth; // block that must be free
    if (needPopped >= 0) {
      if (int64_t(cb.popTime.size()) <= needPopped) return false;
      double before = th.t;
      stall(th.stats.stallCbFull, th, cb.popTime[size_t(needPopped)]);
      result_->classes[size_t(th.cls)].cbStall[size_t(op.localCb)] += th.t - before;
    }
    ++cb.reserved;
    spend(th, rates_.cbSyncCycles);
    return true;
  }
  case StepKind::Push:
    spend(th, rates_.cbSyncCycles);
    cbs_[size_t(op.cb)].pushTime.push_back(th.t);
    return true;
  case StepKind::Wait: {
    CbState& cb = cbs_[size_t(op.cb)];
    if (int64_t(cb.pushTime.size()) <= cb.waited) return false;
    double before = th.t;
    stall(th.stats.stallCbEmpty, th, cb.pushTime[size_t(cb.waited)]);
    result_->classes[size_t(th.cls)].cbStall[size_t(op.localCb)] += th.t - before;
    ++cb.waited;
    spend(th, rates_.cbSyncCycles);
    return true;
  }
  case StepKind::Pop:
    spend(th, rates_.cbSyncCycles);
    cbs_[size_t(op.cb)].popTime.push_back(th.t);
    return true;
  case StepKind::Read:
  case StepKind::Write: {
    spend(th, op.issue);
    // The banks give this core its share; when the share binds, other cores' traffic fills the
    // gaps of this one's latency, so the transfer takes the longer of its share of the banks and
    // its own rate plus the latency.
    double& engine = op.kind == StepKind::Read ? th.readFree : th.writeFree;
    double start = std::max(engine, th.t);
    engine = start + op.shared;
    th.lastDone = std::max(th.lastDone, start + std::max(op.own, op.shared));
    return true;
  }
  case StepKind::WaitTransfers:
    stall(th.stats.stallTransfer, th, th.lastDone);
    return true;
  case StepKind::Send: {
    NetState& net = nets_[size_t(op.net)];
    size_t k = net.arrival.size();
    double readyAt = th.t;
    for (const std::vector<double>& ready : net.ready) {
      if (ready.size() <= k) return false;
      readyAt = std::max(readyAt, ready[k] + rates_.nocLatencyCycles);
    }
    stall(th.stats.stallNet, th, readyAt);
    // The multicast is issued and streams on the write path while the thread goes on.
    spend(th, rates_.nocRequestCycles);
    th.writeFree = std::max(th.writeFree, th.t) + op.shared;
    net.arrival.push_back(th.writeFree + rates_.nocLatencyCycles);
    return true;
  }
  case StepKind::Receive: {
    NetState& net = nets_[size_t(op.net)];
    std::vector<double>& ready = net.ready[size_t(op.slot)];
    if (!th.signalled) { // tell the sender once, then wait for the data
      spend(th, rates_.nocRequestCycles);
      ready.push_back(th.t);
      th.signalled = true;
      signalled_ = true; // progress even if the data is not there yet
    }
    size_t k = ready.size() - 1;
    if (net.arrival.size() <= k) return false;
    stall(th.stats.stallNet, th, net.arrival[k]);
    th.signalled = false;
    return true;
  }
  case StepKind::Compute:
    spend(th, op.cycles);
    return true;
  case StepKind::Loop: // compiled away
    return true;
  }
  return true;
}

bool Simulation::Engine::advance(ThreadState& th) {
  const Op* const code = th.code.data();
  const size_t size = th.code.size();
  size_t pc = th.pc;
  int64_t executed = 0;
  bool moved = false;
  while (pc < size) {
    const Op& op = code[pc];
    if (op.code == OpCode::Step) {
      if (!execute(th, op)) break;
      ++pc;
      ++executed;
      moved = true;
    } else if (op.code == OpCode::LoopBegin) {
      int64_t n = loopCounts_[size_t(op.loop)];
      if (n <= 0) {
        pc = size_t(op.jump);
      } else {
        th.left.push_back(n - 1);
        ++pc;
      }
    } else if (th.left.back() > 0) { // LoopEnd, more iterations
      --th.left.back();
      pc = size_t(op.jump);
    } else {
      th.left.pop_back();
      ++pc;
    }
  }
  if (pc >= size) {
    th.done = true;
    moved = true;
  }
  th.pc = pc;
  result_->steps += executed;
  return moved;
}

std::string Simulation::Engine::describeBlocked(const ThreadState& th) const {
  const CoreClass& cls = program_.classes[size_t(th.cls)];
  const Step& s = *th.code[th.pc].step;
  static const char* const kRoles[] = {"noc0", "noc1", "compute"};
  std::string what;
  switch (s.kind) {
  case StepKind::Reserve:
    what = "reserve on full CB " + cls.cbs[size_t(s.cb)].name;
    break;
  case StepKind::Wait:
    what = "wait on empty CB " + cls.cbs[size_t(s.cb)].name;
    break;
  case StepKind::Send:
    what = "send on " + program_.nets[size_t(s.net)].name + " (receivers never ready)";
    break;
  case StepKind::Receive:
    what = "receive on " + program_.nets[size_t(s.net)].name + " (nothing sent)";
    break;
  default:
    what = "a step";
    break;
  }
  return fmt::format("{} thread of core class '{}' blocks forever in {}{}",
                     kRoles[int(cls.threads[size_t(th.index)].role)], cls.name, what,
                     s.origin < 0 ? "" : " at " + std::string(program_.originOf(s)));
}

Simulation::Engine::Engine(const Program& program, const Rates& rates)
    : program_(program), rates_(rates) {
  for (size_t c = 0; c < program_.classes.size(); ++c) {
    firstCb_.push_back(cbs_.size());
    for (const Cb& cb : program_.classes[c].cbs) {
      cbs_.push_back(CbState{std::max<int64_t>(1, cb.depth), 0, 0, {}, {}});
      cbs_.back().pushTime.reserve(kReserveBlocks);
      cbs_.back().popTime.reserve(kReserveBlocks);
    }
  }
  for (size_t c = 0; c < program_.classes.size(); ++c) {
    const CoreClass& cls = program_.classes[c];
    for (size_t t = 0; t < cls.threads.size(); ++t) {
      ThreadState th;
      th.cls = int(c);
      th.index = int(t);
      th.code.reserve(opsOf(cls.threads[t].steps));
      compile(cls.threads[t].steps, int(c), th.code);
      threads_.push_back(std::move(th));
    }
  }
  nets_.resize(program_.nets.size());
  for (size_t n = 0; n < program_.nets.size(); ++n)
    nets_[n].ready.resize(program_.nets[n].receiverClasses.size());
  loopCounts_.resize(loops_.size());
}

// Back to the start: every history empty (capacity kept), every thread at its first step.
void Simulation::Engine::reset(SimResult& result) {
  for (CbState& cb : cbs_) {
    cb.reserved = cb.waited = 0;
    cb.pushTime.clear();
    cb.popTime.clear();
  }
  for (NetState& net : nets_) {
    net.arrival.clear();
    for (std::vector<double>& ready : net.ready)
      ready.clear();
  }
  for (ThreadState& th : threads_) {
    th.pc = 0;
    th.left.clear();
    th.t = th.readFree = th.writeFree = th.lastDone = 0;
    th.stats = {};
    th.signalled = th.done = false;
  }
  result.classes.resize(program_.classes.size());
  for (size_t c = 0; c < program_.classes.size(); ++c) {
    const CoreClass& cls = program_.classes[c];
    result.classes[c].cbStall.assign(cls.cbs.size(), 0);
    result.classes[c].threads.assign(cls.threads.size(), ThreadStats{});
    result.classes[c].end = 0;
  }
  result.end = 0;
  result.steps = 0;
}

Status Simulation::Engine::run(const LoopCounts& counts, SimResult& result) {
  result_ = &result;
  reset(result);
  for (size_t l = 0; l < loops_.size(); ++l)
    loopCounts_[l] = counts(*loops_[l]);
  // Round robin: each thread runs until it blocks; stop when all are done or none can move.
  size_t remaining = threads_.size();
  while (remaining > 0) {
    bool progress = false;
    signalled_ = false;
    for (ThreadState& th : threads_) {
      if (th.done) continue;
      if (advance(th)) progress = true;
      if (th.done) --remaining;
    }
    if (!progress && !signalled_ && remaining > 0) {
      for (const ThreadState& th : threads_)
        if (!th.done) return Error{"cost simulation: " + describeBlocked(th)};
    }
  }
  for (const ThreadState& th : threads_) {
    ClassStats& cls = result.classes[size_t(th.cls)];
    ThreadStats stats = th.stats;
    stats.end = th.t;
    cls.threads[size_t(th.index)] = stats;
    cls.end = std::max(cls.end, th.t);
    result.end = std::max(result.end, th.t);
  }
  return Status::success();
}

// Indices in range, and every Send/Receive on a net its class sends or receives on.
static Status checkSteps(const Program& program, int cls, const std::vector<Step>& steps) {
  const CoreClass& core = program.classes[size_t(cls)];
  for (const Step& s : steps) {
    bool cbStep = s.kind == StepKind::Reserve || s.kind == StepKind::Push ||
                  s.kind == StepKind::Wait || s.kind == StepKind::Pop;
    if (cbStep && (s.cb < 0 || size_t(s.cb) >= core.cbs.size()))
      return Error{fmt::format("cost program: class '{}' uses CB {} of {}", core.name, s.cb,
                               core.cbs.size())};
    if (s.kind == StepKind::Send || s.kind == StepKind::Receive) {
      if (s.net < 0 || size_t(s.net) >= program.nets.size())
        return Error{fmt::format("cost program: class '{}' uses net {}", core.name, s.net)};
      const Net& net = program.nets[size_t(s.net)];
      bool receives = std::count(net.receiverClasses.begin(), net.receiverClasses.end(), cls) > 0;
      if (s.kind == StepKind::Send ? net.senderClass != cls : !receives)
        return Error{fmt::format("cost program: class '{}' {} net {} it is not part of", core.name,
                                 s.kind == StepKind::Send ? "sends on" : "receives on", net.name)};
    }
    if (s.kind == StepKind::Loop) {
      Status inner = checkSteps(program, cls, s.body);
      if (!inner) return inner;
    }
  }
  return Status::success();
}

Expected<Simulation> Simulation::prepare(const Program& program, const Rates& rates) {
  for (const Net& net : program.nets)
    for (int c : net.receiverClasses)
      if (c < 0 || size_t(c) >= program.classes.size())
        return Error{"cost program: net " + net.name + " names a class that does not exist"};
  for (size_t c = 0; c < program.classes.size(); ++c)
    for (const Thread& thread : program.classes[c].threads) {
      Status ok = checkSteps(program, int(c), thread.steps);
      if (!ok) return ok.error();
    }
  return Simulation(std::make_unique<Engine>(program, rates));
}

Simulation::Simulation(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

Status Simulation::run(const LoopCounts& counts, SimResult& out) {
  return engine_->run(counts, out);
}

} // namespace ttlplan::search::cost
