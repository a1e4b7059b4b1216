// The --verify-diagnostics harness: annotations, line offsets, matching in both directions.
#include "ttlplan/ir/ExpectedDiagnostics.h"

#include <gtest/gtest.h>

using namespace ttlplan::ir;

namespace {
Diagnostic error(uint32_t line, std::string message) {
  return {Severity::Error, {std::make_shared<const std::string>("f.ttl"), line, 1}, message, {}};
}
} // namespace

TEST(ExpectedDiagnostics, ReadsOffsetsAndSeverities) {
  auto e = parseExpectedDiagnostics("// expected-error@+1 {{bad cb}}\nx\n"
                                    "y // expected-note {{here}}\n"
                                    "// expected-warning@-2 {{w}} expected-error@below {{two}}\n");
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].line, 2u);
  EXPECT_EQ(e[0].severity, Severity::Error);
  EXPECT_EQ(e[0].substring, "bad cb");
  EXPECT_EQ(e[1].line, 3u);
  EXPECT_EQ(e[1].severity, Severity::Note);
  EXPECT_EQ(e[2].line, 2u);
  EXPECT_EQ(e[2].severity, Severity::Warning);
  EXPECT_EQ(e[3].line, 5u);
}

TEST(ExpectedDiagnostics, MalformedAnnotationsFailTheCheck) {
  // A misspelt severity is not an annotation at all; a bad offset or missing {{text}} is a test
  // bug that must fail the run rather than silently check nothing.
  EXPECT_TRUE(parseExpectedDiagnostics("// expected-eror {{x}}\n").empty());
  for (const char* text : {"// expected-error@x {{y}}\n", "// expected-error@+99999999999 {{y}}\n",
                           "// expected-error@+1x {{y}}\n", "// expected-error@-5 {{y}}\n",
                           "// expected-error@+1 y\n"}) {
    auto expected = parseExpectedDiagnostics(text);
    ASSERT_EQ(expected.size(), 1u) << text;
    EXPECT_TRUE(expected[0].malformed) << text;
    std::string report;
    EXPECT_FALSE(checkExpectedDiagnostics("f.ttl", {}, expected, report)) << text;
    EXPECT_NE(report.find("malformed annotation"), std::string::npos) << text;
  }
}

TEST(ExpectedDiagnostics, MatchingNeedsLineSeverityAndSubstring) {
  auto expected = parseExpectedDiagnostics("\n// expected-error@-1 {{cb}}\n");
  std::string report;
  EXPECT_TRUE(checkExpectedDiagnostics("f.ttl", {error(1, "the cb is empty")}, expected, report));
  expected = parseExpectedDiagnostics("\n// expected-error@-1 {{cb}}\n");
  EXPECT_FALSE(checkExpectedDiagnostics("f.ttl", {error(2, "the cb is empty")}, expected, report));
  EXPECT_NE(report.find("unexpected error"), std::string::npos);
  EXPECT_NE(report.find("was not produced"), std::string::npos);
  expected = parseExpectedDiagnostics("\n// expected-error@-1 {{pipe}}\n");
  report.clear();
  EXPECT_FALSE(checkExpectedDiagnostics("f.ttl", {error(1, "the cb is empty")}, expected, report));
  expected = parseExpectedDiagnostics("x\n");
  EXPECT_FALSE(checkExpectedDiagnostics("f.ttl", {error(1, "surprise")}, expected, report));
}

TEST(ExpectedDiagnostics, SplitKeepsFileLineNumbers) {
  auto chunks = splitInputFile("a\n// -----\nb\nc\n// -----\nd\n");
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0], "a\n");
  EXPECT_EQ(chunks[1], "\n\nb\nc\n"); // b is line 3 of the file
  EXPECT_EQ(chunks[2], "\n\n\n\n\nd\n");
}
