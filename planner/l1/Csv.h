#pragma once
// L1 placement problems as CSV, the format of google/minimalloc's benchmarks:
//   id,lower,upper,size[,alignment][,offset]
// A header row is required; columns may come in any order; unknown or repeated columns are
// errors. Each row is one buffer live over [lower, upper). `alignment` defaults to 1. An `offset`
// column (as written by formatCsv) is read back as a placement.
#include "ttlplan/planner/l1/Problem.h"
#include "ttlplan/support/Expected.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::planner::l1 {

struct CsvFile {
  Problem problem;                             ///< capacity 0: the CSV carries none
  std::optional<std::vector<int64_t>> offsets; ///< when the file has an `offset` column
};

/// Parses CSV text. Errors read `file:line: what is wrong` (a non-integer, upper <= lower,
/// size <= 0, alignment < 1, a duplicate id, a missing or unknown column, a short row).
Expected<CsvFile> parseCsv(std::string_view text, const std::string& file);
/// Reads and parses a file; a file that cannot be read is an error too.
Expected<CsvFile> readCsv(const std::string& path);

/// The problem's rows as CSV: id,lower,upper,size, then alignment when any buffer has one other
/// than 1.
std::string formatCsv(const Problem& problem);
/// The same rows plus an `offset` column from the solution.
std::string formatCsv(const Problem& problem, const Solution& solution);

} // namespace ttlplan::planner::l1
