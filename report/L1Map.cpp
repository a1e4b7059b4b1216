// The L1 map and the CB table.
#include "ttlplan/report/Pictures.h"
#include "ttlplan/report/Svg.h"

#include <algorithm>
#include <fmt/format.h>

namespace ttlplan::report {

namespace {

constexpr double kWidth = 920, kLeft = 150, kRight = 20, kTop = 30, kRow = 54, kBar = 36;

/// "2x4" from a CB's block_shape.
std::string shapeText(const nlohmann::json& cb) {
  std::vector<int64_t> shape = get<std::vector<int64_t>>(cb, "block_shape", {});
  return shape.size() == 2 ? fmt::format("{}x{}", shape[0], shape[1]) : "?";
}

} // namespace

std::string l1Map(const nlohmann::json& plan) {
  const nlohmann::json kernels = field(plan, "kernels", nlohmann::json::array());
  if (!kernels.is_array() || kernels.empty()) return "";
  // The axis: from the unreserved base over the free L1. When every kernel uses little of it, the
  // axis stops at 1.5 x the largest use, so that the CBs stay readable, and says so.
  int64_t base = -1, capacity = 0, used = 0;
  for (const auto& k : kernels) {
    const nlohmann::json l1 = field(k, "l1", nlohmann::json::object());
    base = base < 0 ? get<int64_t>(l1, "base", 0) : std::min(base, get<int64_t>(l1, "base", 0));
    capacity = std::max(capacity, get<int64_t>(l1, "capacity", 0));
    used = std::max(used, get<int64_t>(l1, "used", 0));
  }
  if (capacity <= 0) return "";
  bool zoomed = used > 0 && double(used) < 0.25 * double(capacity);
  double span = zoomed ? std::max(1.0, 1.5 * double(used)) : double(capacity);
  double plotWidth = kWidth - kLeft - kRight;
  auto xOf = [&](double address) {
    return kLeft + std::clamp((address - double(base)) / span, 0.0, 1.0) * plotWidth;
  };
  double height = kTop + kRow * double(kernels.size()) + 50;
  Svg svg(kWidth, height, "l1-map", "L1 map: every CB's address range, per kernel",
          "Address in L1 along x from the unreserved base; one row per kernel; one rectangle per "
          "CB; the free headroom hatched.");
  svg.raw(hatchPattern("l1-free"));
  svg.text(kLeft, 16,
           zoomed ? fmt::format("L1 from {} (showing {} of the {} free for CBs)", thousands(base),
                                bytesText(span), bytesText(double(capacity)))
                  : fmt::format("L1 from {} ({} free for CBs)", thousands(base),
                                bytesText(double(capacity))),
           "start", "axis-title", 12);
  int cbIndex = 0;
  for (size_t row = 0; row < kernels.size(); ++row) {
    const auto& k = kernels[row];
    double y = kTop + kRow * double(row);
    svg.text(kLeft - 8, y + kBar / 2 + 4, get<std::string>(k, "name", "?"), "end", "kernel-name",
             12);
    const nlohmann::json l1 = field(k, "l1", nlohmann::json::object());
    int64_t kUsed = get<int64_t>(l1, "used", 0), kCap = get<int64_t>(l1, "capacity", 0);
    int64_t kBase = get<int64_t>(l1, "base", base);
    // Free headroom first, under the CBs.
    double freeX = xOf(double(kBase + kUsed));
    svg.rect(freeX, y, kLeft + plotWidth - freeX, kBar, "url(#l1-free)", "l1-free",
             fmt::format("{}: {} B free ({:.1f} % of L1 for CBs)", get<std::string>(k, "name", ""),
                         thousands(kCap - kUsed),
                         kCap > 0 ? 100.0 * double(kCap - kUsed) / double(kCap) : 0.0));
    for (const auto& cb : field(k, "cbs", nlohmann::json::array())) {
      int64_t address = get<int64_t>(cb, "address", 0), bytes = get<int64_t>(cb, "bytes", 0);
      std::string name = get<std::string>(cb, "name", "?");
      std::string fill = categoryColour(cbIndex++);
      double x0 = xOf(double(address)), x1 = xOf(double(address + bytes));
      std::string tip = fmt::format(
          "{}: [{}, {}) {} B, {} x {} block{}, {}{}", name, thousands(address),
          thousands(address + bytes), thousands(bytes), get<int64_t>(cb, "block_count", 0),
          shapeText(cb), get<int64_t>(cb, "block_count", 0) == 1 ? "" : "s",
          get<std::string>(cb, "data_type", ""),
          get<bool>(cb, "intermediate", false) ? ", DST split" : "");
      svg.rect(x0, y, std::max(1.0, x1 - x0), kBar, fill, "cb", tip,
               R"(stroke="#fff" stroke-width="1")");
      // Labels where they fit: the name, and the bytes under it.
      if (x1 - x0 > 7.0 * double(name.size()))
        svg.text((x0 + x1) / 2, y + 15, name, "middle", "cb-label", 11);
      if (x1 - x0 > 60)
        svg.text((x0 + x1) / 2, y + 29, bytesText(double(bytes)), "middle", "cb-label", 10);
    }
  }
  // The address axis.
  double axisY = kTop + kRow * double(kernels.size()) - 10;
  svg.line(kLeft, axisY, kLeft + plotWidth, axisY, "#333");
  for (int t = 0; t <= 4; ++t) {
    double address = double(base) + span * t / 4;
    double x = xOf(address);
    svg.line(x, axisY, x, axisY + 5, "#333");
    svg.text(x, axisY + 18, thousands(int64_t(address)),
             t == 0   ? "start"
             : t == 4 ? "end"
                      : "middle",
             "tick", 10);
  }
  svg.text(kLeft + plotWidth / 2, axisY + 36, "L1 address (bytes)", "middle", "axis-title", 11);
  return section("L1 map", svg.str(),
                 "Each rectangle is a CB (hover for its range); hatched: L1 free for more or "
                 "deeper CBs.");
}

std::string cbTable(const nlohmann::json& kernel) {
  const nlohmann::json cbs = field(kernel, "cbs", nlohmann::json::array());
  if (!cbs.is_array() || cbs.empty()) return "";
  std::string rows;
  for (const auto& cb : cbs) {
    int64_t address = get<int64_t>(cb, "address", 0);
    rows += fmt::format("<tr><td>{}</td><td><code>{}</code>{}</td><td class=\"num\">[{}, {})</td>"
                        "<td class=\"num\">{}</td><td class=\"num\">{}{}</td><td>{}</td><td>{}</td>"
                        "<td><code>{}</code></td></tr>\n",
                        get<int64_t>(cb, "index", -1), escape(get<std::string>(cb, "name", "?")),
                        get<bool>(cb, "intermediate", false) ? " <small>(DST split)</small>" : "",
                        thousands(address), thousands(get<int64_t>(cb, "end", address)),
                        thousands(get<int64_t>(cb, "bytes", 0)), get<int64_t>(cb, "block_count", 0),
                        get<bool>(cb, "chosen_by_planner", false) ? "*" : "", shapeText(cb),
                        escape(get<std::string>(cb, "data_type", "")),
                        escape(get<std::string>(cb, "location", "")));
  }
  std::string notes;
  for (const auto& n : field(field(kernel, "l1", nlohmann::json::object()), "block_count_choices",
                             nlohmann::json::array()))
    if (n.is_string()) notes += fmt::format("<li>{}</li>", escape(n.get<std::string>()));
  return section(
      "Circular buffers",
      "<table class=\"cbs\"><thead><tr><th>index</th><th>name</th><th>L1 range</th><th>bytes</th>"
      "<th>blocks</th><th>block</th><th>type</th><th>source</th></tr></thead><tbody>\n" +
          rows + "</tbody></table>" +
          (notes.empty() ? "" : "<ul class=\"notes\">" + notes + "</ul>"),
      "blocks*: a `?` depth the planner chose.");
}

} // namespace ttlplan::report
