#pragma once
// Running a child process (g++, a generated host program) with its output captured in a file.
#include "ttlplan/support/Expected.h"

#include <string>
#include <vector>

namespace ttlplan {

struct ProcessResult {
  int exitCode = 0;      ///< the child's exit status; 128 + N when killed by signal N
  std::string output;    ///< what it wrote to stdout and stderr, interleaved
  bool timedOut = false; ///< killed at the time limit
  int interruptedBy = 0; ///< SIGINT, SIGTERM or SIGHUP that reached us while it ran (it is killed)
};

/// Runs `argv` (argv[0] looked up in PATH) with `environment` entries ("NAME=value") added to
/// ours, waits for it and returns its status and output. An Error only when it cannot start.
/// The child runs in its own process group, which is killed (SIGKILL) when `timeLimitSeconds`
/// (> 0) passes or when we get SIGINT, SIGTERM or SIGHUP meanwhile: nothing it started outlives
/// the call. Not for several threads at once (the signal handlers are process-wide).
Expected<ProcessResult> runProcess(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& environment = {},
                                   double timeLimitSeconds = 0);

} // namespace ttlplan
