#include "ttlplan/ir/ExpectedDiagnostics.h"

#include <charconv>
#include <fmt/format.h>
#include <optional>
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

enum class AnnotationParse { NotAnnotation, Ok, Malformed };

/// The line an `@...` offset points at, relative to `lineNumber`; empty when malformed.
static std::optional<int64_t> targetLine(std::string_view offset, uint32_t lineNumber) {
  if (offset == "above") return int64_t(lineNumber) - 1;
  if (offset == "below") return int64_t(lineNumber) + 1;
  if (offset.size() < 2 || (offset[0] != '+' && offset[0] != '-')) return std::nullopt;
  uint32_t distance = 0;
  const char* end = offset.data() + offset.size();
  auto [stop, ec] = std::from_chars(offset.data() + 1, end, distance);
  if (ec != std::errc() || stop != end || distance > lineNumber + 1000000u) return std::nullopt;
  return int64_t(lineNumber) + (offset[0] == '+' ? int64_t(distance) : -int64_t(distance));
}

/// Reads one annotation starting after "expected-" at `rest`.
static AnnotationParse parseAnnotation(std::string_view rest, uint32_t lineNumber,
                                       ExpectedDiagnostic& out) {
  size_t wordEnd = rest.find_first_of("@ {");
  std::optional<Severity> severity = severityNamed(std::string(rest.substr(0, wordEnd)));
  if (!severity) return AnnotationParse::NotAnnotation;
  if (wordEnd == std::string_view::npos) return AnnotationParse::Malformed;
  rest.remove_prefix(wordEnd);
  int64_t target = lineNumber;
  if (rest.front() == '@') {
    size_t offsetEnd = rest.find_first_of(" {");
    std::optional<int64_t> line = targetLine(rest.substr(1, offsetEnd - 1), lineNumber);
    if (!line || *line < 1) return AnnotationParse::Malformed;
    target = *line;
    rest.remove_prefix(std::min(offsetEnd, rest.size()));
  }
  size_t open = rest.find("{{");
  size_t close = rest.find("}}");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      rest.substr(0, open).find_first_not_of(' ') != std::string_view::npos)
    return AnnotationParse::Malformed;
  out = {*severity, static_cast<uint32_t>(target),
         std::string(rest.substr(open + 2, close - open - 2)), lineNumber};
  return AnnotationParse::Ok;
}

std::vector<ExpectedDiagnostic> parseExpectedDiagnostics(std::string_view text) {
  std::vector<ExpectedDiagnostic> out;
  std::istringstream in{std::string(text)};
  uint32_t lineNumber = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNumber;
    for (size_t at = line.find("expected-"); at != std::string::npos;
         at = line.find("expected-", at + 1)) {
      ExpectedDiagnostic e{};
      AnnotationParse parsed =
          parseAnnotation(std::string_view(line).substr(at + 9), lineNumber, e);
      if (parsed == AnnotationParse::Ok) out.push_back(e);
      if (parsed == AnnotationParse::Malformed)
        out.push_back({Severity::Error, lineNumber, {}, lineNumber, false, true});
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
    if (e.malformed) {
      ok = false;
      report += fmt::format("{}:{}: malformed annotation; write expected-error@+N {{{{text}}}}\n",
                            file, e.annotationLine);
      continue;
    }
    if (e.matched) continue;
    ok = false;
    report += fmt::format("{}:{}: expected {} on line {} was not produced: {{{{{}}}}}\n", file,
                          e.annotationLine, toString(e.severity), e.line, e.substring);
  }
  return ok;
}

} // namespace ttlplan::ir
