// The independent multicast checker: shares no code with the solver (Solve.cpp).
#include "ttlplan/planner/multicast/Problem.h"

#include <algorithm>
#include <cstdlib>

namespace ttlplan::planner::multicast {

std::string_view toString(Validity validity) {
  switch (validity) {
  case Validity::Valid:
    return "valid";
  case Validity::InvalidProblem:
    return "invalid problem";
  case Validity::ConflictingNets:
    return "conflicting nets";
  case Validity::WrongNetCount:
    return "wrong net count";
  case Validity::RectangleOutsideGrid:
    return "rectangle outside the grid";
  case Validity::SpansGap:
    return "rectangle spans a gap in the NoC mapping";
  case Validity::ExtraCore:
    return "rectangle writes a core that is not a destination";
  case Validity::NotCovered:
    return "destination not covered";
  case Validity::Overlap:
    return "rectangles overlap";
  case Validity::WrongLoopback:
    return "wrong loopback flag";
  case Validity::WrongNumDests:
    return "wrong num_dests";
  case Validity::WrongNocCoordinates:
    return "wrong NoC coordinates";
  case Validity::WrongReceivers:
    return "wrong receiver count";
  case Validity::SemaphoreOutOfRange:
    return "semaphore id out of range";
  case Validity::SemaphoreClash:
    return "semaphore ids clash";
  case Validity::WrongTotals:
    return "wrong totals";
  }
  return "?";
}

namespace {

bool strictlyMonotonic(const std::vector<int>& v) {
  int dir = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    int d = v[i] > v[i - 1] ? 1 : v[i] < v[i - 1] ? -1 : 0;
    if (d == 0 || (dir != 0 && d != dir)) return false;
    dir = d;
  }
  return true;
}

} // namespace

