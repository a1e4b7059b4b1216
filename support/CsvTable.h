#pragma once
// CSV files with a header line (the measured data in data/gemm/): rows as
// column name -> field. Double quotes group commas inside a field; no escaped quotes.
#include "ttlplan/support/Expected.h"

#include <map>
#include <string>
#include <vector>

namespace ttlplan {

/// One data line: column name -> field.
using CsvRow = std::map<std::string, std::string>;

/// The fields of one line ('\r' dropped).
std::vector<std::string> splitCsvLine(const std::string& line);

/// The data lines of `path` (blank lines skipped). An Error when the file cannot be read, has no
/// header, or a line has another number of fields than the header ("path:line: ...").
Expected<std::vector<CsvRow>> readCsvTable(const std::string& path);

} // namespace ttlplan
