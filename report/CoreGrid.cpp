// The core grid: work items per core as a heat map, and each pipe's multicast rectangles.
#include "ttlplan/report/Pictures.h"
#include "ttlplan/report/Svg.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace ttlplan::report {

namespace {

constexpr double kLeft = 46, kTop = 34, kBottom = 56;

/// An XML id from a kernel or pipe name ("@matmul" -> "matmul").
std::string idPart(const std::string& name) {
  std::string out;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') out += c;
  return out.empty() ? "x" : out;
}

/// Cell size so that a grid of `cols` stays within about 560 px.
double cellSize(int cols) {
  return std::clamp(560.0 / std::max(1, cols), 14.0, 44.0);
}

/// Axis labels: x (columns) above, y (rows) on the left.
void gridAxes(Svg& svg, int rows, int cols, double cell) {
  for (int x = 0; x < cols; ++x)
    if (cols <= 16 || x % 2 == 0)
      svg.text(kLeft + cell * (x + 0.5), kTop - 6, std::to_string(x), "middle", "tick", 9);
  for (int y = 0; y < rows; ++y)
    if (rows <= 16 || y % 2 == 0)
      svg.text(kLeft - 6, kTop + cell * (y + 0.5) + 3, std::to_string(y), "end", "tick", 9);
  svg.text(kLeft + cell * cols / 2, 12, "core x (column)", "middle", "axis-title", 11);
  svg.raw(
      fmt::format(R"(<text x="12" y="{:.1f}" text-anchor="middle" font-size="11" )"
                  R"~(class="axis-title" transform="rotate(-90 12 {:.1f})">core y (row)</text>)~",
                  kTop + cell * rows / 2, kTop + cell * rows / 2));
}

/// The grid to draw: the device's when given, else the kernel's.
std::pair<int, int> gridOf(const nlohmann::json& kernel, int rows, int cols) {
  std::vector<int> grid =
      get<std::vector<int>>(field(kernel, "cores", nlohmann::json::object()), "grid", {1, 1});
  int kr = grid.size() == 2 ? grid[0] : 1, kc = grid.size() == 2 ? grid[1] : 1;
  return {std::max(rows, kr), std::max(cols, kc)};
}

} // namespace

