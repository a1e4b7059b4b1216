#pragma once
// Plans one kernel on an Ascend AI core (docs/pto.md): a pure function from a pto::Problem to a
// Plan or a Rejection. `?` slot counts start at their deepest and shrink, largest buffer first,
// until every memory and every pipe pair fits; then each memory is one L1 placement problem
// (planner/l1, every slot live for the whole kernel) and each ordered pipe pair one colouring of
// its flags into event ids (planner/colouring). The plan is re-checked by validate(), which shares
// no code with the solvers. Never throws; safe to call from many threads at once.
#include "ttlplan/planner/SolveStatus.h"
#include "ttlplan/planner/l1/Solve.h"
#include "ttlplan/planner/pto/Problem.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::planner::pto {

struct PlanOptions {
  l1::L1Solver solver = l1::L1Solver::Exact; ///< --solver: the placement back end
  SolveLimits limits;                        ///< per placement problem
  l1::ExactParams exact;                     ///< the exact solver's pruning rules
};

/// One buffer as planned; Plan::buffers[i] is Problem::buffers[i].
struct BufferPlan {
  int64_t slots = 0;
  bool chosenByPlanner = false; ///< the count was `?`
  /// Per slot: the byte offset in its memory (the TASSIGN address).
  std::vector<int64_t> offsets;
  /// Per slot: the event id of the producer -> consumer "ready" flag; empty on one pipe.
  std::vector<int> readyEvents;
  /// Per slot: the event id of the consumer -> producer "free" flag; empty on one pipe.
  std::vector<int> freeEvents;
};

/// One memory's placement.
struct MemoryPlan {
  Memory memory = Memory::Ub;
  int64_t used = 0;     ///< peak byte of the placement
  int64_t capacity = 0; ///< MemoryLimit::capacity
  l1::Problem problem;  ///< one l1 buffer per slot, in buffer then slot order
  l1::Solution solution;
  std::vector<std::pair<size_t, int64_t>> slots; ///< problem.buffers[k] is (buffer, slot)
};

/// The event ids one ordered pipe pair uses.
struct EventPlan {
  Pipe src = Pipe::Mte2;
  Pipe dst = Pipe::V;
  int used = 0;      ///< ids 0..used-1
  int available = 0; ///< Problem::eventIds
};

/// One solve of the plan, for reports.
struct SolveRun {
  std::string name; ///< "ub", "l1", ... (placement) or "events MTE2->V"
  SolveStatus status = SolveStatus::Error;
  double milliseconds = 0;
  std::string solver;
  int64_t nodes = 0;
};

struct Plan {
  std::vector<BufferPlan> buffers;
  std::vector<MemoryPlan> memories;    ///< the memories some buffer uses, in Memory order
  std::vector<EventPlan> events;       ///< the pipe pairs some flag uses, in (src, dst) order
  std::vector<std::string> depthNotes; ///< how the `?` counts were chosen
  std::vector<SolveRun> runs;
};

/// What did not fit.
enum class Resource : uint8_t {
  Memory,  ///< a memory's slots exceed its capacity
  Events,  ///< a pipe pair's flags exceed its event ids
  Limit,   ///< a placement solve hit its limit before a plan
  Invalid, ///< the problem is malformed or a solver failed
};
std::string_view toString(Resource resource);

/// Why a kernel could not be planned: the numbers and the sentence a user reads (the buffers with
/// their locations and the cheapest change that fits).
struct Rejection {
  Resource resource = Resource::Invalid;
  Memory memory = Memory::Ub;           ///< Resource::Memory
  Pipe src = Pipe::Mte2, dst = Pipe::V; ///< Resource::Events
  int64_t needed = 0;                   ///< bytes or event ids
  int64_t available = 0;
  std::vector<size_t> buffers; ///< Problem::buffers involved, largest first
  std::string fix;             ///< the cheapest change that fits, in words ("" when none)
  std::string message;
};

struct PlanResult {
  std::optional<Plan> plan;
  std::optional<Rejection> rejection; ///< set exactly when plan is not
};

PlanResult plan(const Problem& problem, const PlanOptions& options = {});

/// Why a plan is invalid for a problem; Valid when it is not.
enum class [[nodiscard]] Validity{
    Valid,
    WrongBufferCount, ///< plan.buffers.size() != problem.buffers.size()
    WrongSlots,       ///< a fixed count changed, or a chosen one outside 1..maxSlots
    Misplaced,        ///< an offset negative, misaligned, or past the memory's capacity
    Overlap,          ///< two slots of one memory share bytes
    MissingEvents,    ///< a slot across pipes without its two event ids, or one on one pipe with
    EventOutOfRange,  ///< an event id < 0 or >= Problem::eventIds
    SharedEvent,      ///< two flags of one pipe pair share an id
    WrongSummary,     ///< a MemoryPlan's used bytes or an EventPlan's count is not what it says
    InvalidProblem,   ///< problemError is not empty
};
std::string_view toString(Validity validity);
Validity validate(const Problem& problem, const Plan& plan);

} // namespace ttlplan::planner::pto
