#include "ttlplan/planner/multicast/Solve.h"

#include "ttlplan/planner/colouring/Colouring.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <unordered_map>

namespace ttlplan::planner::multicast {

namespace {

using Clock = std::chrono::steady_clock;

std::string coreText(Core c) {
  return "(" + std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
}

bool inGrid(Core c, int rows, int cols) {
  return c.x >= 0 && c.x < cols && c.y >= 0 && c.y < rows;
}

/// Shared budget of one destination set.
struct Budget {
  SolveLimits limits;
  Clock::time_point start = Clock::now();
  int64_t nodes = 0;
  bool stopped = false;
  bool tick() {
    if (stopped) return false;
    ++nodes;
    if (limits.nodeLimit > 0 && nodes > limits.nodeLimit) stopped = true;
    if (limits.timeLimitSeconds > 0 && (nodes & 1023) == 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() > limits.timeLimitSeconds)
      stopped = true;
    return !stopped;
  }
};

/// A rectangle in box coordinates: top-left (x, y), w x h.
struct BoxRect {
  int x, y, w, h;
};

/// Exact partition of the open cells of a W x H box into the fewest rectangles.
///
/// Branching rule: the first open cell in row-major order is the top-left corner of its rectangle
/// (every cell above it or to its left is already covered, and rectangles are disjoint), so each
/// node tries every rectangle of open cells with that corner, largest first. Bound: every convex
/// vertex of the open region is the corner of exactly one rectangle, every reflex vertex of at
/// least one, and a pinch vertex (two diagonal cells) of two; a rectangle has four corners, so
/// ceil(weight / 4) more rectangles are needed. Memo: a region already reached with no more
/// rectangles is not searched again.
class PartitionSearch {
public:
  PartitionSearch(int w, int h, std::vector<uint8_t> open, int forbiddenSingle, Budget& budget)
      : W(w), H(h), open_(std::move(open)), forbidden_(forbiddenSingle), budget_(budget) {
    for (int vy = 0; vy <= H; ++vy)
      for (int vx = 0; vx <= W; ++vx)
        weight_ += vertexWeight(vx, vy);
  }

  int rootLowerBound() const { return (weight_ + 3) / 4; }

  /// Searches for a partition with fewer than `incumbent` rectangles. Returns true when one was
  /// found (then rects() holds it). complete() tells whether the search finished.
  bool run(int incumbent) {
    best_ = incumbent;
    found_ = false;
    dfs(0, 0);
    return found_;
  }
  bool complete() const { return !budget_.stopped; }
  const std::vector<BoxRect>& rects() const { return bestRects_; }

private:
  bool cell(int x, int y) const {
    return x >= 0 && y >= 0 && x < W && y < H && open_[size_t(y) * W + x];
  }
  int vertexWeight(int vx, int vy) const {
    bool a = cell(vx - 1, vy - 1), b = cell(vx, vy - 1), c = cell(vx - 1, vy), d = cell(vx, vy);
    int n = a + b + c + d;
    if (n == 1 || n == 3) return 1;
    if (n == 2 && ((a && d) || (b && c))) return 2;
    return 0;
  }
  void setRect(const BoxRect& r, uint8_t value) {
    int before = 0, after = 0;
    for (int vy = r.y; vy <= r.y + r.h; ++vy)
      for (int vx = r.x; vx <= r.x + r.w; ++vx)
        before += vertexWeight(vx, vy);
    for (int y = r.y; y < r.y + r.h; ++y)
      for (int x = r.x; x < r.x + r.w; ++x)
        open_[size_t(y) * W + x] = value;
    for (int vy = r.y; vy <= r.y + r.h; ++vy)
      for (int vx = r.x; vx <= r.x + r.w; ++vx)
        after += vertexWeight(vx, vy);
    weight_ += after - before;
  }
  std::string key() const {
    std::string k((open_.size() + 7) / 8, '\0');
    for (size_t i = 0; i < open_.size(); ++i)
      if (open_[i]) k[i / 8] = char(k[i / 8] | (1 << (i % 8)));
    return k;
  }