std::string coreGrid(const nlohmann::json& kernel, int deviceRows, int deviceCols) {
  auto [rows, cols] = gridOf(kernel, deviceRows, deviceCols);
  if (rows <= 0 || cols <= 0 || rows * cols > 100000) return "";
  const nlohmann::json cores = field(kernel, "cores", nlohmann::json::object());
  std::vector<int> grid = get<std::vector<int>>(cores, "grid", {1, 1});
  // Items per core: from the work ranges, or 1 on each core of the kernel's grid without `work`.
  std::map<std::pair<int, int>, int64_t> items;
  const nlohmann::json work = field(cores, "work", nlohmann::json());
  bool hasWork = work.is_object();
  if (hasWork) {
    for (const auto& r : field(work, "ranges", nlohmann::json::array())) {
      std::vector<int> core = get<std::vector<int>>(r, "core", {});
      if (core.size() == 2) items[{core[0], core[1]}] = get<int64_t>(r, "count", 0);
    }
  } else if (grid.size() == 2) {
    for (int y = 0; y < grid[0]; ++y)
      for (int x = 0; x < grid[1]; ++x)
        items[{x, y}] = 1;
  }
  int64_t most = 1;
  for (const auto& [core, count] : items)
    most = std::max(most, count);
  double cell = cellSize(cols);
  std::string name = get<std::string>(kernel, "name", "?");
  std::string hatch = "idle-" + idPart(name);
  Svg svg(kLeft + cell * cols + 150, kTop + cell * rows + kBottom, "core-grid",
          fmt::format("Core grid of {}: work items per core", name),
          "One cell per core of the device's compute grid; the colour and number give the work "
          "items the core runs; hatched cells are idle.");
  svg.raw(hatchPattern(hatch));
  gridAxes(svg, rows, cols, cell);
  int busy = 0;
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) {
      auto it = items.find({x, y});
      int64_t count = it == items.end() ? 0 : it->second;
      double cx = kLeft + cell * x, cy = kTop + cell * y;
      if (count <= 0) {
        svg.rect(cx, cy, cell, cell, fmt::format("url(#{})", hatch), "core idle",
                 fmt::format("core ({},{}): idle", x, y), R"(stroke="#fff")");
        continue;
      }
      ++busy;
      std::string fill =
          heatColour(most > 1 ? double(count - 1) / double(most - 1) * 0.85 + 0.15 : 0.5);
      svg.rect(cx, cy, cell, cell, fill, "core busy",
               hasWork
                   ? fmt::format("core ({},{}): {} work item{}", x, y, count, count == 1 ? "" : "s")
                   : fmt::format("core ({},{}): runs the kernel", x, y),
               R"(stroke="#fff")");
      if (hasWork && cell >= 18)
        svg.text(cx + cell / 2, cy + cell / 2 + 4, std::to_string(count), "middle", "cell-label",
                 std::min(12.0, cell / 2.5));
    }
  // Legend.
  double lx = kLeft + cell * cols + 16, ly = kTop;
  svg.text(lx, ly + 10, hasWork ? "work items" : "cores", "start", "axis-title", 11);
  if (hasWork) {
    // Up to five steps of the scale, each a distinct item count.
    int steps = int(std::min<int64_t>(5, most));
    for (int i = 0; i < steps; ++i) {
      double t = steps > 1 ? double(i) / double(steps - 1) : 0.0;
      int64_t value = 1 + int64_t(t * double(most - 1) + 0.5);
      double shade = most > 1 ? double(value - 1) / double(most - 1) * 0.85 + 0.15 : 0.5;
      svg.rect(lx, ly + 18 + 16 * i, 14, 14, heatColour(shade));
      svg.text(lx + 20, ly + 29 + 16 * i, std::to_string(value), "start", "tick", 10);
    }
    ly += 18 + 16 * steps;
  } else {
    svg.rect(lx, ly + 18, 14, 14, heatColour(0.5));
    svg.text(lx + 20, ly + 29, "runs the kernel", "start", "tick", 10);
    ly += 36;
  }
  svg.rect(lx, ly + 4, 14, 14, fmt::format("url(#{})", hatch));
  svg.text(lx + 20, ly + 15, "idle", "start", "tick", 10);
  svg.text(kLeft, kTop + cell * rows + 22,
           fmt::format("{} of {} cores busy{}", busy, rows * cols,
                       hasWork
                           ? fmt::format(", {} items, makespan {}", get<int64_t>(work, "items", 0),
                                         get<int64_t>(work, "makespan", 0))
                           : ""),
           "start", "caption", 11);
  return section("Core grid", svg.str());
}

std::string multicastGrids(const nlohmann::json& kernel, int deviceRows, int deviceCols) {
  const nlohmann::json nets =
      field(field(kernel, "multicast", nlohmann::json::object()), "nets", nlohmann::json::array());
  if (!nets.is_array() || nets.empty()) return "";
  auto [rows, cols] = gridOf(kernel, deviceRows, deviceCols);
  if (rows <= 0 || cols <= 0 || rows * cols > 100000) return "";
  // One picture per pipe: its nets (one per sender) in distinct colours.
  std::map<std::string, std::vector<const nlohmann::json*>> byPipe;
  std::vector<std::string> order;
  for (const auto& net : nets) {
    std::string pipe = get<std::string>(net, "pipe", "?");
    if (!byPipe.count(pipe)) order.push_back(pipe);
    byPipe[pipe].push_back(&net);
  }
  double cell = cellSize(cols);
  std::string body;
  for (const std::string& pipe : order) {
    const auto& pipeNets = byPipe[pipe];
    Svg svg(kLeft + cell * cols + 20, kTop + cell * rows + kBottom, "multicast-grid",
            fmt::format("Multicast of {}: {} net{}", pipe, pipeNets.size(),
                        pipeNets.size() == 1 ? "" : "s"),
            "Each net's sender is a filled circle and its multicast rectangles are outlined in "
            "the same colour.");
    gridAxes(svg, rows, cols, cell);
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x)
        svg.rect(kLeft + cell * x, kTop + cell * y, cell, cell, "#f7f7f7", "core", "",
                 R"(stroke="#ddd")");
    for (size_t i = 0; i < pipeNets.size(); ++i) {
      const nlohmann::json& net = *pipeNets[i];
      std::string colour = categoryColour(int(i));
      double inset = 2 + 2.0 * double(i % 4);
      for (const auto& r : field(net, "rectangles", nlohmann::json::array())) {
        std::vector<int> l = get<std::vector<int>>(r, "logical", {});
        if (l.size() != 4) continue;
        int x0 = std::min(l[0], l[2]), x1 = std::max(l[0], l[2]);
        int y0 = std::min(l[1], l[3]), y1 = std::max(l[1], l[3]);
        svg.rect(kLeft + cell * x0 + inset, kTop + cell * y0 + inset,
                 cell * (x1 - x0 + 1) - 2 * inset, cell * (y1 - y0 + 1) - 2 * inset, "none",
                 "mcast-rect",
                 fmt::format("{} net {}: ({},{})-({},{}), {} destinations{}", pipe, i + 1, x0, y0,
                             x1, y1, get<int64_t>(r, "num_dests", 0),
                             get<bool>(r, "loopback", false) ? ", loopback" : ""),
                 fmt::format(R"(stroke="{}" stroke-width="2.5")", colour));
      }
      std::vector<int> s = get<std::vector<int>>(net, "sender", {});
      if (s.size() == 2)
        svg.circle(
            kLeft + cell * (s[0] + 0.5), kTop + cell * (s[1] + 0.5), cell / 4, colour, "sender",
            fmt::format("{} net {}: sender ({},{}) on NoC {}, {} receivers", pipe, i + 1, s[0],
                        s[1], get<int>(net, "noc", 0), get<int64_t>(net, "receivers", 0)),
            R"(stroke="#000" stroke-width="1")");
    }
    svg.text(kLeft, kTop + cell * rows + 22,
             fmt::format("{}: {} sender{} (circles), rectangles outlined", pipe, pipeNets.size(),
                         pipeNets.size() == 1 ? "" : "s"),
             "start", "caption", 11);
    body += svg.str();
  }
  return section("Multicast", "<div class=\"row\">" + body + "</div>",
                 "Per pipe: who sends (circle) to which rectangle of cores (outline, same "
                 "colour).");
}

} // namespace ttlplan::report
