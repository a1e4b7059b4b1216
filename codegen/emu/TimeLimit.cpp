// A run's time limit (Options::timeLimitSeconds, TTLPLAN_EMU_TIMEOUT): a watchdog thread waits
// for the run to end; when the limit passes first it reports every unfinished thread, with the
// wait it is blocked in (as a deadlock report does) or the kernel API call it made last, and stops
// the run: blocked threads are woken and unwind, running ones unwind at their next kernel API call
// (current()). A thread that never calls the kernel API again cannot be unwound, so the process
// ends a grace period later.
#include "Runtime.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ttlplan::emu {
namespace {

/// How long stopped threads get to reach a kernel API call before the process ends.
constexpr std::chrono::seconds kStopGrace{2};

std::string secondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

} // namespace

RunTimeLimit::RunTimeLimit(Run& run, double seconds) : run_(run), seconds_(seconds) {
  if (seconds_ > 0) thread_ = std::thread([this] { watch(); });
}

RunTimeLimit::~RunTimeLimit() {
  {
    std::lock_guard lock(m_);
    ended_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void RunTimeLimit::watch() {
  std::unique_lock lock(m_);
  if (cv_.wait_for(lock, std::chrono::duration<double>(seconds_), [this] { return ended_; }))
    return;
  lock.unlock();
  stopRun();
  lock.lock();
  if (cv_.wait_for(lock, kStopGrace, [this] { return ended_; })) return;
  int running = 0;
  {
    std::lock_guard runLock(run_.m);
    running = run_.live;
  }
  std::fprintf(stderr,
               "emulator: %d thread%s made no kernel API call within %lld s of the stop and cannot "
               "be ended; exit status 4\n",
               running, running == 1 ? "" : "s", static_cast<long long>(kStopGrace.count()));
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(4);
}

void RunTimeLimit::stopRun() {
  Run& r = run_;
  std::lock_guard lock(r.m);
  if (r.aborted) return; // a deadlock report came first; the run is ending
  std::string body;
  for (const auto& t : r.threads) {
    if (t->finished) continue;
    if (t->blocked) {
      body += "  " + t->where() + ": blocked in " + describeWait(r, *t) + "\n    at " +
              describeLocation(t->waitLoc) + "\n";
      continue;
    }
    const SourceLoc last{t->lastFile.load(std::memory_order_relaxed),
                         t->lastLine.load(std::memory_order_relaxed),
                         t->lastFunction.load(std::memory_order_relaxed)};
    body += "  " + t->where() + ": running";
    body += last.line() == 0
                ? std::string(", no kernel API call yet\n")
                : ", its last kernel API call\n    at " + describeLocation(last) + "\n";
  }
  recordError(ErrorKind::Timeout,
              "the run did not finish within " + secondsText(seconds_) +
                  " s; the unfinished threads:",
              body, ttlplan::emu::SourceLoc::current(), /*dedupe=*/false);
  stopped_ = true;
  r.aborted = true;
  r.stopRequested.store(true, std::memory_order_relaxed);
  for (const auto& t : r.threads)
    t->cv.notify_one();
}

} // namespace ttlplan::emu
