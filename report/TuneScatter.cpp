// `tune --html`: every evaluated point, the Pareto front, the pick and ttnn's default.
#include "ttlplan/report/Pictures.h"
#include "ttlplan/report/Svg.h"
#include "ttlplan/support/JsonText.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace ttlplan::report {

namespace {

constexpr const char* kBounds[] = {"compute", "dram", "noc", "latency", "imbalance"};
/// Points drawn at most (the Pareto front always); more are thinned evenly.
constexpr size_t kMaxDrawn = 4000;

int boundIndex(const std::string& bound) {
  for (int i = 0; i < 5; ++i)
    if (bound == kBounds[i]) return i;
  return 7;
}

std::string bindingText(const nlohmann::json& record) {
  std::string out;
  // Copies: items() refers into the object it iterates.
  const nlohmann::json binding = field(record, "binding", nlohmann::json::object());
  const nlohmann::json counts = field(record, "block_counts", nlohmann::json::object());
  for (const auto& [name, value] : binding.items())
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", name,
                       value.is_string() ? value.get<std::string>() : jsonText(value));
  for (const auto& [name, value] : counts.items())
    out += fmt::format("{}block_count({})={}", out.empty() ? "" : " ", name, jsonText(value));
  return out.empty() ? "(no free knobs)" : out;
}

} // namespace

std::string tuneScatter(const nlohmann::json& tune) {
  const nlohmann::json points = field(tune, "points", nlohmann::json::array());
  if (!points.is_array() || points.empty()) return "";
  std::vector<double> ns, bytes;
  std::vector<std::string> bound;
  for (const auto& p : points) {
    ns.push_back(get<double>(p, "predicted_ns", 0));
    bytes.push_back(get<double>(p, "l1_bytes", 0));
    bound.push_back(get<std::string>(p, "bound", ""));
  }
  std::vector<size_t> pareto = get<std::vector<size_t>>(tune, "pareto", {});
  std::set<size_t> onFront(pareto.begin(), pareto.end());
  double xMax = *std::max_element(bytes.begin(), bytes.end());
  double yMin = *std::min_element(ns.begin(), ns.end());
  double yMax = *std::max_element(ns.begin(), ns.end());
  for (const char* key : {"best", "pick", "baseline"}) {
    const nlohmann::json r = field(tune, key, nlohmann::json());
    if (!r.is_object() || !r.contains("predicted_ns") || !r["predicted_ns"].is_number()) continue;
    xMax = std::max(xMax, get<double>(r, "l1_bytes", 0));
    yMin = std::min(yMin, get<double>(r, "predicted_ns", yMin));
    yMax = std::max(yMax, get<double>(r, "predicted_ns", yMax));
  }
  yMin = std::max(yMin, 1.0);
  yMax = std::max(yMax, yMin * 1.01);
  bool logY = yMax / yMin > 20;
  constexpr double width = 900, height = 520, left = 80, right = 150, top = 30, bottom = 60;
  double plotW = width - left - right, plotH = height - top - bottom;
  auto xOf = [&](double b) { return left + plotW * (xMax > 0 ? b / (xMax * 1.05) : 0); };
  auto yOf = [&](double v) {
    double t = logY ? (std::log10(std::max(v, yMin)) - std::log10(yMin)) /
                          (std::log10(yMax) - std::log10(yMin))
                    : (v - yMin) / (yMax - yMin);
    return top + plotH * (1 - (0.03 + 0.94 * t));
  };
  size_t stride = points.size() > kMaxDrawn ? (points.size() + kMaxDrawn - 1) / kMaxDrawn : 1;
  size_t drawn = 0;
  Svg svg(width, height, "tune-scatter", "Every evaluated point: predicted time against L1 bytes",
          "One dot per feasible point, coloured by what bounds it; the line is the Pareto front "
          "(nothing is both faster and smaller); the ring is the pick, the diamond ttnn's "
          "default config.");
  // Axes with ticks.
  svg.line(left, top + plotH, left + plotW, top + plotH, "#333");
  svg.line(left, top, left, top + plotH, "#333");
  for (int t = 0; t <= 4; ++t) {
    double b = xMax * 1.05 * t / 4;
    svg.line(xOf(b), top + plotH, xOf(b), top + plotH + 4, "#333");
    svg.text(xOf(b), top + plotH + 16, bytesText(b), "middle", "tick", 10);
    double v = logY ? yMin * std::pow(yMax / yMin, (t / 4.0 - 0.03) / 0.94)
                    : yMin + (yMax - yMin) * (t / 4.0 - 0.03) / 0.94;
    if (v <= 0) v = yMin;
    svg.line(left - 4, yOf(v), left, yOf(v), "#333");
    svg.text(left - 6, yOf(v) + 3, timeText(v), "end", "tick", 10);
  }
  svg.text(left + plotW / 2, height - 18, "L1 bytes of the plan's CBs", "middle", "axis-title", 12);
  svg.raw(fmt::format(
      R"(<text x="16" y="{:.1f}" text-anchor="middle" font-size="12" )"
      R"~(class="axis-title" transform="rotate(-90 16 {:.1f})">predicted time{}</text>)~",
      top + plotH / 2, top + plotH / 2, logY ? " (log scale)" : ""));
  for (size_t i = 0; i < points.size(); ++i) {
    if (i % stride != 0 && !onFront.count(i)) continue;
    ++drawn;
    svg.circle(xOf(bytes[i]), yOf(ns[i]), 2.6, categoryColour(boundIndex(bound[i])), "point",
               fmt::format("{} at {} B, {}-bound", timeText(ns[i]), thousands(int64_t(bytes[i])),
                           bound[i]),
               R"(fill-opacity="0.65")");
  }
  std::string front;
  for (size_t i : pareto)
    if (i < points.size()) front += fmt::format("{:.1f},{:.1f} ", xOf(bytes[i]), yOf(ns[i]));
  if (!front.empty())
    svg.raw(fmt::format(R"(<polyline class="pareto" points="{}" fill="none" stroke="#000" )"
                        R"(stroke-width="1.5"><title>Pareto front: {} points</title></polyline>)",
                        front, pareto.size()));
  // The pick (tt-mlir's rule's config or the best point; docs/tuning.md), or the best point in a
  // JSON written before the pick was.
  const nlohmann::json best = field(tune, "pick", field(tune, "best", nlohmann::json()));
  if (best.is_object() && field(best, "predicted_ns", nlohmann::json()).is_number())
    svg.circle(xOf(get<double>(best, "l1_bytes", 0)), yOf(get<double>(best, "predicted_ns", 0)), 8,
               "none", "pick",
               fmt::format("the pick: {}, {}", timeText(get<double>(best, "predicted_ns", 0)),
                           bindingText(best)),
               R"(stroke="#000" stroke-width="2.5")");
  const nlohmann::json baseline = field(tune, "baseline", nlohmann::json());
  if (baseline.is_object() && field(baseline, "predicted_ns", nlohmann::json()).is_number()) {
    double x = xOf(get<double>(baseline, "l1_bytes", 0));
    double y = yOf(get<double>(baseline, "predicted_ns", 0));
    svg.raw(fmt::format(R"(<polygon class="baseline" points="{:.1f},{:.1f} {:.1f},{:.1f} )"
                        R"({:.1f},{:.1f} {:.1f},{:.1f}" fill="#fff" stroke="#d55e00" )"
                        R"(stroke-width="2.5"><title>ttnn's default config: {}</title></polygon>)",
                        x, y - 8, x + 8, y, x, y + 8, x - 8, y,
                        escape(timeText(get<double>(baseline, "predicted_ns", 0)))));
  }
  // Legend.
  double lx = left + plotW + 16, ly = top + 4;
  for (int b = 0; b < 5; ++b) {
    svg.circle(lx + 5, ly + 16 * b + 5, 4, categoryColour(b));
    svg.text(lx + 14, ly + 16 * b + 9, std::string(kBounds[b]) + "-bound", "start", "tick", 10);
  }
  ly += 16 * 5 + 10;
  svg.line(lx, ly + 5, lx + 12, ly + 5, "#000", 1.5);
  svg.text(lx + 16, ly + 9, "Pareto front", "start", "tick", 10);
  svg.circle(lx + 6, ly + 25, 6, "none", "", "", R"(stroke="#000" stroke-width="2")");
  svg.text(lx + 16, ly + 29, "pick", "start", "tick", 10);
  svg.raw(
      fmt::format(R"(<polygon points="{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}" )"
                  R"(fill="#fff" stroke="#d55e00" stroke-width="2"/>)",
                  lx + 6, ly + 39, lx + 12, ly + 45, lx + 6, ly + 51, lx, ly + 45));
  svg.text(lx + 16, ly + 49, "ttnn default", "start", "tick", 10);
  return section("Every evaluated point", svg.str(),
                 fmt::format("{} feasible points{}; lower is faster, left uses less L1.",
                             thousands(int64_t(points.size())),
                             drawn < points.size()
                                 ? fmt::format(" ({} drawn: every {}th and the whole front)",
                                               thousands(int64_t(drawn)), stride)
                                 : ""));
}

