// Echoing input in messages (support/Text.h): control bytes escaped, long text cut and measured.
#include "ttlplan/support/Text.h"

#include "ttlplan/ir/Diagnostics.h"

#include <gtest/gtest.h>
#include <memory>

using namespace ttlplan;

TEST(Text, ControlBytesAreEscapedTabsNewlinesAndUtf8Stay) {
  EXPECT_EQ(printableText("a\x01\tb\x7f\r\n\xc3\xa9"), "a\\x01\tb\\x7f\\x0d\n\xc3\xa9");
}

TEST(Text, QuotedInputIsCutWithItsLength) {
  EXPECT_EQ(quotedInput("abc"), "'abc'");
  EXPECT_EQ(quotedInput(std::string(100, 'x'), 4), "'xxxx...' (100 bytes)");
  EXPECT_EQ(quotedInput("\x02\n", 4), "'\\x02\\x0a'");
}

TEST(Text, DiagnosticsNeverEchoRawControlBytes) {
  ir::SourceManager sources;
  sources.add("bin.ttl", "module {\n  \x01\x02 x\n}\n");
  ir::Location at(std::make_shared<const std::string>("bin.ttl"), 2, 3);
  ir::Diagnostic d{ir::Severity::Error, at, "found '\x01'", {}};
  std::string text = ir::format(std::vector<ir::Diagnostic>{d}, &sources);
  EXPECT_EQ(text, "bin.ttl:2:3: error: found '\\x01'\n    \\x01\\x02 x\n    ^\n");
  // A column after escaped bytes keeps its caret under the same character.
  d.location.column = 6; // the x
  text = ir::format(std::vector<ir::Diagnostic>{d}, &sources);
  EXPECT_EQ(text,
            "bin.ttl:2:6: error: found '\\x01'\n    \\x01\\x02 x\n" + std::string(13, ' ') + "^\n");
}

TEST(Text, LongSourceLinesShowAWindowAroundTheColumn) {
  ir::SourceManager sources;
  std::string line = std::string(1000, 'a') + "X" + std::string(1000, 'b');
  sources.add("long.ttl", line + "\n");
  ir::Location at(std::make_shared<const std::string>("long.ttl"), 1, 1001); // the X
  ir::Diagnostic d{ir::Severity::Error, at, "here", {}};
  std::string text = ir::format(std::vector<ir::Diagnostic>{d}, &sources);
  EXPECT_EQ(text, "long.ttl:1:1001: error: here\n  ..." + std::string(80, 'a') + "X" +
                      std::string(79, 'b') + "...\n" + std::string(2 + 3 + 80, ' ') + "^\n");
}
