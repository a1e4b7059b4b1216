// The cost breakdown: the critical core's threads and the analytic bounds; the trade-offs.
#include "ttlplan/report/Pictures.h"
#include "ttlplan/report/Svg.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace ttlplan::report {

namespace {

struct Part {
  const char* key;   ///< the thread's JSON field
  const char* label; ///< legend
  const char* colour;
};
constexpr std::array<Part, 5> kParts = {{{"busy_cycles", "busy", "#0072b2"},
                                         {"stall_cb_full_cycles", "waits: CB full", "#e69f00"},
                                         {"stall_cb_empty_cycles", "waits: CB empty", "#f0e442"},
                                         {"stall_transfer_cycles", "waits: DRAM", "#cc79a7"},
                                         {"stall_net_cycles", "waits: multicast", "#56b4e9"}}};

} // namespace

std::string costBars(const nlohmann::json& k) {
  const nlohmann::json critical = field(k, "critical_core", nlohmann::json::object());
  const nlohmann::json threads = field(critical, "threads", nlohmann::json::array());
  if (!threads.is_array() || threads.empty()) return "";
  double most = 1;
  for (const auto& t : threads) {
    double sum = 0;
    for (const Part& p : kParts)
      sum += std::max(0.0, get<double>(t, p.key, 0));
    most = std::max({most, sum, get<double>(t, "end_cycles", 0)});
  }
  constexpr double left = 90, width = 880, plot = width - left - 30, row = 34, bar = 22, top = 30;
  double height = top + row * double(threads.size()) + 80;
  Svg svg(width, height, "cost-bars",
          fmt::format("Critical core of {}: where each thread's cycles go",
                      get<std::string>(k, "kernel", "?")),
          "Per thread of the core that finishes last: cycles busy and cycles waiting, stacked, "
          "on a common cycle axis.");
  svg.text(left, 16,
           fmt::format("{} ({} core{} like it)", get<std::string>(critical, "class", "?"),
                       get<int64_t>(critical, "cores", 1),
                       get<int64_t>(critical, "cores", 1) == 1 ? "" : "s"),
           "start", "axis-title", 11);
  for (size_t i = 0; i < threads.size(); ++i) {
    const auto& t = threads[i];
    double y = top + row * double(i), x = left;
    std::string name = get<std::string>(t, "thread", "?");
    svg.text(left - 8, y + bar / 2 + 4, name, "end", "thread-name", 11);
    for (const Part& p : kParts) {
      double cycles = std::max(0.0, get<double>(t, p.key, 0));
      double w = plot * cycles / most;
      if (w <= 0) continue;
      svg.rect(x, y, w, bar, p.colour, "cost-part",
               fmt::format("{}: {} {:.0f} cycles", name, p.label, cycles));
      x += w;
    }
  }
  double axisY = top + row * double(threads.size()) + 2;
  svg.line(left, axisY, left + plot, axisY, "#333");
  for (int t = 0; t <= 4; ++t) {
    double x = left + plot * t / 4;
    svg.line(x, axisY, x, axisY + 4, "#333");
    svg.text(x, axisY + 16, thousands(int64_t(most * t / 4)),
             t == 0   ? "start"
             : t == 4 ? "end"
                      : "middle",
             "tick", 10);
  }
  svg.text(left + plot / 2, axisY + 32, "cycles", "middle", "axis-title", 11);
  double lx = left;
  for (const Part& p : kParts) {
    svg.rect(lx, axisY + 44, 12, 12, p.colour);
    svg.text(lx + 16, axisY + 54, p.label, "start", "tick", 10);
    lx += 30 + 6.5 * double(std::string(p.label).size());
  }
  // The bounds as a table: which one binds is the kernel's "bound".
  const nlohmann::json bounds = field(k, "bounds_cycles", nlohmann::json::object());
  std::string bound = get<std::string>(k, "bound", "");
  std::string rows;
  for (const char* name : {"compute", "dram", "noc", "latency", "imbalance"})
    rows += fmt::format("<tr{}><td>{}</td><td class=\"num\">{}</td></tr>",
                        bound == name ? " class=\"binding\"" : "", name,
                        thousands(int64_t(get<double>(bounds, name, 0) + 0.5)));
  std::string stalls;
  for (const auto& s : field(critical, "cb_stalls", nlohmann::json::array()))
    if (get<double>(s, "stall_cycles", 0) >= 0.5)
      stalls += fmt::format("{}<code>{}</code> {}", stalls.empty() ? "" : ", ",
                            escape(get<std::string>(s, "cb", "?")),
                            thousands(int64_t(get<double>(s, "stall_cycles", 0) + 0.5)));
  return section(
      "Cost breakdown",
      fmt::format("<p>Predicted <b>{}</b> ({} cycles), utilisation {:.1f} %, bound: "
                  "<b>{}</b>.</p>",
                  timeText(get<double>(k, "predicted_ns", 0)),
                  thousands(int64_t(get<double>(k, "cycles", 0) + 0.5)),
                  100 * get<double>(k, "utilization", 0), escape(bound)) +
          svg.str() +
          "<table class=\"bounds\"><thead><tr><th>bound</th><th>cycles</th></tr></thead><tbody>" +
          rows + "</tbody></table>" +
          (stalls.empty() ? "" : "<p>Cycles waited on each CB: " + stalls + ".</p>"),
      "The bound in bold is the largest part; docs/cost-model.md defines each.");
}

std::string tradeoffList(const nlohmann::json& tradeoffs) {
  if (!tradeoffs.is_array() || tradeoffs.empty()) return "";
  std::string items;
  for (const auto& t : tradeoffs) {
    std::optional<double> percent;
    if (t.is_object() && t.contains("cost_percent") && t["cost_percent"].is_number())
      percent = t["cost_percent"].get<double>();
    std::string badge = !percent ? ""
                                 : fmt::format(" <span class=\"{}\">{:+.1f} %</span>",
                                               *percent >= 0.5 ? "costly" : "free", *percent);
    items += fmt::format("<li><b>{}</b>{}: {}</li>", escape(get<std::string>(t, "kind", "")), badge,
                         escape(get<std::string>(t, "text", "")));
  }
  return section("Trade-offs", "<ul class=\"tradeoffs\">" + items + "</ul>",
                 "What the plan's choices cost, priced by the cost model against the alternative "
                 "named (docs/plan.md, \"Trade-offs\").");
}

} // namespace ttlplan::report