Validity validate(const Problem& problem, const Solution& solution) {
  const int rows = problem.rows, cols = problem.cols;
  if (rows <= 0 || cols <= 0 || int(problem.noc.x.size()) != cols ||
      int(problem.noc.y.size()) != rows || !strictlyMonotonic(problem.noc.x) ||
      !strictlyMonotonic(problem.noc.y) || problem.semaphoreLimit <= 0)
    return Validity::InvalidProblem;
  const size_t cells = size_t(rows) * size_t(cols);
  auto index = [cols](int x, int y) { return size_t(y) * size_t(cols) + size_t(x); };
  auto inside = [&](int x, int y) { return x >= 0 && y >= 0 && x < cols && y < rows; };
  std::vector<std::vector<char>> isDest;
  for (const PipeNet& net : problem.nets) {
    if ((net.noc != 0 && net.noc != 1) || !inside(net.sender.x, net.sender.y) ||
        net.dests.empty() || net.upper <= net.lower)
      return Validity::InvalidProblem;
    std::vector<char> m(cells, 0);
    for (const Core& c : net.dests) {
      if (!inside(c.x, c.y)) return Validity::InvalidProblem;
      m[index(c.x, c.y)] = 1;
    }
    isDest.push_back(std::move(m));
  }
  auto live = [](const PipeNet& a, const PipeNet& b) {
    return std::max(a.lower, b.lower) < std::min(a.upper, b.upper);
  };
  const size_t n = problem.nets.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i; ++j) {
      const PipeNet &a = problem.nets[i], &b = problem.nets[j];
      if (a.sender.x == b.sender.x && a.sender.y == b.sender.y) continue;
      if (a.dstAddress != b.dstAddress || !live(a, b)) continue;
      for (size_t c = 0; c < cells; ++c)
        if (isDest[i][c] && isDest[j][c]) return Validity::ConflictingNets;
    }
  if (solution.nets.size() != n) return Validity::WrongNetCount;

  int rectangles = 0, ids = 0;
  for (size_t i = 0; i < n; ++i) {
    const PipeNet& net = problem.nets[i];
    const NetPlan& plan = solution.nets[i];
    const bool senderIsDest = isDest[i][index(net.sender.x, net.sender.y)] != 0;
    std::vector<int> inRects(cells, 0), delivered(cells, 0);
    for (const Multicast& mc : plan.multicasts) {
      const Rect& r = mc.logical;
      if (r.x0 > r.x1 || r.y0 > r.y1 || !inside(r.x0, r.y0) || !inside(r.x1, r.y1))
        return Validity::RectangleOutsideGrid;
      if (!problem.allowGaps) {
        for (int x = r.x0; x < r.x1; ++x)
          if (std::abs(problem.noc.x[size_t(x) + 1] - problem.noc.x[size_t(x)]) != 1)
            return Validity::SpansGap;
        for (int y = r.y0; y < r.y1; ++y)
          if (std::abs(problem.noc.y[size_t(y) + 1] - problem.noc.y[size_t(y)]) != 1)
            return Validity::SpansGap;
      }
      bool senderInside = net.sender.x >= r.x0 && net.sender.x <= r.x1 && net.sender.y >= r.y0 &&
                          net.sender.y <= r.y1;
      if (mc.loopback != (senderInside && senderIsDest)) return Validity::WrongLoopback;
      int written = 0;
      for (int y = r.y0; y <= r.y1; ++y)
        for (int x = r.x0; x <= r.x1; ++x) {
          ++inRects[index(x, y)];
          bool isSender = x == net.sender.x && y == net.sender.y;
          if (isSender && !mc.loopback) continue; // the hardware skips the sender
          ++written;
          ++delivered[index(x, y)];
        }
      if (written == 0 || mc.numDests != written) return Validity::WrongNumDests;
      // NoC corners: NOC0 goes from the low corner to the high one, NOC1 the other way.
      int nx0 = problem.noc.x[size_t(r.x0)], nx1 = problem.noc.x[size_t(r.x1)];
      int ny0 = problem.noc.y[size_t(r.y0)], ny1 = problem.noc.y[size_t(r.y1)];
      int lowX = nx0 < nx1 ? nx0 : nx1, highX = nx0 < nx1 ? nx1 : nx0;
      int lowY = ny0 < ny1 ? ny0 : ny1, highY = ny0 < ny1 ? ny1 : ny0;
      bool ok = net.noc == 0 ? (mc.noc.startX == lowX && mc.noc.startY == lowY &&
                                mc.noc.endX == highX && mc.noc.endY == highY)
                             : (mc.noc.startX == highX && mc.noc.startY == highY &&
                                mc.noc.endX == lowX && mc.noc.endY == lowY);
      if (!ok) return Validity::WrongNocCoordinates;
    }
    for (size_t c = 0; c < cells; ++c)
      if (inRects[c] > 1) return Validity::Overlap;
    for (size_t c = 0; c < cells; ++c)
      if (delivered[c] && !isDest[i][c]) return Validity::ExtraCore;
    for (size_t c = 0; c < cells; ++c)
      if (isDest[i][c] && !delivered[c]) return Validity::NotCovered;
    int destCount = 0;
    for (size_t c = 0; c < cells; ++c)
      destCount += isDest[i][c];
    if (plan.receivers != destCount - (senderIsDest ? 1 : 0)) return Validity::WrongReceivers;
    for (int id : {plan.readySemaphore, plan.validSemaphore})
      if (id < 0 || id >= problem.semaphoreLimit) return Validity::SemaphoreOutOfRange;
    if (plan.readySemaphore == plan.validSemaphore) return Validity::SemaphoreClash;
    rectangles += int(plan.multicasts.size());
    ids = std::max({ids, plan.readySemaphore + 1, plan.validSemaphore + 1});
  }
  // Per core: the ids of every net that touches it (sender or destination) and is live at the
  // same time as another such net must differ.
  for (size_t c = 0; c < cells; ++c) {
    std::vector<size_t> here;
    for (size_t i = 0; i < n; ++i) {
      const PipeNet& net = problem.nets[i];
      if (isDest[i][c] || index(net.sender.x, net.sender.y) == c) here.push_back(i);
    }
    for (size_t a = 0; a < here.size(); ++a)
      for (size_t b = 0; b < a; ++b) {
        const NetPlan &p = solution.nets[here[a]], &q = solution.nets[here[b]];
        if (!live(problem.nets[here[a]], problem.nets[here[b]])) continue;
        if (p.readySemaphore == q.readySemaphore || p.readySemaphore == q.validSemaphore ||
            p.validSemaphore == q.readySemaphore || p.validSemaphore == q.validSemaphore)
          return Validity::SemaphoreClash;
      }
  }
  if (rectangles != solution.rectangles || ids != solution.semaphoreIds)
    return Validity::WrongTotals;
  return Validity::Valid;
}

} // namespace ttlplan::planner::multicast