  void dfs(int from, int depth) {
    if (!budget_.tick()) return;
    int n = W * H;
    while (from < n && !open_[from])
      ++from;
    if (from == n) {
      if (depth < best_) {
        best_ = depth;
        bestRects_ = current_;
        found_ = true;
      }
      return;
    }
    if (depth + (weight_ + 3) / 4 >= best_) return;
    auto [it, inserted] = memo_.try_emplace(key(), depth);
    if (!inserted) {
      if (it->second <= depth) return;
      it->second = depth;
    }
    int x = from % W, y = from / W;
    std::vector<BoxRect> candidates;
    int run = W - x;
    for (int h = 1; y + h - 1 < H; ++h) {
      int r = 0;
      while (r < run && cell(x + r, y + h - 1))
        ++r;
      run = r;
      if (run == 0) break;
      for (int w = 1; w <= run; ++w)
        candidates.push_back({x, y, w, h});
    }
    std::stable_sort(candidates.begin(), candidates.end(), [](const BoxRect& a, const BoxRect& b) {
      if (a.w * a.h != b.w * b.h) return a.w * a.h > b.w * b.h;
      return a.w > b.w;
    });
    for (const BoxRect& r : candidates) {
      if (r.w * r.h == 1 && from == forbidden_) continue;
      setRect(r, 0);
      current_.push_back(r);
      dfs(from + 1, depth + 1);
      current_.pop_back();
      setRect(r, 1);
      if (budget_.stopped || depth + (weight_ + 3) / 4 >= best_) return;
    }
  }

