#pragma once
// Multicast (docs/architecture.md, planner sub-problem 4): every pipe net (one sender, a set of
// destination cores) becomes the fewest legal NoC multicast rectangles that deliver to exactly its
// set, and the semaphores of the multicast handshake get ids within the per-core limit. Plain
// structs: the IR extraction (evaluating the pipes of a kernel on every core) lives in lower/; see
// docs/multicast-and-cores.md for the exact rules.
#include "ttlplan/planner/SolveStatus.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::planner::multicast {

/// A logical core: x is the column, y the row (TTL's `(x, y)` order).
struct Core {
  int x = 0;
  int y = 0;
  friend bool operator==(const Core&, const Core&) = default;
};

/// A logical rectangle of cores, inclusive: columns x0..x1, rows y0..y1.
struct Rect {
  int x0 = 0;
  int y0 = 0;
  int x1 = 0;
  int y1 = 0;
  friend bool operator==(const Rect&, const Rect&) = default;
  int width() const { return x1 - x0 + 1; }
  int height() const { return y1 - y0 + 1; }
  int area() const { return width() * height(); }
  bool contains(Core c) const { return c.x >= x0 && c.x <= x1 && c.y >= y0 && c.y <= y1; }
};

/// Logical -> NoC (translated) coordinates, as data: x[col] is the NoC x of logical column col and
/// y[row] the NoC y of logical row row. Each axis must be strictly monotonic so that a logical
/// rectangle is a NoC rectangle. Harvested or irregular grids simply give other tables.
struct NocMapping {
  std::vector<int> x;
  std::vector<int> y;
  /// Wormhole/Blackhole translated coordinates: Tensix logical (x, y) -> (x + 18, y + 18).
  static NocMapping translated(int rows, int cols, int offset = 18);
};

/// One pipe net: one sender multicasting the same bytes to a set of destination cores.
struct PipeNet {
  std::string id;          ///< the pipe's name, for reports
  std::string location;    ///< `file:line:col` of the create_pipe, for messages
  Core sender;             ///< logical sender core
  std::vector<Core> dests; ///< destination set (logical; duplicates are ignored); not empty
  int noc = 0;             ///< 0 or 1: the NoC the sender's data-movement thread uses
  /// Key of the destination bytes (an L1 address, or a CB index: equal iff the same L1 bytes).
  int64_t dstAddress = 0;
  /// Lifetime in program steps, [lower, upper): nets that are never live together may share
  /// semaphore ids. The default makes every net live together.
  int64_t lower = 0;
  int64_t upper = 1;
  int source = -1; ///< the caller's index of the pipe that forms this net (lower/ applies by it)
};

struct Problem {
  int rows = 0; ///< logical grid rows (y)
  int cols = 0; ///< logical grid columns (x)
  NocMapping noc;
  std::vector<PipeNet> nets;
  int semaphoreLimit = 16; ///< ids per core (tt-metal NUM_SEMAPHORES)
  /// Whether a rectangle may span a gap in the mapping (consecutive logical cores whose NoC
  /// coordinates are not adjacent: a harvested row or a non-Tensix column would be inside).
  bool allowGaps = false;
};

/// A NoC rectangle as the multicast command takes it. NOC0: start = (min x, min y), end = (max x,
/// max y). NOC1 routes -x/-y, so start and end are swapped (docs/hardware-facts.md).
struct NocRect {
  int startX = 0;
  int startY = 0;
  int endX = 0;
  int endY = 0;
  friend bool operator==(const NocRect&, const NocRect&) = default;
};

/// One multicast command of a net.
struct Multicast {
  Rect logical;
  NocRect noc;
  /// The sender lies inside this rectangle and is one of the destinations: the loopback variant
  /// delivers to the sender too. When the sender lies inside but is not a destination, the plain
  /// variant is used and the hardware skips the sender.
  bool loopback = false;
  /// Cores this command writes to: the rectangle's cores, minus the sender when it lies inside
  /// without loopback. Always > 0.
  int numDests = 0;
};

/// The plan of one pipe net.
struct NetPlan {
  std::vector<Multicast> multicasts;
  /// Destinations other than the sender: how many receivers increment the sender's ready
  /// semaphore, i.e. the value the sender waits for.
  int receivers = 0;
  int readySemaphore = -1; ///< on the sender: receivers increment it when their buffer is free
  int validSemaphore = -1; ///< on the receivers: the sender multicasts VALID into it
};

struct Solution {
  std::vector<NetPlan> nets; ///< nets[i] is the plan of Problem::nets[i]
  int rectangles = 0;        ///< sum of the multicast commands over the nets
  int semaphoreIds = 0;      ///< 1 + the largest semaphore id used (0 when there are no nets)
};

/// Two nets that write the same destination core at the same bytes while both are live.
struct Conflict {
  size_t first = 0;
  size_t second = 0;
  Core core;
};

/// Why the semaphores do not fit.
struct Infeasibility {
  std::vector<size_t> nets; ///< nets whose semaphores cannot all get distinct ids
  Core core;                ///< a core where they meet
  int needed = 0;           ///< ids those nets need there (a lower bound on the ids)
};

struct Result {
  SolveStatus status = SolveStatus::Error;
  std::optional<Solution> solution;           ///< set for Optimal and Feasible
  int rectangleLowerBound = 0;                ///< proven lower bound on Solution::rectangles
  std::vector<Conflict> conflicts;            ///< set with status Error when nets conflict
  std::optional<Infeasibility> infeasibility; ///< set for Infeasible
  SolverStats stats;
  std::string message; ///< for Error/Infeasible: what and where (source locations)
};

/// Why a solution is invalid; Valid when it is not. Checked by code independent of the solver.
enum class [[nodiscard]] Validity{
    Valid,
    InvalidProblem,       ///< bad grid, mapping, sender or destination outside the grid, ...
    ConflictingNets,      ///< two senders write one core at the same bytes at the same time
    WrongNetCount,        ///< solution.nets.size() != problem.nets.size()
    RectangleOutsideGrid, ///< a rectangle leaves the grid or is empty
    SpansGap,             ///< a rectangle spans a gap in the NoC mapping (allowGaps off)
    ExtraCore,            ///< a rectangle writes a core that is not a destination
    NotCovered,           ///< a destination receives nothing
    Overlap,              ///< two rectangles of one net intersect
    WrongLoopback,        ///< loopback is not (sender inside and sender a destination)
    WrongNumDests,        ///< numDests is not the count of cores written, or is 0
    WrongNocCoordinates,  ///< the NoC start/end do not match the mapping and the NoC
    WrongReceivers,       ///< receivers is not |dests \ {sender}|
    SemaphoreOutOfRange,  ///< an id < 0 or >= the per-core limit
    SemaphoreClash,       ///< two semaphores live on one core at the same time share an id
    WrongTotals,          ///< rectangles or semaphoreIds do not match the nets
};

std::string_view toString(Validity validity);
Validity validate(const Problem& problem, const Solution& solution);

} // namespace ttlplan::planner::multicast
