#include "ir/ExpectedDiagnostics.h"

#include <fmt/format.h>
#include <optional>
#include <regex>
#include <sstream>

namespace ttlplan::ir {

std::vector<std::string> splitInputFile(std::string_view text) {
  std::vector<std::string> chunks(1);
  std::istringstream in{std::string(text)};
  uint32_t lineNumber = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNumber;
    if (line.rfind("// -----", 0) == 0) {
      chunks.emplace_back(lineNumber, '\n'); // keeps later lines at their file line numbers
      continue;
    }
    chunks.back() += line + "\n";
  }
  return chunks;
}

static std::optional<Severity> severityNamed(const std::string& name) {
  if (name == "error") return Severity::Error;
  if (name == "warning") return Severity::Warning;
  if (name == "note") return Severity::Note;
  if (name == "remark") return Severity::Remark;
  return std::nullopt;
}

std::vector<ExpectedDiagnostic> parseExpectedDiagnostics(std::string_view text) {
  static const std::regex annotation(
      R"(expected-(error|warning|note|remark)(@([+-][0-9]+|above|below))?\s*\{\{(.*?)\}\})");
  std::vector<ExpectedDiagnostic> out;
  std::istringstream in{std::string(text)};
  uint32_t lineNumber = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNumber;
    for (std::sregex_iterator it(line.begin(), line.end(), annotation), end; it != end; ++it) {
      const std::smatch& m = *it;
      int64_t target = lineNumber;
      std::string offset = m[3].str();
      if (offset == "above")
        target -= 1;
      else if (offset == "below")
        target += 1;
      else if (!offset.empty())
        target += std::stoll(offset);
      out.push_back({*severityNamed(m[1].str()),
                     static_cast<uint32_t>(std::max<int64_t>(target, 0)), m[4].str(), lineNumber});
    }
  }
  return out;
}

static bool matchOne(const Diagnostic& d, std::vector<ExpectedDiagnostic>& expected) {
  for (ExpectedDiagnostic& e : expected) {
    if (e.matched || e.severity != d.severity || e.line != d.location.line) continue;
    if (d.message.find(e.substring) == std::string::npos) continue;
    e.matched = true;
    return true;
  }
  return false;
}

bool checkExpectedDiagnostics(const std::string& file, const std::vector<Diagnostic>& actual,
                              std::vector<ExpectedDiagnostic>& expected, std::string& report) {
  bool ok = true;
  auto check = [&](const Diagnostic& d) {
    if (matchOne(d, expected)) return;
    ok = false;
    report +=
        fmt::format("{}: unexpected {}: {}\n", d.location.str(), toString(d.severity), d.message);
  };
  for (const Diagnostic& d : actual) {
    check(d);
    for (const Diagnostic& note : d.notes)
      check(note);
  }
  for (const ExpectedDiagnostic& e : expected) {
    if (e.matched) continue;
    ok = false;
    report += fmt::format("{}:{}: expected {} on line {} was not produced: {{{{{}}}}}\n", file,
                          e.annotationLine, toString(e.severity), e.line, e.substring);
  }
  return ok;
}

} // namespace ttlplan::ir