  int W, H;
  std::vector<uint8_t> open_;
  int forbidden_;
  Budget& budget_;
  int weight_ = 0;
  int best_ = 0;
  bool found_ = false;
  std::vector<BoxRect> current_, bestRects_;
  std::unordered_map<std::string, int> memo_;
};

/// Greedy baseline on the open cells of a box: the largest rectangle (then the first top-left in
/// row-major order, then the wider one) until nothing is left.
std::vector<BoxRect> greedyPartition(int W, int H, std::vector<uint8_t> open) {
  std::vector<BoxRect> out;
  auto at = [&](int x, int y) { return open[size_t(y) * W + x] != 0; };
  for (;;) {
    BoxRect best{0, 0, 0, 0};
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        if (!at(x, y)) continue;
        int run = W - x;
        for (int h = 1; y + h - 1 < H; ++h) {
          int r = 0;
          while (r < run && at(x + r, y + h - 1))
            ++r;
          run = r;
          if (run == 0) break;
          if (run * h > best.w * best.h) best = {x, y, run, h};
        }
      }
    if (best.w == 0) break;
    for (int y = best.y; y < best.y + best.h; ++y)
      for (int x = best.x; x < best.x + best.w; ++x)
        open[size_t(y) * W + x] = 0;
    out.push_back(best);
  }
  return out;
}

/// A set of grid cells (a 0/1 map over the grid, row-major).
using CellMap = std::vector<uint8_t>;

struct Block {
  int x0, y0, x1, y1; // inclusive grid coordinates of a gap-free block
};

std::vector<std::pair<int, int>> segments(const std::vector<int>& axis, bool allowGaps) {
  std::vector<std::pair<int, int>> out;
  int n = int(axis.size()), start = 0;
  for (int i = 1; i <= n; ++i)
    if (i == n || (!allowGaps && std::abs(axis[i] - axis[i - 1]) != 1)) {
      out.push_back({start, i - 1});
      start = i;
    }
  return out;
}

/// Cells of `cells` within the block, as a box-local map.
std::vector<uint8_t> boxMap(const CellMap& cells, int cols, const Block& b) {
  int W = b.x1 - b.x0 + 1, H = b.y1 - b.y0 + 1;
  std::vector<uint8_t> m(size_t(W) * H, 0);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      m[size_t(y) * W + x] = cells[size_t(b.y0 + y) * cols + b.x0 + x];
  return m;
}

/// 4-connected components of a box map; comp[i] = component id or -1.
int components(int W, int H, const std::vector<uint8_t>& m, std::vector<int>& comp) {
  comp.assign(m.size(), -1);
  int count = 0;
  std::vector<int> stack;
  for (int i = 0; i < W * H; ++i) {
    if (!m[i] || comp[i] >= 0) continue;
    comp[i] = count;
    stack.push_back(i);
    while (!stack.empty()) {
      int c = stack.back();
      stack.pop_back();
      int x = c % W, y = c / W;
      const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
      for (int k = 0; k < 4; ++k) {
        if (nx[k] < 0 || ny[k] < 0 || nx[k] >= W || ny[k] >= H) continue;
        int j = ny[k] * W + nx[k];
        if (m[j] && comp[j] < 0) {
          comp[j] = count;
          stack.push_back(j);
        }
      }
    }
    ++count;
  }
  return count;
}

/// Solves the cells of one component group (a box-local map) exactly, starting from the greedy
/// incumbent. Appends grid rectangles; returns {count, optimal, lowerBound}.
struct PieceResult {
  std::vector<BoxRect> rects;
  bool optimal = false;
  int lowerBound = 0;
};

PieceResult solvePiece(int W, int H, const std::vector<uint8_t>& m, int forbidden, Budget& budget,
                       const std::vector<BoxRect>* incumbent) {
  PieceResult out;
  PartitionSearch search(W, H, m, forbidden, budget);
  out.lowerBound = search.rootLowerBound();
  int bound = incumbent ? int(incumbent->size()) : W * H + 1;
  if (incumbent) out.rects = *incumbent;
  if (search.run(bound)) out.rects = search.rects();
  out.optimal = search.complete();
  if (out.optimal) out.lowerBound = int(out.rects.size());
  return out;
}

Cover coverBlock(const CellMap& dests, int cols, const Block& b, Core sender, bool senderInSet,
                 CoverMethod method, Budget& budget) {
  Cover cover;
  cover.optimal = true;
  int W = b.x1 - b.x0 + 1, H = b.y1 - b.y0 + 1;
  std::vector<uint8_t> m = boxMap(dests, cols, b);
  auto toGrid = [&](const BoxRect& r) {
    return Rect{b.x0 + r.x, b.y0 + r.y, b.x0 + r.x + r.w - 1, b.y0 + r.y + r.h - 1};
  };
  if (method == CoverMethod::Greedy) {
    for (const BoxRect& r : greedyPartition(W, H, m))
      cover.rects.push_back(toGrid(r));
    cover.optimal = false;
    return cover;
  }
  std::vector<int> comp;
  int n = components(W, H, m, comp);
  // The sender may join the cover when it is no destination but lies in this block next to one:
  // a rectangle through it (without loopback) skips it.
  int sx = sender.x - b.x0, sy = sender.y - b.y0;
  std::vector<char> touches(size_t(n), 0);
  bool senderFree = !senderInSet && sx >= 0 && sy >= 0 && sx < W && sy < H;
  if (senderFree) {
    senderFree = false;
    const int nx[4] = {sx - 1, sx + 1, sx, sx}, ny[4] = {sy, sy, sy - 1, sy + 1};
    for (int k = 0; k < 4; ++k)
      if (nx[k] >= 0 && ny[k] >= 0 && nx[k] < W && ny[k] < H && m[ny[k] * W + nx[k]]) {
        touches[size_t(comp[ny[k] * W + nx[k]])] = 1;
        senderFree = true;
      }
  }
  std::vector<BoxRect> aloneTouching;
  int lbTouching = 0;
  bool optTouching = true;
  for (int c = 0; c < n; ++c) {
    std::vector<uint8_t> piece(m.size(), 0);
    for (size_t i = 0; i < m.size(); ++i)
      piece[i] = comp[i] == c;
    std::vector<BoxRect> greedy = greedyPartition(W, H, piece);
    PieceResult r = solvePiece(W, H, piece, -1, budget, &greedy);
    if (touches[size_t(c)]) {
      aloneTouching.insert(aloneTouching.end(), r.rects.begin(), r.rects.end());
      lbTouching += r.lowerBound;
      optTouching = optTouching && r.optimal;
    } else {
      for (const BoxRect& x : r.rects)
        cover.rects.push_back(toGrid(x));
      cover.lowerBound += r.lowerBound;
      cover.optimal = cover.optimal && r.optimal;
    }
  }
  if (senderFree) {
    std::vector<uint8_t> merged(m.size(), 0);
    for (size_t i = 0; i < m.size(); ++i)
      merged[i] = comp[i] >= 0 && touches[size_t(comp[i])];
    int s = sy * W + sx;
    merged[size_t(s)] = 1;
    PieceResult r = solvePiece(W, H, merged, s, budget, &aloneTouching);
    for (const BoxRect& x : r.rects)
      cover.rects.push_back(toGrid(x));
    cover.lowerBound += std::min(lbTouching, r.lowerBound);
    cover.optimal = cover.optimal && optTouching && r.optimal;
  }
  return cover;
}

std::string setKey(const CellMap& cells, Core sender) {
  std::string k(cells.begin(), cells.end());
  k += std::to_string(sender.x) + "," + std::to_string(sender.y);
  return k;
}

std::string netName(const PipeNet& net) {
  return "pipe net '" + net.id + "'" + (net.location.empty() ? "" : " (" + net.location + ")");
}

bool lifetimesOverlap(const PipeNet& a, const PipeNet& b) {
  return a.lower < b.upper && b.lower < a.upper;
}

} // namespace

