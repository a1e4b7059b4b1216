#pragma once
// One kernel's planning problem on an Ascend AI core (the pto-isa target, docs/pto.md), as plain
// data. lower/ extracts it from a TTL kernel under a binding (lower::extractPtoProblem);
// planner::pto::plan() chooses the `?` slot counts, places every slot in its on-chip memory with
// the L1 placement solvers (planner/l1: one problem per memory, its capacity and 32-byte
// alignment) and gives every flag between two pipes an event id (planner/colouring: one colouring
// per ordered pipe pair, within the device's ids per pair). Nothing here points into a Module.
//
// A TTL CB of n blocks becomes n slots (tile buffers) used in turn. The pipe that fills a slot
// sets a "ready" flag towards the pipe that drains it, which sets a "free" flag back when it is
// done (pto-isa's set_flag/wait_flag(src_pipe, dst_pipe, event_id)); a slot filled and drained on
// one pipe needs no flag (a pipe runs its instructions in order).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::planner::pto {

/// The pipes of an AI core that a planned kernel uses (pto-isa's pipe_t, PIPE_ prefix dropped).
enum class Pipe : uint8_t {
  Mte2, ///< global memory -> UB or L1 (TLOAD)
  Mte1, ///< L1 -> L0A / L0B (TEXTRACT)
  V,    ///< the vector unit: elementwise, reductions, conversions on UB tiles
  M,    ///< the cube: TMATMUL from L0A x L0B into L0C
  Fix,  ///< L0C -> global memory (TSTORE of an accumulator tile)
  Mte3, ///< UB -> global memory (TSTORE)
};
inline constexpr int kPipeCount = 6;
/// "MTE2", "MTE1", "V", "M", "FIX", "MTE3": pto-isa's PIPE_<name>.
std::string_view toString(Pipe pipe);

/// The on-chip memories a tile may live in; the order of ir::pto::kBufferNames.
enum class Memory : uint8_t { Ub, L1, L0a, L0b, L0c };
inline constexpr int kMemoryCount = 5;
/// "ub", "l1", "l0a", "l0b", "l0c": the device description's buffer names.
std::string_view toString(Memory memory);

/// What a buffer stands for.
enum class BufferRole : uint8_t {
  Cb,        ///< a ttl.create_cb: its blocks are the slots
  Staging,   ///< a matmul operand's copy in L0A or L0B, filled from its L1 CB by MTE1
  Temporary, ///< a value of a compute chain that is neither a CB view nor the stored result
};
std::string_view toString(BufferRole role);

/// One buffer of the kernel: `slots` tile buffers of `slotBytes` each in `memory`.
struct BufferSpec {
  std::string name;     ///< "%cba"; staging "%cba.l0a"; temporaries the value's name "%s"
  std::string location; ///< file:line:col of the create_cb (of the defining op for temporaries)
  BufferRole role = BufferRole::Cb;
  Memory memory = Memory::Ub;
  int64_t slotBytes = 0;           ///< bytes of one slot (one block); > 0
  std::vector<int64_t> blockShape; ///< tiles per block dimension (for reports and the C++ types)
  std::string dataType;            ///< "bf16", "f32", "f16"
  /// One element per row of the block (a row reduction's value, lower::PtoForm::PerRow): a
  /// (32 * blockShape[0]) x 1 column tile rather than the whole block.
  bool perRow = false;
  /// Slot count: fixed, or nullopt when the planner chooses 1..maxSlots (a `?` block count).
  std::optional<int64_t> slots;
  int64_t maxSlots = 1;       ///< the deepest count the planner tries for a `?`
  Pipe producer = Pipe::Mte2; ///< the pipe that fills a slot
  Pipe consumer = Pipe::V;    ///< the pipe that drains it; == producer: no flags
  int source = -1; ///< KernelProblem::cbs position for CBs (and the CB a staging buffer copies)
};

/// One on-chip memory's room for tiles.
struct MemoryLimit {
  int64_t capacity = 0;  ///< bytes usable from offset 0 (below any reserved window)
  int64_t alignment = 1; ///< every slot's offset is a multiple of it
};

struct Problem {
  std::string kernel;   ///< "@eltwise_add"
  std::string location; ///< of the ttl.kernel
  std::string device;   ///< "ascend_a2a3", for messages
  std::vector<BufferSpec> buffers;
  std::array<MemoryLimit, kMemoryCount> memories{}; ///< by Memory
  int eventIds = 8; ///< event ids of set_flag/wait_flag per ordered (src, dst) pipe pair
};

/// `slotBytes` rounded up to `alignment`: what one slot takes from its memory.
int64_t alignedBytes(int64_t slotBytes, int64_t alignment);

/// Empty when the problem is well formed, else the first thing wrong: a capacity below 0 or an
/// alignment below 1, no event ids, a buffer with slotBytes <= 0, a fixed count below 1, a
/// maxSlots below 1, or a slot size beyond 2^40 bytes.
std::string problemError(const Problem& problem);

} // namespace ttlplan::planner::pto
