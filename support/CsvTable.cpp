#include "ttlplan/support/CsvTable.h"

#include "ttlplan/support/ReadFile.h"

#include <fmt/format.h>
#include <fstream>

namespace ttlplan {

std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"')
      quoted = !quoted;
    else if (ch == ',' && !quoted)
      out.emplace_back();
    else if (ch != '\r')
      out.back() += ch;
  }
  return out;
}

Expected<std::vector<CsvRow>> readCsvTable(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{fmt::format("cannot read {}", path)};
  std::string line;
  if (!std::getline(in, line)) return Error{fmt::format("{} is empty (no header line)", path)};
  const std::vector<std::string> header = splitCsvLine(std::string(withoutByteOrderMark(line)));
  std::vector<CsvRow> rows;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> fields = splitCsvLine(line);
    if (fields.size() != header.size())
      return Error{fmt::format("{}:{}: {} fields, the header has {}", path, number, fields.size(),
                               header.size())};
    CsvRow row;
    for (size_t i = 0; i < header.size(); ++i)
      row[header[i]] = std::move(fields[i]);
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace ttlplan
