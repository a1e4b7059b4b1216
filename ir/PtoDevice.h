#pragma once
// Ascend AI-core descriptions for the pto-isa target (issue 30): the on-chip buffers a tile may
// live in (capacity, alignment, pto-isa's TileType), the event ids set_flag/wait_flag have per pair
// of pipes, and the cores. They come from the JSON files of ir/devices/pto/ (compiled into the
// binary); docs/pto-facts.md cites where each number comes from in hw-native-sys/pto-isa.
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir::pto {

/// A range of bytes no tile may use.
struct ReservedRange {
  int64_t start = 0; ///< first byte
  int64_t end = 0;   ///< one past the last byte
};

/// One on-chip buffer of an AI core.
struct Buffer {
  std::string name;                      ///< "ub", "l1", "l0a", "l0b" or "l0c"
  std::string tileType;                  ///< pto-isa's TileType that lives in it: "Vec", "Mat", ...
  int64_t sizeBytes = 0;                 ///< capacity
  int64_t alignmentBytes = 0;            ///< every tile's address is a multiple of it
  std::optional<ReservedRange> reserved; ///< a window some ops write on their own
};

/// The numbers of the pto cost model (search/cost/pto/Model.h, docs/pto.md "Cost"): per-pipe
/// throughputs and per-instruction cycle formulas, from pto-isa's A2/A3 cost model
/// (docs/pto-cost-facts.md cites each).
struct CostModel {
  double clockMhz = 0; ///< the AI core clock
  /// Bytes per cycle of each transfer path: TLOAD into UB or L1 (MTE2), TSTORE from UB (MTE3) or
  /// L0C (FIX), TEXTRACT into L0A or L0B (MTE1).
  double gmToUb = 0, gmToL1 = 0, ubToGm = 0, l0cToGm = 0, l1ToL0a = 0, l1ToL0b = 0;
  int64_t repeatBytes = 0;    ///< bytes a vector instruction works on per repeat
  double vectorHead = 0;      ///< cycles a vector instruction takes besides its repeats
  double cyclesPerRepeat = 0; ///< of a vector instruction not in `instructionCyclesPerRepeat`
  std::map<std::string, double> instructionCyclesPerRepeat; ///< "TDIV" -> 4
  double rowReduceCyclesPerElement = 0; ///< TROWSUM / TROWMAX: cycles per source element ...
  double rowReduceHead = 0;             ///< ... plus this
  double cubeHead = 0; ///< TMATMUL: this plus one cycle per 16 x 16 x 16 (16-bit) fractal
  int64_t fractal = 0; ///< the cube's fractal side (16)
};

/// One Ascend AI core as pto-isa programs it.
struct Device {
  std::string name;                           ///< file stem, e.g. "ascend_a2a3"
  std::string arch;                           ///< "a2a3" or "a5" (pto-isa's PTO_NPU_ARCH_*)
  std::string notes;                          ///< choices and caveats, in words
  std::vector<Buffer> buffers;                ///< ub, l1, l0a, l0b, l0c, in that order
  int eventIdsPerPipePair = 0;                ///< ids of set_flag/wait_flag per (src, dst) pipe
  int cubeCores = 0;                          ///< AIC cores of the part
  int vectorCores = 0;                        ///< AIV cores of the part
  std::optional<CostModel> cost;              ///< absent: `cost`/`tune` have no model for it
  std::map<std::string, std::string> sources; ///< field -> where its value comes from

  /// The buffer named `name`, or null.
  const Buffer* buffer(std::string_view name) const;
};

/// The buffers a description has, in order.
inline constexpr std::string_view kBufferNames[] = {"ub", "l1", "l0a", "l0b", "l0c"};

/// Reads a description; every problem is one line of the error, naming the field.
Expected<Device> parseDevice(std::string_view jsonText, std::string_view origin);
/// The built-in description `name` (ir/devices/pto/NAME.json).
Expected<Device> builtinDevice(std::string_view name);
/// Names of the built-in descriptions, sorted.
std::vector<std::string> builtinDeviceNames();

} // namespace ttlplan::ir::pto
