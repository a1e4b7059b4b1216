#pragma once
// pto-isa C++ for one planned TTL kernel (docs/pto.md, "Generated C++"): a visitor over the
// kernel's threads that fuses them into the one instruction stream an AI core issues, with the
// pieces the seed design separates: an emitter (CodeEmitter: lines and indentation), a context
// (Context: the C++ name of every value), a type converter (TypeConverter.h) and the op table
// (the op registry's `pto` field: one list of op -> instruction).
//
// The threads' loops are fused level by level (a work_loop with the work_loop, scf.for with the
// scf.for of the same bounds); at each level the reader's ops come before the compute thread's,
// which come before the writer's. Each instruction goes to its pipe's queue, so the pipes still
// run concurrently: the flags the plan numbered order them (a ready flag per slot from the
// filling pipe to the draining one, a free flag back, each free flag set once before the first
// use and waited for at the end).
#include "ttlplan/ir/Diagnostics.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/ir/Params.h"
#include "ttlplan/planner/pto/Plan.h"
#include "ttlplan/support/Expected.h"

#include <string>

namespace ttlplan::codegen::pto {

struct KernelInput {
  ir::Operation* kernel = nullptr;                ///< a verified ttl.kernel
  const planner::pto::Problem* problem = nullptr; ///< lower::extractPtoProblem's
  const planner::pto::Plan* plan = nullptr;       ///< its plan
  ir::Binding binding;
  std::string file;                           ///< the TTL file, for the header comment
  const ir::SourceManager* sources = nullptr; ///< for the source-line comments
};

/// The C++ file of the kernel; an error is located at the op the pto target cannot lower.
Expected<std::string> writeKernel(const KernelInput& input);

} // namespace ttlplan::codegen::pto
