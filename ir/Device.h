#pragma once
// Device descriptions: the hardware numbers that the planner, the cost model and the code
// generator read. They come from the JSON files of ir/devices/ (compiled into the binary) or from a
// user's --device-file; docs/devices.md documents every field, its unit, range and source.
#include "ttlplan/ir/DataType.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir {

/// A rectangle of cores. JSON spells it [rows, columns] (y first).
struct GridShape {
  int rows = 0;    // cores along y
  int columns = 0; // cores along x

  int cores() const { return rows * columns; }
  bool operator==(const GridShape&) const = default;
};

/// Where the Tensix cores are and how kernels name them.
struct DeviceGrid {
  GridShape compute;                  // logical grid a program may use (dispatch cores excluded)
  GridShape physicalTensix;           // Tensix cores on the die, harvested ones included
  GridShape noc;                      // the NoC coordinate space, every kind of tile included
  std::vector<int> translatedRows;    // translated NoC y of logical row i
  std::vector<int> translatedColumns; // translated NoC x of logical column j
  std::string harvesting;             // which rows or columns firmware disables, in words

  bool operator==(const DeviceGrid&) const = default;
};

/// The SRAM of one Tensix core.
struct L1Memory {
  int64_t sizeBytes = 0;      // bytes of L1 per core
  int64_t unreservedBase = 0; // first byte free for circular buffers (a runtime value)

  bool operator==(const L1Memory&) const = default;
};

/// Limits on circular buffers.
struct CircularBufferRules {
  int maxPerProgram = 0;          // CB indices a program may use on one core
  int64_t addressAlignment = 0;   // bytes; every CB address is a multiple of this
  int64_t configWordBytes = 0;    // bytes of L1 config that each CB occupies
  bool sizeMultipleOfPage = true; // whether a CB's total size must be a multiple of its page size

  bool operator==(const CircularBufferRules&) const = default;
};

/// The DST register file, in 32x32 tiles.
struct DstRegister {
  int tilesFullSync = 0;        // 16-bit accumulation, full sync
  int tilesHalfSync = 0;        // 16-bit accumulation, half sync (math and pack alternate halves)
  int tilesFullSyncFp32 = 0;    // fp32 accumulation, full sync
  int tilesHalfSyncFp32 = 0;    // fp32 accumulation, half sync
  bool defaultFullSync = false; // the mode kernels get unless they ask (JSON "half" or "full")

  bool operator==(const DstRegister&) const = default;
};

/// Bytes of one 32x32 tile per data type.
struct TileSizes {
  int64_t bf16 = 0;   // bfloat16
  int64_t f32 = 0;    // float32
  int64_t f16 = 0;    // float16
  int64_t bfp8_b = 0; // block float, 8-bit mantissas, shared exponents
  int64_t bfp4_b = 0; // block float, 4-bit mantissas, shared exponents
  int64_t i32 = 0;    // int32
  int64_t u32 = 0;    // uint32

  bool operator==(const TileSizes&) const = default;
};

/// Off-chip memory, per chip.
struct Dram {
  int banks = 0;                          // interleaving banks (DRAM channels)
  int64_t bandwidthGBps = 0;              // peak bandwidth, GB/s
  int64_t measuredReadBytesPerCycle = 0;  // one core reading DRAM, bytes per clock cycle
  int64_t measuredWriteBytesPerCycle = 0; // one core writing DRAM, bytes per clock cycle
  // Every core reading interleaved pages at once, GB/s: what the banks deliver in practice;
  // 0 where not measured (the peak is used then).
  double measuredInterleavedGBps = 0;

  bool operator==(const Dram&) const = default;
};

/// The networks on chip.
struct Noc {
  int count = 0;                                    // independent NoCs
  int64_t linkBytesPerCycle = 0;                    // link width, bytes per clock cycle
  int64_t maxPacketBytes = 0;                       // largest single NoC transfer (burst)
  int64_t measuredMulticastBytesPerCycle = 0;       // one-to-all multicast, bytes per cycle
  int64_t measuredMulticastLinkedBytesPerCycle = 0; // linked multicast, bytes per cycle

  bool operator==(const Noc&) const = default;
};

/// Cycles per 32x32 tile at each math fidelity (number of fidelity phases 1..4).
struct FidelityCycles {
  int64_t lofi = 0;  // 1 phase
  int64_t hifi2 = 0; // 2 phases
  int64_t hifi3 = 0; // 3 phases
  int64_t hifi4 = 0; // 4 phases

  /// The cycles for `phases` fidelity phases; phases outside 1..4 are clamped.
  int64_t forPhases(int phases) const;
  bool operator==(const FidelityCycles&) const = default;
};

/// Ideal compute cost per 32x32 tile, in clock cycles.
struct ComputeCosts {
  FidelityCycles matmul;     // matmul_tiles: one 32x32x32 block
  int64_t eltwiseAddSub = 0; // eltwise add or sub (fidelity does not apply)
  FidelityCycles eltwiseMul; // eltwise mul
  int64_t reduceMax = 0;     // reduce max of one tile (fidelity does not apply)
  FidelityCycles reduceSum;  // reduce sum or average of one tile
  int64_t sfpuExp = 0;       // SFPU exp (measured, not ideal)

