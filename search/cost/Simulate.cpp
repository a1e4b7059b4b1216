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

struct Frame {
  const std::vector<Step>* steps;
  size_t pc;
  int64_t left; // iterations left after the current one
};

struct ThreadState {
  int cls = 0;
  int index = 0;
  std::vector<Frame> stack;
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
  void reset(SimResult& result);
  // Executes the thread's next step; false when it must wait for another thread.
  bool step(ThreadState& th);
  bool execute(ThreadState& th, const Step& s);
  void enterLoop(ThreadState& th, const Step& s);
  std::string describeBlocked(const ThreadState& th) const;
  int receiverSlot(int net, int cls) const { return slots_[size_t(net)][size_t(cls)]; }
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
  const LoopCounts* counts_ = nullptr;    // this run's
  SimResult* result_ = nullptr;           // this run's
  std::vector<ThreadState> threads_;      // every class's, in class order
  std::vector<std::vector<CbState>> cbs_; // [class][cb]
  std::vector<NetState> nets_;
  std::vector<std::vector<int>> slots_; // [net][class] -> receiver slot or -1
  bool signalled_ = false;              // a Receive signalled its sender during this round
};

void Simulation::Engine::enterLoop(ThreadState& th, const Step& s) {
  int64_t n = (*counts_)(s);
  if (n > 0 && !s.body.empty()) th.stack.push_back({&s.body, 0, n - 1});
}

