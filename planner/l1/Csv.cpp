#include "ttlplan/planner/l1/Csv.h"

#include "ttlplan/support/ReadFile.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <unordered_map>

namespace ttlplan::planner::l1 {

namespace {

enum Column { kId, kLower, kUpper, kSize, kAlignment, kOffset, kColumnCount };
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {"id",   "lower",     "upper",
                                                                     "size", "alignment", "offset"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

std::optional<int64_t> parseInteger(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

/// The alignment column is written only when some buffer needs it.
bool hasAlignment(const Problem& problem) {
  return std::any_of(problem.buffers.begin(), problem.buffers.end(),
                     [](const Buffer& b) { return b.alignment != 1; });
}

std::string header(const Problem& problem, bool withOffset) {
  std::string text = "id,lower,upper,size";
  if (hasAlignment(problem)) text += ",alignment";
  if (withOffset) text += ",offset";
  return text + "\n";
}

std::string rows(const Problem& problem, const Solution* solution) {
  bool alignment = hasAlignment(problem);
  std::string text = header(problem, solution != nullptr);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    text += b.id + "," + std::to_string(b.lower) + "," + std::to_string(b.upper) + "," +
            std::to_string(b.size);
    if (alignment) {
      text += ",";
      text += std::to_string(b.alignment);
    }
    if (solution) {
      text += ",";
      text += i < solution->offsets.size() ? std::to_string(solution->offsets[i]) : "";
    }
    text += "\n";
  }
  return text;
}

} // namespace

Expected<CsvFile> parseCsv(std::string_view text, const std::string& file) {
  auto fail = [&](size_t line, const std::string& what) {
    return Error{file + ":" + std::to_string(line) + ": " + what};
  };
  std::array<int, kColumnCount> position;
  position.fill(-1);
  size_t columns = 0;
  bool haveHeader = false;
  CsvFile result;
  std::vector<int64_t> offsets;
  std::unordered_map<std::string, size_t> idLine;
  size_t lineNumber = 0;
  text = withoutByteOrderMark(text);
  if (std::optional<LongLine> long_ = firstLongLine(text))
    return fail(long_->line, longLineMessage(*long_));
  size_t start = 0;
  while (start < text.size()) {
    size_t newline = text.find('\n', start);
    std::string_view line =
        text.substr(start, newline == std::string_view::npos ? text.npos : newline - start);
    start = newline == std::string_view::npos ? text.size() : newline + 1;
    ++lineNumber;
    if (trim(line).empty()) continue;
    std::vector<std::string_view> fields = splitFields(line);
    if (!haveHeader) {
      haveHeader = true;
      columns = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        int found = -1;
        for (int c = 0; c < kColumnCount; ++c)
          if (fields[i] == kColumnNames[c]) found = c;
        if (found < 0)
          return fail(lineNumber, "unknown column '" + std::string(fields[i]) +
                                      "' (columns are id, lower, upper, size and optionally "
                                      "alignment, offset)");
        if (position[found] >= 0)
          return fail(lineNumber, "column '" + std::string(fields[i]) + "' appears twice");
        position[found] = int(i);
      }
      for (int c = kId; c <= kSize; ++c)
        if (position[c] < 0)
          return fail(lineNumber,
                      "missing column '" + std::string(kColumnNames[c]) + "' in the header");
      continue;
    }
    if (fields.size() != columns)
      return fail(lineNumber, "expected " + std::to_string(columns) + " fields, found " +
                                  std::to_string(fields.size()));
    Buffer b;
    b.id = std::string(fields[position[kId]]);
    if (b.id.empty()) return fail(lineNumber, "empty id");
    std::array<int64_t, kColumnCount> values{};
    values[kAlignment] = 1;
    for (int c = kLower; c < kColumnCount; ++c) {
      if (position[c] < 0) continue;
      std::string_view field = fields[position[c]];
      std::optional<int64_t> value = parseInteger(field);
      if (!value)
        return fail(lineNumber, std::string(kColumnNames[c]) + " '" + std::string(field) +
                                    "' is not an integer");
      values[c] = *value;
    }
    b.lower = values[kLower];
    b.upper = values[kUpper];
    b.size = values[kSize];
    b.alignment = values[kAlignment];
    if (b.upper <= b.lower)
      return fail(lineNumber, "upper " + std::to_string(b.upper) + " <= lower " +
                                  std::to_string(b.lower) + " (lifetimes are [lower, upper))");
    if (b.size <= 0) return fail(lineNumber, "size " + std::to_string(b.size) + " <= 0");
    if (b.alignment < 1)
      return fail(lineNumber, "alignment " + std::to_string(b.alignment) + " < 1");
    if (auto [it, inserted] = idLine.emplace(b.id, lineNumber); !inserted)
      return fail(lineNumber,
                  "duplicate id '" + b.id + "' (first on line " + std::to_string(it->second) + ")");
    if (position[kOffset] >= 0) offsets.push_back(values[kOffset]);
    result.problem.buffers.push_back(std::move(b));
  }
  if (!haveHeader) return fail(1, "empty file (expected a header such as id,lower,upper,size)");
  if (position[kOffset] >= 0) result.offsets = std::move(offsets);
  return result;
}

Expected<CsvFile> readCsv(const std::string& path) {
  Expected<std::string> text = readTextFile(path);
  if (!text) return text.error();
  return parseCsv(*text, path);
}

std::string formatCsv(const Problem& problem) {
  return rows(problem, nullptr);
}

std::string formatCsv(const Problem& problem, const Solution& solution) {
  return rows(problem, &solution);
}

} // namespace ttlplan::planner::l1
