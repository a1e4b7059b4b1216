#pragma once
// The sections of the HTML report, each a view of one part of the reports' JSON (Html.h). Each
// returns HTML (a heading, an <svg> or a <table>, a caption); "" when the data has nothing to show.
#include <nlohmann/json.hpp>
#include <string>

namespace ttlplan::report {

/// The L1 map of every kernel of `plan`: address along x, one row per kernel (the CBs of one
/// kernel live together), a labelled rectangle per CB and the free headroom shaded.
std::string l1Map(const nlohmann::json& plan);

/// The CB table of one kernel of the plan JSON.
std::string cbTable(const nlohmann::json& kernel);

/// Work items per core of one kernel as a heat map over the device grid (rows x cols; idle cores
/// hatched), one cell per core.
std::string coreGrid(const nlohmann::json& kernel, int rows, int cols);

/// Per pipe of one kernel, its nets' multicast rectangles and senders on the grid.
std::string multicastGrids(const nlohmann::json& kernel, int rows, int cols);

/// Per DST chain of one kernel, each pass's block cut into its sub-blocks, numbered in the order
/// of the rounds.
std::string dstRounds(const nlohmann::json& kernel);

/// The critical core's threads as busy and stall bars, and the analytic bounds, of one kernel of
/// the cost JSON.
std::string costBars(const nlohmann::json& costKernel);

/// The trade-offs of one kernel (its "tradeoffs" array) as a list.
std::string tradeoffList(const nlohmann::json& tradeoffs);

/// `tune`: predicted time against L1 bytes of every point, coloured by bound, with the Pareto
/// front, the pick and ttnn's default config marked; then the Pareto and top-K tables.
std::string tuneScatter(const nlohmann::json& tune);
std::string tuneTables(const nlohmann::json& tune);

/// The whole page: `body` under `title`, with the report's style sheet and footer.
std::string htmlPage(const std::string& title, const std::string& body);
/// A plan JSON's binding: each value as `NAME=V`, then where it came from.
std::string bindingHtml(const nlohmann::json& plan);

/// Helpers shared by the sections.
std::string section(const std::string& heading, const std::string& body,
                    const std::string& caption = "");
/// `j[key]`, or `fallback` when `j` is not an object or has no such member (json's value()
/// throws on a non-object).
inline nlohmann::json field(const nlohmann::json& j, const char* key, nlohmann::json fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it == j.end() ? fallback : *it;
}
/// json value `j[key]` as T, or `fallback` when missing or of another type.
template <typename T> T get(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

} // namespace ttlplan::report
