// support/CsvTable.h: quoted commas, blank lines, and the errors that name the file and line.
#include "ttlplan/support/CsvTable.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace ttlplan {
namespace {

std::string writeTemp(const std::string& name, const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("ttlplan_csv_" + std::to_string(getpid()) + "_" + name))
                         .string();
  std::ofstream(path) << text;
  return path;
}

TEST(CsvTable, QuotedCommasAndBlankLines) {
  EXPECT_EQ(splitCsvLine("a,\"b, c\",d\r"), (std::vector<std::string>{"a", "b, c", "d"}));
  std::string path = writeTemp("ok.csv", "x,y\n1,\"2,3\"\n\n4,5\n");
  Expected<std::vector<CsvRow>> rows = readCsvTable(path);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].at("y"), "2,3");
  EXPECT_EQ((*rows)[1].at("x"), "4");
}

TEST(CsvTable, ErrorsNameTheFileAndLine) {
  std::string path = writeTemp("short.csv", "x,y\n1,2\n3\n");
  Expected<std::vector<CsvRow>> rows = readCsvTable(path);
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().message, path + ":3: 1 fields, the header has 2");
  Expected<std::vector<CsvRow>> missing = readCsvTable(path + ".missing");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot read " + path + ".missing");
  EXPECT_FALSE(readCsvTable(writeTemp("empty.csv", "")));
}

} // namespace
} // namespace ttlplan
