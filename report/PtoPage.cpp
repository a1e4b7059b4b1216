// The pto target's page (`plan --target pto --html`, `cost --target pto --html`; Html.h): per
// kernel the map of each on-chip memory, the buffer table, the event ids per pipe pair and, when
// costed, each pipe's busy cycles per work item and the instructions behind them.
#include "ttlplan/report/Html.h"
#include "ttlplan/report/Pictures.h"
#include "ttlplan/report/Svg.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace ttlplan::report {

namespace {

using json = nlohmann::json;

/// One row per memory a kernel uses, one rectangle per slot, the free room hatched.
std::string memoryMap(const json& kernel) {
  const json memories = field(kernel, "memories", json::array());
  const json buffers = field(kernel, "buffers", json::array());
  if (!memories.is_array() || memories.empty()) return "";
  constexpr double kWidth = 920, kLeft = 70, kRight = 20, kTop = 24, kRow = 50, kBar = 32;
  const double plot = kWidth - kLeft - kRight;
  Svg svg(kWidth, kTop + kRow * double(memories.size()) + 16, "pto-memory-map",
          fmt::format("On-chip memories of {}", get<std::string>(kernel, "name", "?")),
          "One row per memory (UB, L1, L0A, L0B, L0C), its room for tiles along x; one rectangle "
          "per slot of a buffer at its TASSIGN offset; the free room hatched.");
  svg.raw(hatchPattern("pto-free"));
  std::map<std::string, int> colourOf;
  for (size_t row = 0; row < memories.size(); ++row) {
    const json& m = memories[row];
    const std::string name = get<std::string>(m, "memory", "?");
    const double capacity = std::max<double>(1, double(get<int64_t>(m, "capacity", 0)));
    const double y = kTop + kRow * double(row);
    auto xOf = [&](double offset) {
      return kLeft + std::clamp(offset / capacity, 0.0, 1.0) * plot;
    };
    svg.text(kLeft - 8, y + kBar / 2 + 4, name, "end", "memory-name", 12);
    const int64_t used = get<int64_t>(m, "used", 0);
    svg.rect(xOf(double(used)), y, kLeft + plot - xOf(double(used)), kBar, "url(#pto-free)", "free",
             fmt::format("{}: {} of {} B free", name, thousands(get<int64_t>(m, "free", 0)),
                         thousands(int64_t(capacity))));
    for (const json& b : buffers) {
      if (get<std::string>(b, "memory", "") != name) continue;
      const std::string buffer = get<std::string>(b, "name", "?");
      const int colour = colourOf.emplace(buffer, int(colourOf.size())).first->second;
      const int64_t bytes = get<int64_t>(b, "slot_bytes", 0);
      const std::vector<int64_t> offsets = get<std::vector<int64_t>>(b, "offsets", {});
      for (size_t s = 0; s < offsets.size(); ++s) {
        const double x0 = xOf(double(offsets[s])), x1 = xOf(double(offsets[s] + bytes));
        svg.rect(x0, y, std::max(1.0, x1 - x0), kBar, categoryColour(colour), "slot",
                 fmt::format("{} slot {}: [{}, {}) {} B, {}", buffer, s, thousands(offsets[s]),
                             thousands(offsets[s] + bytes), thousands(bytes),
                             get<std::string>(b, "role", "")),
                 R"(stroke="#fff" stroke-width="1")");
        if (x1 - x0 > 7.0 * double(buffer.size()))
          svg.text((x0 + x1) / 2, y + kBar / 2 + 4, buffer, "middle", "slot-label", 10);
      }
    }
  }
  return section("On-chip memories", svg.str(),
                 "Each rectangle is one slot (hover for its range); hatched: room left for tiles.");
}

std::string bufferTable(const json& kernel) {
  std::string rows;
  for (const json& b : field(kernel, "buffers", json::array())) {
    std::vector<int64_t> shape = get<std::vector<int64_t>>(b, "block_shape", {});
    std::vector<int64_t> ready = get<std::vector<int64_t>>(b, "ready_events", {});
    std::vector<int64_t> free = get<std::vector<int64_t>>(b, "free_events", {});
    rows += fmt::format(
        "<tr><td><code>{}</code></td><td>{}{}</td><td>{}</td><td>{}-&gt;{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td><code>{}</code></td></tr>\n",
        escape(get<std::string>(b, "name", "?")), escape(get<std::string>(b, "role", "")),
        get<bool>(b, "per_row", false) ? " (per row)" : "",
        escape(get<std::string>(b, "memory", "")), escape(get<std::string>(b, "producer", "")),
        escape(get<std::string>(b, "consumer", "")), thousands(get<int64_t>(b, "slot_bytes", 0)),
        get<int64_t>(b, "slots", 0), get<bool>(b, "chosen_by_planner", false) ? "*" : "",
        shape.size() == 2 ? fmt::format("{}x{}", shape[0], shape[1]) : "-",
        escape(get<std::string>(b, "data_type", "")),
        ready.empty()
            ? "-"
            : fmt::format("ready {} / free {}", fmt::join(ready, " "), fmt::join(free, " ")),
        escape(get<std::string>(b, "location", "")));
  }
  std::string events;
  for (const json& e : field(kernel, "events", json::array()))
    events += fmt::format("<tr><td>{} -&gt; {}</td><td class=\"num\">{} of {}</td></tr>",
                          escape(get<std::string>(e, "src", "?")),
                          escape(get<std::string>(e, "dst", "?")), get<int64_t>(e, "used", 0),
                          get<int64_t>(e, "available", 0));
  return section("Buffers",
                 "<table class=\"buffers\"><thead><tr><th>name</th><th>role</th><th>memory</th>"
                 "<th>pipes</th><th>slot B</th><th>slots</th><th>block</th><th>type</th>"
                 "<th>event ids</th><th>source</th></tr></thead><tbody>\n" +
                     rows + "</tbody></table>",
                 "slots*: a `?` count the planner chose.") +
         (events.empty() ? ""
                         : section("Event ids per pipe pair",
                                   "<table class=\"events\"><thead><tr><th>pipes</th><th>ids</th>"
                                   "</tr></thead><tbody>" +
                                       events + "</tbody></table>"));
}

/// Each pipe's busy cycles per work item as a bar, the interval marked; the instructions.
std::string pipeBars(const json& cost) {
  const json pipes = field(cost, "pipe_cycles_per_item", json::object());
  double most = std::max(1.0, get<double>(cost, "interval_cycles", 0));
  std::vector<std::pair<std::string, double>> busy;
  for (const auto& [pipe, cycles] : pipes.items())
    if (cycles.is_number() && cycles.get<double>() > 0) {
      busy.push_back({pipe, cycles.get<double>()});
      most = std::max(most, cycles.get<double>());
    }
  if (busy.empty()) return "";
  constexpr double kLeft = 70, kWidth = 880, kRow = 30, kBar = 20, kTop = 26;
  const double plot = kWidth - kLeft - 120;
  Svg svg(kWidth, kTop + kRow * double(busy.size()) + 30, "pto-pipe-bars",
          fmt::format("Busy cycles per work item of {}", get<std::string>(cost, "kernel", "?")),
          "One bar per pipe: its busy cycles for one work item; the dashed line is the interval "
          "between items in steady state (the bound).");
  svg.text(kLeft, 16,
           fmt::format("bound: {} ({})", get<std::string>(cost, "bound", "?"),
                       get<std::string>(cost, "bound_detail", "")),
           "start", "axis-title", 11);
  for (size_t i = 0; i < busy.size(); ++i) {
    const double y = kTop + kRow * double(i);
    svg.text(kLeft - 8, y + kBar / 2 + 4, busy[i].first, "end", "pipe-name", 11);
    svg.rect(kLeft, y, plot * busy[i].second / most, kBar, categoryColour(int(i)), "pipe",
             fmt::format("{}: {:.0f} cycles per item", busy[i].first, busy[i].second));
    svg.text(kLeft + plot * busy[i].second / most + 6, y + kBar / 2 + 4,
             fmt::format("{:.0f}", busy[i].second), "start", "pipe-cycles", 10);
  }
  const double x = kLeft + plot * get<double>(cost, "interval_cycles", 0) / most;
  svg.line(x, kTop - 4, x, kTop + kRow * double(busy.size()), "#333", 1,
           R"(stroke-dasharray="4 3")");
  std::string rows;
  for (const json& i : field(cost, "instructions", json::array()))
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
                        "<td class=\"num\">{:.1f}</td><td><code>{}</code>{}</td></tr>\n",
                        escape(get<std::string>(i, "pipe", "")),
                        escape(get<std::string>(i, "what", "")), get<double>(i, "count", 0),
                        get<double>(i, "cycles", 0), escape(get<std::string>(i, "location", "")),
                        get<bool>(i, "per_item", true) ? "" : " (once)");
  return section("Pipes", svg.str(),
                 fmt::format(
                     "Predicted {} on the busiest of {} core{} ({} of {} work items).",
                     timeText(get<double>(cost, "predicted_ns", 0)), get<int64_t>(cost, "cores", 0),
                     get<int64_t>(cost, "cores", 0) == 1 ? "" : "s",
                     get<int64_t>(cost, "items_per_core", 0), get<int64_t>(cost, "items", 0))) +
         section("Instructions per work item",
                 "<table class=\"instructions\"><thead><tr><th>pipe</th><th>instruction</th>"
                 "<th>count</th><th>cycles each</th><th>source</th></tr></thead><tbody>\n" +
                     rows + "</tbody></table>");
}

} // namespace