std::string tuneTables(const nlohmann::json& tune) {
  auto table = [](const nlohmann::json& records, const std::string& first) {
    std::string rows;
    size_t rank = 0;
    for (const auto& r : records) {
      ++rank;
      rows += fmt::format(
          "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">"
          "{}</td><td class=\"num\">{}</td><td><code>{}</code></td></tr>",
          first.empty() ? std::to_string(rank) : first, timeText(get<double>(r, "predicted_ns", 0)),
          escape(get<std::string>(r, "bound", "")), thousands(get<int64_t>(r, "l1_bytes", 0)),
          get<int64_t>(r, "cores", 0), escape(bindingText(r)));
    }
    return rows;
  };
  const nlohmann::json top = field(tune, "top", nlohmann::json::array());
  std::string rows = table(top, "");
  const nlohmann::json baseline = field(tune, "baseline", nlohmann::json());
  if (baseline.is_object()) rows += table(nlohmann::json::array({baseline}), "ttnn");
  std::string head = "<table class=\"top\"><thead><tr><th>rank</th><th>predicted</th>"
                     "<th>bound</th><th>L1 bytes</th><th>cores</th><th>point</th></tr></thead>"
                     "<tbody>";
  std::string out = section("Top points", head + rows + "</tbody></table>",
                            "The best points found, fastest first; `ttnn`: ttnn's default config "
                            "evaluated the same way.");
  const nlohmann::json points = field(tune, "points", nlohmann::json::array());
  std::string frontRows;
  for (size_t i : get<std::vector<size_t>>(tune, "pareto", {}))
    if (points.is_array() && i < points.size())
      frontRows += fmt::format("<tr><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                               "<td>{}</td></tr>",
                               thousands(get<int64_t>(points[i], "l1_bytes", 0)),
                               timeText(get<double>(points[i], "predicted_ns", 0)),
                               escape(get<std::string>(points[i], "bound", "")));
  if (!frontRows.empty())
    out += section("Pareto front",
                   "<table class=\"pareto\"><thead><tr><th>L1 bytes</th><th>predicted</th>"
                   "<th>bound</th></tr></thead><tbody>" +
                       frontRows + "</tbody></table>",
                   "No other point is both faster and uses fewer L1 bytes: what more L1 buys.");
  return out;
}

} // namespace ttlplan::report