NocMapping NocMapping::translated(int rows, int cols, int offset) {
  NocMapping m;
  for (int x = 0; x < cols; ++x)
    m.x.push_back(x + offset);
  for (int y = 0; y < rows; ++y)
    m.y.push_back(y + offset);
  return m;
}

std::string checkMapping(const NocMapping& noc, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return "the grid must have at least one row and one column";
  if (int(noc.x.size()) != cols)
    return "the NoC mapping has " + std::to_string(noc.x.size()) + " x coordinates for " +
           std::to_string(cols) + " columns";
  if (int(noc.y.size()) != rows)
    return "the NoC mapping has " + std::to_string(noc.y.size()) + " y coordinates for " +
           std::to_string(rows) + " rows";
  auto monotonic = [](const std::vector<int>& v) {
    bool up = true, down = true;
    for (size_t i = 1; i < v.size(); ++i) {
      up = up && v[i] > v[i - 1];
      down = down && v[i] < v[i - 1];
    }
    return up || down;
  };
  if (!monotonic(noc.x)) return "the NoC x coordinates are not strictly monotonic over the columns";
  if (!monotonic(noc.y)) return "the NoC y coordinates are not strictly monotonic over the rows";
  return "";
}

NocRect toNoc(const NocMapping& noc, const Rect& r, int nocIndex) {
  int ax = noc.x[size_t(r.x0)], bx = noc.x[size_t(r.x1)];
  int ay = noc.y[size_t(r.y0)], by = noc.y[size_t(r.y1)];
  NocRect out{std::min(ax, bx), std::min(ay, by), std::max(ax, bx), std::max(ay, by)};
  if (nocIndex == 1) {
    std::swap(out.startX, out.endX);
    std::swap(out.startY, out.endY);
  }
  return out;
}

Cover coverSet(int rows, int cols, const NocMapping& noc, bool allowGaps,
               const std::vector<Core>& dests, Core sender, CoverMethod method,
               const SolveLimits& limits) {
  Cover cover;
  if (!checkMapping(noc, rows, cols).empty() || !inGrid(sender, rows, cols) || dests.empty())
    return cover;
  CellMap cells(size_t(rows) * cols, 0);
  for (Core c : dests) {
    if (!inGrid(c, rows, cols)) return Cover{};
    cells[size_t(c.y) * cols + c.x] = 1;
  }
  bool senderInSet = cells[size_t(sender.y) * cols + sender.x] != 0;
  Budget budget;
  budget.limits = limits;
  cover.optimal = true;
  for (auto [y0, y1] : segments(noc.y, allowGaps))
    for (auto [x0, x1] : segments(noc.x, allowGaps)) {
      Cover part =
          coverBlock(cells, cols, Block{x0, y0, x1, y1}, sender, senderInSet, method, budget);
      cover.rects.insert(cover.rects.end(), part.rects.begin(), part.rects.end());
      cover.optimal = cover.optimal && part.optimal;
      cover.lowerBound += part.lowerBound;
    }
  std::sort(cover.rects.begin(), cover.rects.end(), [](const Rect& a, const Rect& b) {
    return std::tie(a.y0, a.x0, a.y1, a.x1) < std::tie(b.y0, b.x0, b.y1, b.x1);
  });
  if (method == CoverMethod::Greedy) cover.lowerBound = 0;
  cover.nodes = budget.nodes;
  return cover;
}

