#pragma once
// The cost model (docs/cost-model.md): predicts a planned kernel's device time from its cost
// Program at two levels. The analytic level bounds the time from below by throughput (compute per
// core, DRAM against the banks and the per-core NoC rate, multicast bytes). The simulation level
// runs the representative cores with finite CBs for a few iterations of each long loop and
// extrapolates the steady state in closed form, so the work does not grow with the tile count.
#include "ttlplan/ir/Device.h"
#include "ttlplan/search/cost/Program.h"
#include "ttlplan/search/cost/Simulate.h"
#include "ttlplan/support/Expected.h"

#include <string>
#include <string_view>

namespace ttlplan::search::cost {

/// Version of the model's equations; a change makes stored predictions stale.
inline constexpr std::string_view kModelVersion = "cost-4";

struct ModelOptions {
  /// Loops longer than `sampleHigh` iterations are simulated at `sampleLow` and `sampleHigh`
  /// iterations and extrapolated linearly (per distinct trip count, multilinearly).
  int64_t sampleLow = 2;
  int64_t sampleHigh = 4;
  int maxExtrapolated = 3; ///< loop variables extrapolated; longer-running ones beyond run fully
};

/// What limits the kernel.
enum class Bound : uint8_t { Compute, Dram, Noc, Latency, Imbalance };
std::string_view toString(Bound bound);

/// The analytic level, in cycles of the device clock.
struct Analytic {
  double compute = 0;    ///< the busiest core's compute-thread work
  double dram = 0;       ///< DRAM bytes against the banks, or one thread's against a core's rate
  double noc = 0;        ///< the busiest sender's multicast bytes
  double latency = 0;    ///< predicted time no throughput bound explains (handshakes, fill, syncs)
  double imbalance = 0;  ///< time the busiest core works past the mean core (uneven work split)
  double dramBytes = 0;  ///< read + written, every core
  double mcastBytes = 0; ///< multicast payload sent, every net
};

/// Busy and stall cycles of one thread of the critical core.
struct ThreadReport {
  ThreadRole role = ThreadRole::Compute;
  ThreadStats stats;
};

struct Prediction {
  double cycles = 0;      ///< predicted kernel cycles (simulation, extrapolated)
  double deviceNs = 0;    ///< cycles at the clock, plus the program launch
  double hostNs = 0;      ///< what an untraced host-side measurement would see
  double idealCycles = 0; ///< tt-metal's ideal: FPU cycles at the ideal rate / grid cores
  double utilization = 0; ///< idealCycles / cycles
  Bound bound = Bound::Compute;
  Analytic analytic;
  int criticalClass = 0; ///< the class that finishes last
  std::vector<ThreadReport> criticalThreads;
  std::vector<double> criticalCbStall; ///< per CB of the critical class, cycles waited on it
  int simulations = 0;                 ///< simulation runs used
  int64_t simulatedSteps = 0;
  std::string modelVersion; ///< kModelVersion (the calibration's hash: calibrationHash(device))
};

/// The rates the simulation uses on `device` for `program` (DRAM shared by its readers).
Rates ratesFor(const Program& program, const ir::Device& device);

/// Hash (16 hex digits) of everything on `device` the model reads.
std::string calibrationHash(const ir::Device& device);

/// Predicts `program` on `device`. An Error means the program cannot run (a simulated deadlock)
/// or is malformed.
Expected<Prediction> predict(const Program& program, const ir::Device& device,
                             const ModelOptions& options = {});

} // namespace ttlplan::search::cost