std::string renderPtoHtml(const std::string& command, const json& plan, const json& cost) {
  const std::string title =
      fmt::format("ttlplan {} --target pto: {}", command, get<std::string>(plan, "file", "?"));
  std::string body = "<h1>" + escape(title) + "</h1>";
  const std::string binding = bindingHtml(plan);
  body += "<table class=\"summary\"><tbody>" +
          fmt::format("<tr><td>file</td><td><code>{}</code></td></tr>",
                      escape(get<std::string>(plan, "file", "?"))) +
          fmt::format("<tr><td>device</td><td>{}</td></tr>",
                      escape(get<std::string>(plan, "device", "?"))) +
          fmt::format("<tr><td>binding</td><td>{}</td></tr>", binding.empty() ? "-" : binding) +
          (cost.is_object() ? fmt::format("<tr><td>predicted</td><td>{}</td></tr>",
                                          timeText(get<double>(cost, "predicted_ns", 0)))
                            : "") +
          "</tbody></table>";
  for (const json& k : field(plan, "kernels", json::array())) {
    const std::string name = get<std::string>(k, "name", "?");
    body += fmt::format("<h2>Kernel <code>{}</code></h2><p class=\"caption\">{}</p>", escape(name),
                        escape(get<std::string>(k, "location", "")));
    body += memoryMap(k) + bufferTable(k);
    for (const json& c : field(cost, "kernels", json::array()))
      if (get<std::string>(c, "kernel", "") == name) body += pipeBars(c);
  }
  return htmlPage(title, body);
}

} // namespace ttlplan::report