static Result solveUnguarded(const Problem& problem, const Options& options) {
  // The time limit holds for the whole solve (every cover and the semaphore ids); the node limit
  // is per destination set, so that it stays the same on every machine.
  const Deadline deadline = Deadline::in(options.limits.timeLimitSeconds);
  Result result;
  Clock::time_point start = Clock::now();
  result.stats.solver = options.cover == CoverMethod::Exact ? "exact" : "greedy";
  auto finish = [&](SolveStatus status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (status != SolveStatus::Optimal && status != SolveStatus::Feasible) result.solution.reset();
    return result;
  };
  const int rows = problem.rows, cols = problem.cols;
  if (std::string bad = checkMapping(problem.noc, rows, cols); !bad.empty())
    return finish(SolveStatus::Error, bad);
  if (problem.semaphoreLimit <= 0)
    return finish(SolveStatus::Error, "the semaphore limit must be > 0");
  // Input checks, and each net's cores as a map.
  std::vector<CellMap> destMaps;
  for (const PipeNet& net : problem.nets) {
    if (net.noc != 0 && net.noc != 1)
      return finish(SolveStatus::Error, netName(net) + ": NoC must be 0 or 1");
    if (!inGrid(net.sender, rows, cols))
      return finish(SolveStatus::Error, netName(net) + ": sender " + coreText(net.sender) +
                                            " is outside the " + std::to_string(rows) + "x" +
                                            std::to_string(cols) + " grid");
    if (net.dests.empty())
      return finish(SolveStatus::Error, netName(net) + ": no destination cores (num_dests > 0)");
    if (net.upper <= net.lower)
      return finish(SolveStatus::Error, netName(net) + ": empty lifetime");
    CellMap m(size_t(rows) * cols, 0);
    for (Core c : net.dests) {
      if (!inGrid(c, rows, cols))
        return finish(SolveStatus::Error,
                      netName(net) + ": destination " + coreText(c) + " is outside the grid");
      m[size_t(c.y) * cols + c.x] = 1;
    }
    destMaps.push_back(std::move(m));
  }
  // Conflicts: different senders, same bytes, same core, same time.
  const size_t n = problem.nets.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const PipeNet &a = problem.nets[i], &b = problem.nets[j];
      if (a.sender == b.sender || a.dstAddress != b.dstAddress || !lifetimesOverlap(a, b)) continue;
      for (size_t c = 0; c < destMaps[i].size(); ++c)
        if (destMaps[i][c] && destMaps[j][c]) {
          result.conflicts.push_back({i, j, Core{int(c % size_t(cols)), int(c / size_t(cols))}});
          break;
        }
    }
  if (!result.conflicts.empty()) {
    std::string msg;
    for (const Conflict& c : result.conflicts) {
      if (!msg.empty()) msg += "\n";
      msg += netName(problem.nets[c.first]) + " and " + netName(problem.nets[c.second]) +
             " both write core " + coreText(c.core) + " at the same L1 bytes (" +
             std::to_string(problem.nets[c.first].dstAddress) + ") while both are live";
    }
    return finish(SolveStatus::Error, msg);
  }

  // Rectangles, one search per distinct (set, sender).
  Solution solution;
  bool allOptimal = options.cover == CoverMethod::Exact;
  std::map<std::string, Cover> cache;
  for (size_t i = 0; i < n; ++i) {
    const PipeNet& net = problem.nets[i];
    std::string key = setKey(destMaps[i], net.sender);
    auto it = cache.find(key);
    if (it == cache.end()) {
      std::vector<Core> dests;
      for (size_t c = 0; c < destMaps[i].size(); ++c)
        if (destMaps[i][c]) dests.push_back({int(c % size_t(cols)), int(c / size_t(cols))});
      it = cache
               .emplace(key, coverSet(rows, cols, problem.noc, problem.allowGaps, dests, net.sender,
                                      options.cover, within(options.limits, deadline)))
               .first;
      result.stats.nodes += it->second.nodes;
    }
    const Cover& cover = it->second;
    allOptimal = allOptimal && cover.optimal;
    result.rectangleLowerBound += cover.lowerBound;
    bool senderInSet = destMaps[i][size_t(net.sender.y) * cols + net.sender.x] != 0;
    NetPlan plan;
    for (const Rect& r : cover.rects) {
      Multicast mc;
      mc.logical = r;
      mc.noc = toNoc(problem.noc, r, net.noc);
      bool inside = r.contains(net.sender);
      mc.loopback = inside && senderInSet;
      mc.numDests = r.area() - (inside && !senderInSet ? 1 : 0);
      plan.multicasts.push_back(mc);
    }
    plan.receivers =
        int(std::count(destMaps[i].begin(), destMaps[i].end(), 1)) - (senderInSet ? 1 : 0);
    solution.rectangles += int(plan.multicasts.size());
    solution.nets.push_back(std::move(plan));
  }

  // Semaphores: node 2i is net i's ready semaphore, 2i+1 its valid semaphore. Both ids are
  // reserved on every core of the net (the receivers address the sender's semaphore by id).
  std::vector<CellMap> footprint = destMaps;
  for (size_t i = 0; i < n; ++i)
    footprint[i][size_t(problem.nets[i].sender.y) * cols + problem.nets[i].sender.x] = 1;
  auto share = [&](size_t i, size_t j) {
    if (!options.shareSemaphores) return false;
    if (!lifetimesOverlap(problem.nets[i], problem.nets[j])) return true;
    for (size_t c = 0; c < footprint[i].size(); ++c)
      if (footprint[i][c] && footprint[j][c]) return false;
    return true;
  };
  std::vector<std::pair<size_t, size_t>> conflicts;
  for (size_t i = 0; i < n; ++i) {
    conflicts.emplace_back(2 * i, 2 * i + 1);
    for (size_t j = i + 1; j < n; ++j)
      if (!share(i, j))
        for (size_t a = 0; a < 2; ++a)
          for (size_t b = 0; b < 2; ++b)
            conflicts.emplace_back(2 * i + a, 2 * j + b);
  }
  const colouring::Graph graph = colouring::fromEdges(2 * n, conflicts);
  // Lower bound: on one core at one time, every live net needs two ids of its own (without
  // sharing, every net of the program does).
  Infeasibility worst;
  if (!options.shareSemaphores && n > 0) {
    worst.nets.resize(n);
    std::iota(worst.nets.begin(), worst.nets.end(), size_t(0));
    worst.needed = int(2 * n);
    worst.core = problem.nets[0].sender;
  }
  for (size_t c = 0; options.shareSemaphores && c < size_t(rows) * cols; ++c) {
    std::vector<size_t> here;
    for (size_t i = 0; i < n; ++i)
      if (footprint[i][c]) here.push_back(i);
    for (size_t t : here) {
      std::vector<size_t> live;
      for (size_t i : here)
        if (problem.nets[i].lower <= problem.nets[t].lower &&
            problem.nets[t].lower < problem.nets[i].upper)
          live.push_back(i);
      if (int(live.size()) * 2 > worst.needed) {
        worst.needed = int(live.size()) * 2;
        worst.nets = live;
        worst.core = Core{int(c % size_t(cols)), int(c / size_t(cols))};
      }
    }
  }
  auto infeasible = [&](Infeasibility inf) {
    std::string msg = "semaphores: " + std::to_string(inf.needed) + " ids needed on core " +
                      coreText(inf.core) + " but the limit is " +
                      std::to_string(problem.semaphoreLimit) + " per core; nets:";
    for (size_t i : inf.nets)
      msg += std::string(" ") + netName(problem.nets[i]) + ";";
    msg.pop_back();
    result.infeasibility = std::move(inf);
    return finish(SolveStatus::Infeasible, msg);
  };
  if (worst.needed > problem.semaphoreLimit) return infeasible(worst);
  // DSatur first; when it needs more ids than the limit, the exact search per component looks
  // for any colouring within the limit.
  const std::vector<int> unassigned(2 * n, -1);
  std::vector<int> ids = colouring::dsatur(graph, unassigned);
  colouring::Budget budget{within(options.limits, deadline), Clock::now(), 0};
  bool stopped = false, overLimit = false;
  if (colouring::span(ids) > problem.semaphoreLimit)
    for (const std::vector<size_t>& component : colouring::components(graph)) {
      colouring::ComponentResult search = colouring::colourComponent(
          graph, component, unassigned, problem.semaphoreLimit, ids, budget);
      stopped = stopped || !search.finished;
      overLimit = overLimit || (search.finished && search.span > problem.semaphoreLimit);
    }
  result.stats.nodes += budget.nodes;
  if (overLimit) {
    Infeasibility inf = worst;
    inf.nets.resize(n);
    std::iota(inf.nets.begin(), inf.nets.end(), 0);
    inf.needed = problem.semaphoreLimit + 1;
    return infeasible(inf);
  }
  if (stopped)
    return finish(SolveStatus::NoSolution,
                  "semaphores: the node/time limit stopped the id search before it fit");
  for (size_t i = 0; i < n; ++i) {
    solution.nets[i].readySemaphore = ids[2 * i];
    solution.nets[i].validSemaphore = ids[2 * i + 1];
    solution.semaphoreIds = std::max({solution.semaphoreIds, solution.nets[i].readySemaphore + 1,
                                      solution.nets[i].validSemaphore + 1});
  }
  result.solution = std::move(solution);
  return finish(allOptimal ? SolveStatus::Optimal : SolveStatus::Feasible, "");
}

