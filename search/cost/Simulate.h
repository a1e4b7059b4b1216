#pragma once
// The discrete-event level of the cost model (docs/cost-model.md): runs the representative core of
// every class, all threads together, over finite CBs and multicast handshakes. Every time is a max
// of the times a step depends on plus its own duration (max-plus algebra), so the result does not
// depend on the order threads are stepped in. Loops run the counts `LoopCounts` gives, which lets
// the model simulate a few iterations and extrapolate the steady state.
#include "ttlplan/search/cost/Program.h"
#include "ttlplan/support/Expected.h"

#include <functional>
#include <memory>
#include <vector>

namespace ttlplan::search::cost {

/// Data-movement rates the simulation charges, in cycles and bytes per cycle.
struct Rates {
  double readBytesPerCycle = 1;      ///< one core's share of the DRAM banks when reading
  double writeBytesPerCycle = 1;     ///< one core's share when writing
  double coreReadBytesPerCycle = 1;  ///< one core's own DRAM read rate (its NoC)
  double coreWriteBytesPerCycle = 1; ///< one core's own DRAM write rate
  double dramLatencyCycles = 0;      ///< round trip of a read
  double nocRequestCycles = 0;       ///< the issuing thread's cost per NoC request
  double mcastBytesPerCycle = 1;     ///< multicast payload rate (linked: data, then its flag)
  double nocLatencyCycles = 0;       ///< one flag or semaphore message
  double cbSyncCycles = 0;           ///< one CB protocol call
};

/// Where a thread's time went.
struct ThreadStats {
  double end = 0;           ///< cycle the thread finished
  double busy = 0;          ///< cycles doing its own steps
  double stallCbFull = 0;   ///< waiting in Reserve for a consumer to pop
  double stallCbEmpty = 0;  ///< waiting in Wait for a producer to push
  double stallTransfer = 0; ///< waiting for its DRAM transfers
  double stallNet = 0;      ///< waiting for multicast receivers (Send) or data (Receive)
};

struct ClassStats {
  std::vector<ThreadStats> threads; ///< as CoreClass::threads
  std::vector<double> cbStall;      ///< per CB: cycles any thread of the class waited on it
  double end = 0;                   ///< the last thread's end
};

struct SimResult {
  std::vector<ClassStats> classes; ///< as Program::classes
  double end = 0;                  ///< the last class's end
  int64_t steps = 0;               ///< steps executed (work measure)

  /// this += weight * other, field by field (both from the same program).
  void addScaled(const SimResult& other, double weight);
};

/// The count a Loop step runs in this simulation (<= its real count).
using LoopCounts = std::function<int64_t(const Step& loop)>;

/// One program simulated under several loop counts (the model's sample corners): checked once,
/// its buffers re-used from run to run, so a run allocates nothing once they have grown.
class Simulation {
public:
  /// Checks `program` (CB and net indices in range, every Send/Receive on a net its class is
  /// part of). `program` and `rates` must outlive the Simulation.
  static Expected<Simulation> prepare(const Program& program, const Rates& rates);
  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  ~Simulation();

  /// Simulates with `counts` into `out` (overwritten; its vectors keep their capacity). An Error
  /// names a thread that can never continue (a deadlock of the program or of its class
  /// abstraction) with what it waits for.
  Status run(const LoopCounts& counts, SimResult& out);

private:
  class Engine;
  explicit Simulation(std::unique_ptr<Engine> engine);
  std::unique_ptr<Engine> engine_;
};

} // namespace ttlplan::search::cost
