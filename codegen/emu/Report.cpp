// Error reports of the emulator: mapping a generated C++ line back to the TTL op it came from,
// recording errors for lastRunErrors()/allErrors(), printing them, and the exit status 3 that a
// generated host program ends with after an error.
#include "Runtime.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <tuple>

namespace ttlplan::emu {
namespace {

struct Sink {
  std::mutex m;
  Options options;
  std::vector<Error> all;
  std::vector<size_t> lastRun;
  bool collecting = false;
  // (kind, C++ file, C++ line) -> index in `all`: later occurrences only count as repeats.
  std::map<std::tuple<int, std::string, unsigned>, size_t> seen;
  bool closing = false; // exitIfErrors is exiting; the atexit fallback must not interfere
};

Sink& sink() {
  static Sink* s = new Sink; // never destroyed: kernel threads and atexit handlers may use it late
  return *s;
}

struct SourceCache {
  std::mutex m;
  std::map<std::string, std::vector<std::string>> files;
  std::map<std::pair<std::string, unsigned>, std::string> described;
};

SourceCache& sourceCache() {
  static SourceCache* c = new SourceCache;
  return *c;
}

const std::vector<std::string>& linesOf(SourceCache& c, const std::string& file) {
  auto it = c.files.find(file);
  if (it != c.files.end()) return it->second;
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return c.files.emplace(file, std::move(lines)).first->second;
}

} // namespace

const char* kindName(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::Deadlock:
    return "deadlock";
  case ErrorKind::Timeout:
    return "timeout";
  case ErrorKind::PopWithoutWait:
    return "pop without wait";
  case ErrorKind::PushBeyondCapacity:
    return "push beyond capacity";
  case ErrorKind::WriteOutsideL1:
    return "write outside L1";
  case ErrorKind::CbOverlap:
    return "CB overlap";
  case ErrorKind::UnissuedBarrier:
    return "unissued barrier";
  case ErrorKind::Misuse:
    return "misuse";
  }
  return "error";
}

std::string describeLocation(const ttlplan::emu::SourceLoc& loc) {
  const std::string file = loc.file_name() ? loc.file_name() : "";
  const unsigned line = loc.line();
  SourceCache& c = sourceCache();
  std::lock_guard lock(c.m);
  auto key = std::make_pair(file, line);
  if (auto it = c.described.find(key); it != c.described.end()) return it->second;
  // The emitter writes `// FILE:LINE:COL: text` above the C++ of each TTL op.
  static const std::regex comment(R"(^\s*//\s*(\S+?:\d+:\d+):\s?(.*?)\s*$)");
  std::string result = file + ":" + std::to_string(line);
  const std::vector<std::string>& lines = linesOf(c, file);
  for (size_t i = std::min<size_t>(line, lines.size()); i-- > 0;) {
    // A '}' in column 0 closes the previous top-level function: its comments are not this call's.
    if (i + 1 < line && !lines[i].empty() && lines[i][0] == '}') break;
    std::smatch match;
    if (std::regex_match(lines[i], match, comment)) {
      result = match[1].str() + ": " + match[2].str();
      break;
    }
  }
  c.described.emplace(key, result);
  return result;
}

size_t recordError(ErrorKind kind, const std::string& message, const std::string& body,
                   const ttlplan::emu::SourceLoc& loc, bool dedupe) {
  Sink& s = sink();
  std::lock_guard lock(s.m);
  if (dedupe) {
    auto key = std::make_tuple(static_cast<int>(kind), std::string(loc.file_name()), loc.line());
    auto [it, fresh] = s.seen.emplace(key, s.all.size());
    if (!fresh) {
      ++s.all[it->second].repeats;
      return it->second;
    }
  }
  Error e;
  e.kind = kindName(kind);
  e.message = message;
  e.report = "emulator: error: " + e.kind + ": " + message + "\n" + body;
  if (s.options.printReports) {
    std::fputs(e.report.c_str(), stderr);
    std::fflush(stderr);
  }
  s.all.push_back(std::move(e));
  if (s.collecting) s.lastRun.push_back(s.all.size() - 1);
  return s.all.size() - 1;
}

void beginRunErrors(const std::vector<size_t>& setup) {
  Sink& s = sink();
  std::lock_guard lock(s.m);
  s.lastRun = setup;
  s.collecting = true;
  s.seen.clear();
}

size_t totalErrorCount() {
  Sink& s = sink();
  std::lock_guard lock(s.m);
  return s.all.size();
}

void exitIfErrors() {
  Sink& s = sink();
  size_t count = 0;
  unsigned repeats = 0;
  {
    std::lock_guard lock(s.m);
    if (!s.options.exitOnError || s.all.empty() || s.closing) return;
    s.closing = true;
    count = s.all.size();
    for (const Error& e : s.all)
      repeats += e.repeats;
  }
  std::fprintf(stderr, "emulator: %zu error%s reported", count, count == 1 ? "" : "s");
  if (repeats) std::fprintf(stderr, " (and %u repeats at the same lines)", repeats);
  std::fprintf(stderr, "; exit status 3\n");
  std::fflush(stdout);
  std::fflush(stderr);
  std::exit(3);
}

void exitIfErrorsAtExit() {
  // Reached when a host returns from main without MeshDevice::close. std::exit must not be called
  // from an atexit handler, so flush and _Exit.
  Sink& s = sink();
  size_t count = 0;
  {
    std::lock_guard lock(s.m);
    if (!s.options.exitOnError || s.all.empty() || s.closing) return;
    s.closing = true;
    count = s.all.size();
  }
  std::fprintf(stderr, "emulator: %zu error%s reported; exit status 3\n", count,
               count == 1 ? "" : "s");
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(3);
}

void setOptions(const Options& options) {
  Sink& s = sink();
  std::lock_guard lock(s.m);
  s.options = options;
}

Options options() {
  Sink& s = sink();
  std::lock_guard lock(s.m);
  return s.options;
}

std::vector<Error> lastRunErrors() {
  Sink& s = sink();
  std::lock_guard lock(s.m);
  std::vector<Error> out;
  for (size_t i : s.lastRun)
    if (i < s.all.size()) out.push_back(s.all[i]); // resetErrors() may have dropped setup errors
  return out;
}

std::vector<Error> allErrors() {
  Sink& s = sink();
  std::lock_guard lock(s.m);
  return s.all;
}

void resetErrors() {
  Sink& s = sink();
  std::lock_guard lock(s.m);
  s.all.clear();
  s.lastRun.clear();
  s.seen.clear();
}

std::string cbPagesText(uint32_t n) {
  return std::to_string(n) + (n == 1 ? " page" : " pages");
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace ttlplan::emu
