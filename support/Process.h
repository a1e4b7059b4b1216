#pragma once
// Running a child process (g++, a generated host program) with its output captured in a file.
#include "ttlplan/support/Expected.h"

#include <string>
#include <vector>

namespace ttlplan {

struct ProcessResult {
  int exitCode = 0;   ///< the child's exit status; 128 + N when killed by signal N
  std::string output; ///< what it wrote to stdout and stderr, interleaved
};

/// Runs `argv` (argv[0] looked up in PATH) with `environment` entries ("NAME=value") added to
/// ours, waits for it and returns its status and output. An Error only when it cannot start.
Expected<ProcessResult> runProcess(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& environment = {});

} // namespace ttlplan
