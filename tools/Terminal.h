#pragma once
// How `ttlplan` talks to a terminal: -q/-v, colour (only on a terminal, never with NO_COLOR or
// TERM=dumb), and progress lines for steps that take over a second.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace ttlplan::tools {

enum class Verbosity {
  Quiet,   ///< -q: errors and warnings only (no progress, no "chose the binding" lines)
  Normal,  ///< progress lines on a terminal
  Verbose, ///< -v: also each slow step's time, on a terminal or not
};

/// The process's settings; main sets them once from the flags and the environment.
struct TerminalSettings {
  Verbosity verbosity = Verbosity::Normal;
  bool colourStdout = false; ///< stdout is a terminal and colour is allowed
  bool colourStderr = false;
};
const TerminalSettings& terminal();
void setTerminal(Verbosity verbosity);

/// Whether colour is allowed on `stream`: a terminal, NO_COLOR unset or empty, TERM not "dumb"
/// (https://no-color.org).
bool colourAllowed(FILE* stream);

/// `text` (diagnostics, one or more lines) with "error:", "warning:" and "note:" coloured, when
/// `colour`; unchanged otherwise.
std::string paintDiagnostics(const std::string& text, bool colour);

/// A progress line for work that may take a while: after a second it shows the step and the
/// seconds so far, on a terminal a live line on stderr; when it ends it says how long it took
/// (on a terminal, or anywhere with -v). Nothing with -q, and nothing for steps under a second
/// without -v. Lines stay off stdout, so output written there is unchanged.
class Progress {
public:
  explicit Progress(std::string label);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// Ends the current step and starts `label`.
  void step(std::string label);

private:
  void finish();
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::string label_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false; ///< the live line is on screen
  bool stop_ = false;
  bool live_ = false; ///< a terminal, and not -q
  std::thread thread_;
};

/// A driver `onStep` callback (driver::RunRequest::onStep) that shows each step as
/// "PREFIX: step" in `progress`: the first starts it, the others are its next steps.
inline std::function<void(const std::string&)> progressSteps(std::optional<Progress>& progress,
                                                             std::string prefix) {
  return [&progress, prefix = std::move(prefix)](const std::string& step) {
    if (progress)
      progress->step(prefix + ": " + step);
    else
      progress.emplace(prefix + ": " + step);
  };
}

} // namespace ttlplan::tools
