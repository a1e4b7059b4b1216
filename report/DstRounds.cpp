// Each DST chain's passes: the block cut into sub-blocks, numbered by round.
#include "ttlplan/report/Pictures.h"
#include "ttlplan/report/Svg.h"

#include <algorithm>
#include <fmt/format.h>

namespace ttlplan::report {

std::string dstRounds(const nlohmann::json& kernel) {
  const nlohmann::json chains = field(kernel, "dst", nlohmann::json::array());
  if (!chains.is_array() || chains.empty()) return "";
  std::string body;
  for (const auto& chain : chains) {
    std::vector<int64_t> block = get<std::vector<int64_t>>(chain, "block", {});
    if (block.size() != 2 || block[0] <= 0 || block[1] <= 0) continue;
    const nlohmann::json segments = field(chain, "segments", nlohmann::json::array());
    std::vector<std::string> ops = get<std::vector<std::string>>(chain, "ops", {});
    // Tiles drawn at most 240 px wide and 160 px high per pass.
    double tile =
        std::clamp(std::min(240.0 / double(block[1]), 160.0 / double(block[0])), 3.0, 28.0);
    double passWidth = std::max(tile * double(block[1]), 190.0) + 36;
    double top = 44, height = top + std::max(tile * double(block[0]), 60.0) + 62;
    std::string id = get<std::string>(chain, "chain", "?");
    Svg svg(std::max(300.0, 20 + passWidth * double(std::max<size_t>(1, segments.size()))), height,
            "dst-chain",
            fmt::format("DST chain {}: {} pass{}, {} round{}", id, segments.size(),
                        segments.size() == 1 ? "" : "es", get<int64_t>(chain, "rounds", 0),
                        get<int64_t>(chain, "rounds", 0) == 1 ? "" : "s"),
            "For each DST pass, the chain's block of tiles cut into the sub-blocks the pass "
            "computes one DST round at a time, numbered in order.");
    for (size_t s = 0; s < segments.size(); ++s) {
      const auto& seg = segments[s];
      std::vector<int64_t> sub = get<std::vector<int64_t>>(seg, "subblock", {});
      if (sub.size() != 2 || sub[0] <= 0 || sub[1] <= 0) continue;
      // The segment's own output block (a reduction's is narrower than the chain's).
      std::vector<int64_t> b = get<std::vector<int64_t>>(seg, "block", block);
      if (b.size() != 2 || b[0] <= 0 || b[1] <= 0) b = block;
      size_t first = get<size_t>(seg, "first_op", 0), end = get<size_t>(seg, "end_op", 0);
      double x0 = 12 + passWidth * double(s);
      std::string opNames;
      for (size_t i = first; i < end && i < ops.size(); ++i)
        opNames += (opNames.empty() ? "" : ", ") + ops[i];
      svg.text(x0, 16, fmt::format("pass {}: ops [{}, {})", s + 1, first, end), "start",
               "axis-title", 11);
      svg.text(x0, 30, opNames.size() > 40 ? opNames.substr(0, 38) + "..." : opNames, "start",
               "tick", 9);
      // Axis labels: tile columns across, tile rows down.
      svg.text(x0, top - 3, fmt::format("{} tile column{} across", b[1], b[1] == 1 ? "" : "s"),
               "start", "tick", 8);
      svg.raw(fmt::format(R"~(<text x="{:.1f}" y="{:.1f}" text-anchor="start" font-size="8" )~"
                          R"~(class="tick" transform="rotate(90 {:.1f} {:.1f})">{} row(s)</text>)~",
                          x0 + tile * double(b[1]) + 3, top, x0 + tile * double(b[1]) + 3, top,
                          b[0]));
      // The sub-block walk: rows of sub-blocks, left to right. A pass whose rounds differ from
      // the tiles it covers (a reduction's narrower output, a matmul's K loop) says so below.
      int64_t subRows = (b[0] + sub[0] - 1) / sub[0], subCols = (b[1] + sub[1] - 1) / sub[1];
      int round = 0;
      for (int64_t r = 0; r < subRows; ++r)
        for (int64_t c = 0; c < subCols; ++c) {
          ++round;
          double x = x0 + tile * double(c * sub[1]), y = top + tile * double(r * sub[0]);
          double w = tile * double(std::min(sub[1], b[1] - c * sub[1]));
          double h = tile * double(std::min(sub[0], b[0] - r * sub[0]));
          std::string fill = heatColour(
              subRows * subCols > 1 ? 0.15 + 0.7 * double(round - 1) / double(subRows * subCols - 1)
                                    : 0.4);
          svg.rect(x, y, w, h, fill, "subblock",
                   fmt::format("round {}: tiles [{}, {}) x [{}, {})", round, r * sub[0],
                               r * sub[0] + h / tile, c * sub[1], c * sub[1] + w / tile),
                   R"(stroke="#333" stroke-width="1")");
          if (w >= 14 && h >= 12)
            svg.text(x + w / 2, y + h / 2 + 4, std::to_string(round), "middle", "cell-label",
                     std::min(11.0, h / 1.6));
        }
      svg.text(x0, top + tile * double(b[0]) + 18,
               fmt::format("sub-block {}x{}, {} round{}, peak {} tiles", sub[0], sub[1],
                           get<int64_t>(seg, "rounds", 0),
                           get<int64_t>(seg, "rounds", 0) == 1 ? "" : "s",
                           get<int64_t>(seg, "peak_tiles", 0)),
               "start", "caption", 10);
      if (get<int64_t>(seg, "rounds", 0) != round)
        svg.text(x0, top + tile * double(b[0]) + 32,
                 fmt::format("({} rounds over the {}x{} block drawn)",
                             get<int64_t>(seg, "rounds", 0), b[0], b[1]),
                 "start", "tick", 9);
    }
    body += svg.str();
  }
  if (body.empty()) return "";
  return section("DST sub-block rounds", body,
                 "Each pass of a chain computes its block one sub-block (one DST round) at a time; "
                 "values that cross from one pass to the next go through an intermediate CB.");
}

} // namespace ttlplan::report
