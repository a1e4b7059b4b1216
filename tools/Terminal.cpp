#include "tools/Terminal.h"

#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

namespace ttlplan::tools {

namespace {

TerminalSettings& settings() {
  static TerminalSettings s;
  return s;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

const TerminalSettings& terminal() {
  return settings();
}

bool colourAllowed(FILE* stream) {
  const char* noColour = std::getenv("NO_COLOR");
  if (noColour && *noColour) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return isatty(fileno(stream)) != 0;
}

void setTerminal(Verbosity verbosity) {
  settings().verbosity = verbosity;
  settings().colourStdout = colourAllowed(stdout);
  settings().colourStderr = colourAllowed(stderr);
}

std::string paintDiagnostics(const std::string& text, bool colour) {
  if (!colour) return text;
  static const std::pair<const char*, const char*> kWords[] = {
      {"error:", "\033[1;31m"}, {"warning:", "\033[1;35m"}, {"note:", "\033[1;36m"}};
  std::string out;
  size_t lineStart = 0;
  while (lineStart < text.size()) {
    size_t end = text.find('\n', lineStart);
    std::string line =
        text.substr(lineStart, end == std::string::npos ? std::string::npos : end - lineStart);
    // The first severity word of the line ("file:1:2: error: ..."), and the location before it
    // in bold.
    size_t best = std::string::npos;
    const char* code = nullptr;
    size_t length = 0;
    for (const auto& [word, c] : kWords) {
      size_t at = line.find(word);
      if (at != std::string::npos && at < best && (at == 0 || line[at - 1] == ' ')) {
        best = at;
        code = c;
        length = std::string(word).size();
      }
    }
    if (code)
      line = (best > 0 ? "\033[1m" + line.substr(0, best - 1) + "\033[0m " : "") + code +
             line.substr(best, length) + "\033[0m" + line.substr(best + length);
    out += line;
    if (end == std::string::npos) break;
    out += '\n';
    lineStart = end + 1;
  }
  return out;
}

Progress::Progress(std::string label)
    : label_(std::move(label)), start_(std::chrono::steady_clock::now()) {
  live_ = terminal().verbosity != Verbosity::Quiet && isatty(fileno(stderr)) != 0;
  if (live_) thread_ = std::thread([this] { run(); });
}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finish();
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Progress::step(std::string label) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finish();
    label_ = std::move(label);
    start_ = std::chrono::steady_clock::now();
  }
  wake_.notify_all();
}

void Progress::finish() {
  double seconds = secondsSince(start_);
  bool verbose = terminal().verbosity == Verbosity::Verbose;
  if (shown_ || (verbose && seconds >= 0.05))
    std::fprintf(stderr, "%s%s: done in %.1f s\n", shown_ ? "\r\033[K" : "", label_.c_str(),
                 seconds);
  shown_ = false;
}

void Progress::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    if (stop_) break;
    double seconds = secondsSince(start_);
    if (seconds < 1.0) continue;
    std::fprintf(stderr, "\r\033[K%s... %.0f s", label_.c_str(), seconds);
    std::fflush(stderr);
    shown_ = true;
  }
}

} // namespace ttlplan::tools