  bool operator==(const ComputeCosts&) const = default;
};

/// The cost model's constants (search/cost/, docs/cost-model.md). Cycles are AI-clock cycles. The
/// ones that no document states are fitted by bench/cost_calibration on measured matmuls; the
/// `sources` entry of each says which.
struct CostConstants {
  double matmulFpuEfficiency = 0; // ideal matmul cycles / achieved, in steady state (0, 1]
  double unpackBytesPerCycle = 0; // unpacker throughput, bytes of source tile per cycle
  double unpackCyclesPerTile = 0; // unpacker fixed cost per tile (address setup, format switch)
  double packBytesPerCycle = 0;   // packer throughput, bytes of output tile per cycle
  double packCyclesPerTile = 0;   // packer fixed cost per tile
  double dstRoundCycles = 0;      // one DST acquire/commit/wait/release round
  double cbSyncCycles = 0;        // one cb_reserve/push/wait/pop call
  double nocRequestCycles = 0;    // issuing one NoC read or write request
  double dramLatencyCycles = 0;   // a DRAM read request's round trip
  double nocLatencyCycles = 0;    // one flag or semaphore message between two cores
  double launchNs = 0;            // device time to start and finish a program, not in the kernels
  double hostDispatchNs = 0;      // extra time a host-side (untraced) measurement of one op sees
  // Optional (0 when absent): the model's measured error on the ratio of the predicted times of
  // two configs of one shape, as a fraction (bench/cost_calibration: the 75th percentile over
  // same-shape pairs). A tuned point predicted faster than the baseline config by less than this
  // is not trusted to be faster (search::choosePick). Not a model input: calibrationHash skips it.
  double rankUncertainty = 0;
  // Optional (1 when absent): a host-side measurement of one op sees the device time times this,
  // plus hostDispatchNs (Prediction::hostNs). Measured where one report gives both times of the
  // same runs. Only host predictions read it (records store device time): calibrationHash skips it.
  double hostTimeFactor = 1;

  bool operator==(const CostConstants&) const = default;
};

/// Per-kernel and per-core limits of the runtime.
struct KernelLimits {
  int maxRuntimeArgs = 0;     // unique + common runtime args of one kernel on one core
  int semaphoresPerCore = 0;  // semaphores a program may allocate on one core
  int64_t semaphoreBytes = 0; // L1 bytes of one semaphore

  bool operator==(const KernelLimits&) const = default;
};

/// One device: a card of `chips` identical chips. Every number is per chip.
struct Device {
  std::string name;       // file stem for builtins, e.g. "wormhole_b0"
  std::string arch;       // "wormhole_b0" or "blackhole"
  std::string notes;      // choices and caveats, in words
  int chips = 0;          // chips on the card
  int64_t clockMhz = 0;   // AI clock of the Tensix cores
  DeviceGrid grid;        // cores and coordinates
  L1Memory l1;            // per-core SRAM
  CircularBufferRules cb; // circular buffer limits
  DstRegister dst;        // DST capacity
  TileSizes tiles;        // bytes per tile
  Dram dram;              // off-chip memory
  Noc noc;                // networks on chip
  ComputeCosts compute;   // cycles per tile
  KernelLimits kernel;    // runtime limits
  CostConstants cost;     // the cost model's constants
  std::map<std::string, std::string>
      sources; // field or section name -> where its number comes from

  /// Bytes of one 32x32 tile of `type`.
  int64_t tileBytes(DataType type) const;
  /// Tiles that fit in DST in the given sync and accumulation mode.
  int dstCapacityTiles(bool fullSync, bool fp32Accumulation) const;
  /// L1 bytes a program can place circular buffers in.
  int64_t freeL1Bytes() const { return l1.sizeBytes - l1.unreservedBase; }
  bool operator==(const Device&) const = default;
};

/// The device used when none is named.
inline constexpr std::string_view kDefaultDevice = "wormhole_b0";
/// The schema_version this build reads and writes.
inline constexpr int kDeviceSchemaVersion = 1;

/// Parses and checks a device description. `origin` (a file name) starts every message. On error
/// the message has one line per problem: every missing, wrongly typed, out-of-range or unknown
/// field, named by its dotted path.
Expected<Device> parseDevice(std::string_view jsonText, std::string_view origin);
/// Reads and parses a device file.
Expected<Device> loadDeviceFile(const std::string& path);
/// One of the descriptions compiled into the binary (ir/devices/NAME.json).
Expected<Device> builtinDevice(std::string_view name);
/// Names of the builtin descriptions, sorted.
std::vector<std::string> builtinDeviceNames();
/// Sets the logical compute grid a program may use to rows x cols: at most the physical Tensix
/// grid, and within the translated coordinates the description gives. An error says which limit.
Status setComputeGrid(Device& device, int rows, int cols);
/// The JSON form of `device`; parseDevice reads it back to an equal Device. Callers need
/// <nlohmann/json.hpp> to use the result.
nlohmann::json toJson(const Device& device);
/// An aligned plain-text table with one row per device (for `ttlplan devices`).
std::string formatDeviceTable(const std::vector<Device>& devices);

} // namespace ttlplan::ir