NetsResult buildNets(int rows, int cols, const std::vector<PipeSpec>& pipes) {
  NetsResult out;
  if (rows <= 0 || cols <= 0) {
    out.error = "the grid must have at least one row and one column";
    return out;
  }
  for (const PipeSpec& pipe : pipes) {
    if (!pipe.evaluate) continue;
    std::vector<std::pair<Core, Rect>> seen; // (sender, rectangle) per net of this pipe
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) {
        std::optional<PipeEnds> ends = pipe.evaluate(Core{x, y});
        if (!ends) continue;
        const Rect& d = ends->dst;
        // Built only for an error (this loop runs per core and pipe for every tuned point).
        auto where = [&] {
          return pipe.location + ": pipe '" + pipe.id + "' on core " + coreText({x, y});
        };
        if (!inGrid(ends->src, rows, cols)) {
          out.error = where() + ": sender " + coreText(ends->src) + " is outside the grid";
          return out;
        }
        if (d.x0 > d.x1 || d.y0 > d.y1 || !inGrid({d.x0, d.y0}, rows, cols) ||
            !inGrid({d.x1, d.y1}, rows, cols)) {
          out.error = where() + ": destination " + coreText({d.x0, d.y0}) + " to " +
                      coreText({d.x1, d.y1}) + " is not a rectangle inside the grid";
          return out;
        }
        bool known = false;
        for (const auto& [src, rect] : seen) {
          if (!(src == ends->src)) continue;
          if (rect == d) {
            known = true;
            break;
          }
          if (rect.x0 <= d.x1 && d.x0 <= rect.x1 && rect.y0 <= d.y1 && d.y0 <= rect.y1) {
            out.error = where() + ": sender " + coreText(src) + " sends to " +
                        coreText({rect.x0, rect.y0}) + "-" + coreText({rect.x1, rect.y1}) +
                        " and to the overlapping " + coreText({d.x0, d.y0}) + "-" +
                        coreText({d.x1, d.y1});
            return out;
          }
        }
        if (known) continue;
        seen.push_back({ends->src, d});
        PipeNet net;
        net.id = pipe.id;
        net.location = pipe.location;
        net.source = pipe.source;
        net.sender = ends->src;
        // A sender inside its rectangle is no destination: the multicast skips it.
        for (int yy = d.y0; yy <= d.y1; ++yy)
          for (int xx = d.x0; xx <= d.x1; ++xx)
            if (!(Core{xx, yy} == ends->src)) net.dests.push_back({xx, yy});
        if (net.dests.empty()) {
          out.error = where() + ": sender " + coreText(ends->src) +
                      " is its pipe's only destination; a pipe sends to other cores";
          return out;
        }
        net.noc = pipe.noc;
        net.dstAddress = pipe.dstAddress;
        net.lower = pipe.lower;
        net.upper = pipe.upper;
        out.nets.push_back(std::move(net));
      }
  }
  return out;
}

Result solve(const Problem& problem, const Options& options) {
  return guardedSolve<Result>("multicast", [&] { return solveUnguarded(problem, options); });
}

} // namespace ttlplan::planner::multicast
