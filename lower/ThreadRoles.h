#pragma once
// Which thread of a source kernel becomes which RISC-V thread: the compute thread is "compute",
// the first data-movement thread the reader on NoC 0, the second the writer on NoC 1. One rule for
// expand-threads (which names the functions and sets ttl.kernel_thread) and for `compile
// --list-outputs` (which names the generated files before anything is planned).
#include "ttlplan/ir/Operation.h"

#include <string>
#include <vector>

namespace ttlplan::lower {

struct ThreadRole {
  ir::Operation* thread; ///< the ttl.compute_thread or ttl.datamovement_thread
  std::string suffix;    ///< "reader", "compute", "writer": function suffix and file stem
  std::string noc;       ///< ttl.kernel_thread: "noc0", "compute", "noc1"
};

/// The threads of `kernel` (a ttl.kernel) in body order with their roles.
std::vector<ThreadRole> threadRoles(ir::Operation* kernel);

} // namespace ttlplan::lower
