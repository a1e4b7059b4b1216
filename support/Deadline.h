#pragma once
// A wall-clock deadline shared by the steps of one time-limited job (a planner step with its
// explanation and fix search, an alloc solve with its infeasibility explanation), so that the
// whole job ends within the limit rather than each step taking the limit afresh.
#include <algorithm>
#include <chrono>

namespace ttlplan {

class Deadline {
public:
  using Clock = std::chrono::steady_clock;

  /// No deadline.
  Deadline() = default;
  /// `seconds` from now; 0 (or less) means none, as for every --time-limit. Limits longer than
  /// any real run (1e7 s) are none too, which keeps 1e300 from overflowing the clock.
  static Deadline in(double seconds) {
    constexpr double kLongestSeconds = 1e7;
    Deadline d;
    if (seconds > 0 && seconds < kLongestSeconds)
      d.at_ = Clock::now() +
              std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    return d;
  }

  bool isSet() const { return at_ != Clock::time_point::max(); }
  bool passed() const { return isSet() && Clock::now() >= at_; }
  Clock::time_point at() const { return at_; }
  /// Seconds left, never below `floor`; for a limit passed on to a solver, where 0 means none,
  /// callers pass a small positive floor. Meaningless when !isSet().
  double secondsLeft(double floor = 0) const {
    return std::max(floor, std::chrono::duration<double>(at_ - Clock::now()).count());
  }

private:
  Clock::time_point at_ = Clock::time_point::max();
};

} // namespace ttlplan
