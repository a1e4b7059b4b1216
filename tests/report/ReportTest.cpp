// The HTML report as a view of JSON (report/Html.h): it draws what the documents hold, escapes
// what a user wrote, and never throws on documents that are malformed. Chromium's view of real
// pages is tests/report/check_page.py.
#include "ttlplan/report/Html.h"
#include "ttlplan/report/Svg.h"

#include <gtest/gtest.h>

namespace ttlplan::report {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

nlohmann::json onePlan() {
  return nlohmann::json::parse(R"({
    "schema_version": 1, "status": "planned", "file": "k<1>.ttl", "device": "wormhole_b0",
    "binding": {"source": "--bind", "values": {"B": 2, "DT": "bf16"}},
    "kernels": [{
      "name": "@k", "location": "k.ttl:3:3",
      "cores": {"grid": [2, 2], "auto_grid": true, "work": {"dims": [3], "items": 3, "makespan": 1,
                "cores_used": 3, "ranges": [{"core": [0, 0], "start": 0, "count": 1},
                {"core": [1, 0], "start": 1, "count": 1}, {"core": [0, 1], "start": 2, "count": 1},
                {"core": [1, 1], "start": 3, "count": 0}]}},
      "cbs": [{"name": "%a<b>", "location": "k.ttl:4:5", "index": 0, "address": 100, "end": 4196,
               "bytes": 4096, "block_shape": [2, 1], "block_count": 2, "data_type": "bf16",
               "tile_bytes": 2048, "chosen_by_planner": false, "intermediate": false},
              {"name": "%c", "location": "k.ttl:5:5", "index": 1, "address": 4196, "end": 6244,
               "bytes": 2048, "block_shape": [1, 1], "block_count": 1, "data_type": "bf16",
               "tile_bytes": 2048, "chosen_by_planner": true, "intermediate": false}],
      "l1": {"base": 100, "capacity": 100000, "used": 6144, "free": 93856, "block_count_choices": []},
      "dst": [{"chain": "%s -> %o", "location": "k.ttl:9:9", "data_type": "bf16", "matmul": false,
               "block": [2, 4], "ops": ["ttl.add"], "capacity_tiles": 8, "rounds": 4,
               "peak_tiles": 2, "intermediate_cbs": 0,
               "segments": [{"first_op": 0, "end_op": 1, "subblock": [1, 2], "rounds": 4,
                             "peak_tiles": 2}]}],
      "multicast": {"nets": [], "rectangles": 0, "semaphore_ids": 0},
      "solves": []}]})");
}

TEST(ReportHtml, DrawsOneShapePerCbCoreAndSubBlockAndEscapesNames) {
  PageInput in;
  in.command = "plan";
  in.plan = onePlan();
  in.deviceRows = 3;
  in.deviceCols = 4;
  std::string page = renderHtml(in);
  EXPECT_EQ(page.find("malformed"), std::string::npos)
      << page.substr(std::min(page.size(), page.find("malformed")), 300);
  EXPECT_EQ(count(page, "class=\"cb\""), 2u);
  // 3 x 4 device cells; the kernel's 2 x 2 grid has 3 busy cores.
  EXPECT_EQ(count(page, "class=\"core busy\""), 3u);
  EXPECT_EQ(count(page, "class=\"core idle\""), 9u);
  // A 2 x 4 block in 1 x 2 sub-blocks: 4 rounds.
  EXPECT_EQ(count(page, "class=\"subblock\""), 4u);
  // Names a user wrote are text, never markup.
  EXPECT_EQ(page.find("%a<b>"), std::string::npos);
  EXPECT_NE(page.find("%a&lt;b&gt;"), std::string::npos);
  EXPECT_NE(page.find("k&lt;1&gt;.ttl"), std::string::npos);
  // Self-contained: nothing loaded from elsewhere.
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
}

TEST(ReportHtml, ListsTheKernelsAssumptionsAsText) {
  PageInput in;
  in.command = "plan";
  in.plan = onePlan();
  EXPECT_EQ(renderHtml(in).find("class=\"assumed\""), std::string::npos); // none: no list
  in.plan["kernels"][0]["assumptions"] = {"no ttl.launch_grid: one core", "%cb<in>: outside"};
  std::string page = renderHtml(in);
  EXPECT_EQ(count(page, "class=\"assumed\""), 1u);
  EXPECT_NE(page.find("<li>no ttl.launch_grid: one core</li>"), std::string::npos);
  EXPECT_NE(page.find("<li>%cb&lt;in&gt;: outside</li>"), std::string::npos);
}

TEST(ReportHtml, MalformedDocumentsGiveAPageNotAnException) {
  for (const char* text :
       {R"([])", R"({"kernels": 3})", R"({"kernels": [{"cbs": [{"address": "x"}]}]})",
        R"({"kernels": [{"cores": {"grid": "2x2", "work": {"ranges": [{"core": 1}]}}}]})",
        R"({"kernels": [{"dst": [{"block": [0, 0], "segments": [{"subblock": [0, 1]}]}]}]})",
        R"({"kernels": [{"multicast": {"nets": [{"rectangles": [{"logical": [1]}]}]}}]})",
        R"({"kernels": [{"assumptions": "one core"}]})",
        R"({"kernels": [{"assumptions": [1]}]})"}) {
    PageInput in;
    in.command = "plan";
    in.plan = nlohmann::json::parse(text);
    in.tune = nlohmann::json::parse(R"({"points": [{"predicted_ns": "fast"}], "pareto": [7]})");
    std::string page;
    EXPECT_NO_THROW(page = renderHtml(in)) << text;
    EXPECT_NE(page.find("</html>"), std::string::npos) << text;
  }
}

TEST(ReportSvg, EscapingNumbersAndColours) {
  EXPECT_EQ(escape("a<b&c>\"d'"), "a&lt;b&amp;c&gt;&quot;d&#39;");
  EXPECT_EQ(escape(std::string("x\x01y")), "x?y");
  EXPECT_EQ(thousands(1234567), "1,234,567");
  EXPECT_EQ(thousands(-1000), "-1,000");
  EXPECT_EQ(bytesText(2048), "2.0 KiB");
  EXPECT_EQ(timeText(4560), "4.56 us");
  EXPECT_EQ(heatColour(0), "#fff7bc");
  EXPECT_EQ(heatColour(1), "#993404");
  EXPECT_EQ(heatColour(7), heatColour(1));
  EXPECT_EQ(textColourOn("#000000"), "#fff");
  EXPECT_EQ(textColourOn("#ffffff"), "#000");
}

} // namespace
} // namespace ttlplan::report