bool Simulation::Engine::execute(ThreadState& th, const Step& s) {
  ClassStats& stats = result_->classes[size_t(th.cls)];
  switch (s.kind) {
  case StepKind::Reserve: {
    CbState& cb = cbs_[size_t(th.cls)][size_t(s.cb)];
    int64_t needPopped = cb.reserved - cb.depth; // block that must be free
    if (needPopped >= 0) {
      if (int64_t(cb.popTime.size()) <= needPopped) return false;
      double before = th.t;
      stall(th.stats.stallCbFull, th, cb.popTime[size_t(needPopped)]);
      stats.cbStall[size_t(s.cb)] += th.t - before;
    }
    ++cb.reserved;
    spend(th, rates_.cbSyncCycles);
    return true;
  }
  case StepKind::Push: {
    CbState& cb = cbs_[size_t(th.cls)][size_t(s.cb)];
    spend(th, rates_.cbSyncCycles);
    cb.pushTime.push_back(th.t);
    return true;
  }
  case StepKind::Wait: {
    CbState& cb = cbs_[size_t(th.cls)][size_t(s.cb)];
    if (int64_t(cb.pushTime.size()) <= cb.waited) return false;
    double before = th.t;
    stall(th.stats.stallCbEmpty, th, cb.pushTime[size_t(cb.waited)]);
    stats.cbStall[size_t(s.cb)] += th.t - before;
    ++cb.waited;
    spend(th, rates_.cbSyncCycles);
    return true;
  }
  case StepKind::Pop: {
    CbState& cb = cbs_[size_t(th.cls)][size_t(s.cb)];
    spend(th, rates_.cbSyncCycles);
    cb.popTime.push_back(th.t);
    return true;
  }
  case StepKind::Read:
  case StepKind::Write: {
    bool read = s.kind == StepKind::Read;
    double issue = double(s.requests) * rates_.nocRequestCycles;
    spend(th, issue);
    // The banks give this core its share; when the share binds, other cores' traffic fills the
    // gaps of this one's latency, so the transfer takes the longer of its share of the banks and
    // its own rate plus the latency.
    double shared = read ? rates_.readBytesPerCycle : rates_.writeBytesPerCycle;
    double own = read ? rates_.coreReadBytesPerCycle : rates_.coreWriteBytesPerCycle;
    double latency = read ? rates_.dramLatencyCycles : rates_.nocLatencyCycles;
    double& engine = read ? th.readFree : th.writeFree;
    double start = std::max(engine, th.t);
    engine = start + double(s.bytes) / shared;
    double done = start + std::max(double(s.bytes) / own + latency, double(s.bytes) / shared);
    th.lastDone = std::max(th.lastDone, done);
    return true;
  }
  case StepKind::WaitTransfers:
    stall(th.stats.stallTransfer, th, th.lastDone);
    return true;
  case StepKind::Send: {
    NetState& net = nets_[size_t(s.net)];
    size_t k = net.arrival.size();
    double readyAt = th.t;
    for (const std::vector<double>& ready : net.ready) {
      if (ready.size() <= k) return false;
      readyAt = std::max(readyAt, ready[k] + rates_.nocLatencyCycles);
    }
    stall(th.stats.stallNet, th, readyAt);
    // The multicast is issued and streams on the write path while the thread goes on.
    spend(th, rates_.nocRequestCycles);
    th.writeFree = std::max(th.writeFree, th.t) + double(s.bytes) / rates_.mcastBytesPerCycle;
    net.arrival.push_back(th.writeFree + rates_.nocLatencyCycles);
    return true;
  }
  case StepKind::Receive: {
    NetState& net = nets_[size_t(s.net)];
    std::vector<double>& ready = net.ready[size_t(receiverSlot(s.net, th.cls))];
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
    spend(th, s.cycles);
    return true;
  case StepKind::Loop:
    enterLoop(th, s);
    return true;
  }
  return true;
}

bool Simulation::Engine::step(ThreadState& th) {
  while (!th.stack.empty()) {
    Frame& f = th.stack.back();
    if (f.pc < f.steps->size()) break;
    if (f.left > 0) {
      --f.left;
      f.pc = 0;
      continue;
    }
    th.stack.pop_back();
  }
  if (th.stack.empty()) {
    th.done = true;
    return true;
  }
  Frame& f = th.stack.back();
  const Step& s = (*f.steps)[f.pc];
  if (s.kind == StepKind::Loop) {
    ++f.pc; // before entering: the push may move the frame
    enterLoop(th, s);
    return true;
  }
  if (!execute(th, s)) return false;
  ++th.stack.back().pc;
  ++result_->steps;
  return true;
}

std::string Simulation::Engine::describeBlocked(const ThreadState& th) const {
  const CoreClass& cls = program_.classes[size_t(th.cls)];
  const Frame& f = th.stack.back();
  const Step& s = (*f.steps)[f.pc];
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
  cbs_.resize(program_.classes.size());
  for (size_t c = 0; c < program_.classes.size(); ++c) {
    const CoreClass& cls = program_.classes[c];
    for (const Cb& cb : cls.cbs) {
      cbs_[c].push_back(CbState{std::max<int64_t>(1, cb.depth), 0, 0, {}, {}});
      cbs_[c].back().pushTime.reserve(kReserveBlocks);
      cbs_[c].back().popTime.reserve(kReserveBlocks);
    }
    for (size_t t = 0; t < cls.threads.size(); ++t) {
      ThreadState th;
      th.cls = int(c);
      th.index = int(t);
      threads_.push_back(std::move(th));
    }
  }
  nets_.resize(program_.nets.size());
  slots_.assign(program_.nets.size(), std::vector<int>(program_.classes.size(), -1));
  for (size_t n = 0; n < program_.nets.size(); ++n) {
    const Net& net = program_.nets[n];
    nets_[n].ready.resize(net.receiverClasses.size());
    for (size_t r = 0; r < net.receiverClasses.size(); ++r)
      slots_[n][size_t(net.receiverClasses[r])] = int(r);
  }
}

// Back to the start: every history empty (capacity kept), every thread at its first step.
void Simulation::Engine::reset(SimResult& result) {
  for (std::vector<CbState>& cbs : cbs_)
    for (CbState& cb : cbs) {
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
    const Thread& thread = program_.classes[size_t(th.cls)].threads[size_t(th.index)];
    th.stack.clear();
    th.stack.push_back({&thread.steps, 0, 0});
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
  counts_ = &counts;
  result_ = &result;
  reset(result);
  // Round robin: each thread runs until it blocks; stop when all are done or none can move.
  size_t remaining = threads_.size();
  while (remaining > 0) {
    bool progress = false;
    signalled_ = false;
    for (ThreadState& th : threads_) {
      if (th.done) continue;
      while (!th.done && step(th))
        progress = true;
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

Expected<SimResult> simulate(const Program& program, const Rates& rates, const LoopCounts& counts) {
  Expected<Simulation> simulation = Simulation::prepare(program, rates);
  if (!simulation) return simulation.error();
  SimResult result;
  Status ok = simulation->run(counts, result);
  if (!ok) return ok.error();
  return result;
}

} // namespace ttlplan::search::cost
