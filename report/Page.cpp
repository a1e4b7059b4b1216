// The page: the summary, then per kernel its pictures and tables, in reading order.
#include "ttlplan/Config.h"
#include "ttlplan/report/Html.h"
#include "ttlplan/report/Pictures.h"
#include "ttlplan/report/Svg.h"
#include "ttlplan/support/JsonText.h"

#include <fmt/format.h>

namespace ttlplan::report {

namespace {

// Print: black text, no backgrounds lost, pictures kept whole on a page.
constexpr const char* kCss = R"(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: #111; margin: 2em auto;
       max-width: 1000px; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; border-bottom: 2px solid #0072b2; margin-top: 2em; }
h3 { font-size: 1.1em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
th { background: #eef3f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.binding td { font-weight: bold; }
code { font-size: 0.95em; }
.caption, p.caption { color: #444; font-size: 0.85em; margin-top: 0.2em; }
svg { display: block; margin: 0.6em 0; max-width: 100%; height: auto; }
.row { display: flex; flex-wrap: wrap; gap: 1em; }
.row svg { margin: 0; }
ul.tradeoffs li { margin: 0.3em 0; }
span.costly { background: #fde0c5; padding: 0 0.3em; border-radius: 3px; font-weight: bold; }
span.free { background: #e3f1e3; padding: 0 0.3em; border-radius: 3px; }
.summary td:first-child { font-weight: bold; }
footer { margin-top: 3em; color: #666; font-size: 0.8em; }
@media print { body { margin: 0; max-width: none; } section, svg { break-inside: avoid; }
               h2 { break-after: avoid; } }
)";

std::string row(const std::string& label, const std::string& value) {
  return fmt::format("<tr><td>{}</td><td>{}</td></tr>", escape(label), value);
}

} // namespace

std::string bindingHtml(const nlohmann::json& plan) {
  const nlohmann::json binding = field(plan, "binding", nlohmann::json::object());
  std::string values;
  const nlohmann::json bound = field(binding, "values", nlohmann::json::object());
  for (const auto& [name, value] : bound.items())
    values += fmt::format("{}<code>{}={}</code>", values.empty() ? "" : " ", escape(name),
                          escape(value.is_string() ? value.get<std::string>() : jsonText(value)));
  std::string source = get<std::string>(binding, "source", "");
  return values.empty() ? escape(source) : values + "<br><small>" + escape(source) + "</small>";
}

namespace {

/// The cost JSON's kernel named `name`, or null.
nlohmann::json costKernel(const nlohmann::json& cost, const std::string& name) {
  for (const auto& k : field(cost, "kernels", nlohmann::json::array()))
    if (get<std::string>(k, "kernel", "") == name) return k;
  return nullptr;
}

std::string summary(const PageInput& in) {
  std::string rows =
      row("file", "<code>" + escape(get<std::string>(in.plan, "file", "?")) + "</code>") +
      row("device", escape(get<std::string>(in.plan, "device", "?")) +
                        (in.deviceRows > 0
                             ? fmt::format(" ({} x {} compute grid)", in.deviceRows, in.deviceCols)
                             : "")) +
      row("binding", bindingHtml(in.plan));
  if (in.cost.is_object())
    rows +=
        row("cost model", escape(fmt::format("{}, calibration {}",
                                             get<std::string>(in.cost, "model_version", "?"),
                                             get<std::string>(in.cost, "calibration_hash", "?"))));
  std::string kernels;
  for (const auto& k : field(in.plan, "kernels", nlohmann::json::array())) {
    std::string name = get<std::string>(k, "name", "?");
    std::vector<int> grid =
        get<std::vector<int>>(field(k, "cores", nlohmann::json::object()), "grid", {});
    const nlohmann::json c = field(k, "cost", nlohmann::json());
    const nlohmann::json l1 = field(k, "l1", nlohmann::json::object());
    kernels += fmt::format(
        "<tr><td><a href=\"#k-{}\"><code>{}</code></a></td><td>{}</td><td class=\"num\">{}</td>"
        "<td>{}</td><td class=\"num\">{} of {} B</td></tr>",
        escape(name.substr(name.empty() ? 0 : 1)), escape(name),
        grid.size() == 2 ? fmt::format("{} x {}", grid[0], grid[1]) : "?",
        c.is_object() ? timeText(get<double>(c, "predicted_ns", 0)) : "-",
        c.is_object() ? escape(get<std::string>(c, "bound", "")) : "-",
        thousands(get<int64_t>(l1, "used", 0)), thousands(get<int64_t>(l1, "capacity", 0)));
  }
  return "<table class=\"summary\"><tbody>" + rows + "</tbody></table>" +
         "<table class=\"kernels\"><thead><tr><th>kernel</th><th>grid</th><th>predicted</th>"
         "<th>bound</th><th>L1 used</th></tr></thead><tbody>" +
         kernels + "</tbody></table>";
}

std::string kernelSections(const PageInput& in, const nlohmann::json& k) {
  std::string name = get<std::string>(k, "name", "?");
  std::string out = fmt::format("<h2 id=\"k-{}\">Kernel <code>{}</code></h2><p class=\"caption\">"
                                "{}</p>",
                                escape(name.substr(name.empty() ? 0 : 1)), escape(name),
                                escape(get<std::string>(k, "location", "")));
  std::string assumed;
  for (const nlohmann::json& line : field(k, "assumptions", nlohmann::json::array()))
    if (line.is_string()) assumed += "<li>" + escape(line.get<std::string>()) + "</li>";
  if (!assumed.empty()) out += "<p>The plan assumes:</p><ul class=\"assumed\">" + assumed + "</ul>";
  const nlohmann::json c = field(k, "cost", nlohmann::json());
  nlohmann::json ck = costKernel(in.cost, name);
  if (c.is_object())
    out += tradeoffList(field(c, "tradeoffs", nlohmann::json::array()));
  else if (ck.is_object())
    out += tradeoffList(field(ck, "tradeoffs", nlohmann::json::array()));
  out += cbTable(k);
  out += coreGrid(k, in.deviceRows, in.deviceCols);
  out += multicastGrids(k, in.deviceRows, in.deviceCols);
  out += dstRounds(k);
  if (ck.is_object()) out += costBars(ck);
  return out;
}

} // namespace

std::string section(const std::string& heading, const std::string& body,
                    const std::string& caption) {
  return fmt::format("<section><h3>{}</h3>{}{}</section>\n", escape(heading), body,
                     caption.empty() ? "" : "<p class=\"caption\">" + escape(caption) + "</p>");
}

std::string renderHtml(const PageInput& in) {
  std::string title =
      fmt::format("ttlplan {}: {}", in.command, get<std::string>(in.plan, "file", "?"));
  std::string body;
  try {
    body += "<h1>" + escape(title) + "</h1>";
    body += summary(in);
    if (in.tune.is_object()) {
      body += "<h2>Search</h2>";
      body += fmt::format(
          "<p>{} of {} points evaluated ({} feasible) by {}, stopped by: {}.</p>",
          thousands(get<int64_t>(in.tune, "evaluated", 0) + get<int64_t>(in.tune, "reused", 0)),
          thousands(get<int64_t>(field(in.tune, "space", nlohmann::json::object()), "size", 0)),
          thousands(get<int64_t>(in.tune, "feasible", 0)),
          escape(get<std::string>(in.tune, "strategy", "?")),
          escape(get<std::string>(in.tune, "stop", "?")));
      body += tuneScatter(in.tune);
      body += tuneTables(in.tune);
      body += "<p>The kernels below are the pick's plan.</p>";
    }
    body += "<h2>L1</h2>" + l1Map(in.plan);
    for (const auto& k : field(in.plan, "kernels", nlohmann::json::array()))
      body += kernelSections(in, k);
  } catch (const nlohmann::json::exception& e) {
    body += fmt::format("<p><b>The report data is malformed</b>: {}</p>", escape(e.what()));
  }
  return htmlPage(title, body);
}

std::string htmlPage(const std::string& title, const std::string& body) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<title>{}</title><style>{}</style></head><body>\n{}\n<footer>Written by "
                     "ttlplan {}. Hover a shape for its numbers.</footer></body></html>\n",
                     escape(title), kCss, body, TTLPLAN_VERSION);
}

} // namespace ttlplan::report
