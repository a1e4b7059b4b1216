#pragma once
// One kernel's planning problem (docs/architecture.md, "The plan is data, not IR"): everything the
// planner reads about a kernel under one knob binding, as plain data. lower/ extracts it from the
// IR (lower::extractKernelProblem); planner::kernel::plan() turns it into a KernelPlan; lower/
// applies the plan by index (CB i of the plan is create_cb i of the kernel in program order, a net
// names its pipe by index). Nothing here points into a Module, so a problem can be hashed,
// cached, compared and planned on any thread.
#include "ttlplan/planner/cores/Problem.h"
#include "ttlplan/planner/dst/Problem.h"
#include "ttlplan/planner/multicast/Problem.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttlplan::planner::kernel {

/// One `ttl.create_cb` of the kernel under the binding.
struct CbSpec {
  std::string name;                  ///< "%cba", for messages and reports
  std::string location;              ///< file:line:col of the create_cb
  std::vector<int64_t> blockShape;   ///< tiles per block dimension
  std::string dataType;              ///< "bf16", "bfp8_b", ...
  int64_t tileBytes = 0;             ///< bytes of one tile of dataType on the device
  std::optional<int64_t> blockCount; ///< nullopt for `?`: the planner chooses
  /// Tiles of one block (the product of blockShape).
  int64_t blockTiles() const;
};

/// One op of a compute chain, for messages.
struct ChainOp {
  std::string name;     ///< "ttl.matmul"
  std::string location; ///< file:line:col
  std::string result;   ///< its result's SSA name ("%mx"): intermediate CBs are named after it
};

/// One fused chain of the compute thread (the ops feeding one `ttl.store`).
struct ChainSpec {
  std::string id;       ///< "%s -> %o" (stored value -> view)
  std::string location; ///< of the ttl.store
  std::string dataType; ///< the stored view's tile type
  dst::Problem problem;
  std::vector<ChainOp> ops; ///< ops[i] is problem.chain.ops[i]
};

/// The device limits the planner checks against.
struct DeviceLimits {
  std::string device;        ///< device name, for messages
  int64_t l1Base = 0;        ///< l1_unreserved_base: CB offsets are relative to it
  int64_t l1FreeBytes = 0;   ///< L1 bytes free for CBs (L1 size - base)
  int64_t cbAlignment = 1;   ///< CB address alignment in bytes
  int cbLimit = 32;          ///< CB indices per program
  int semaphoresPerCore = 0; ///< multicast semaphore ids per core
  cores::Grid grid;          ///< the device's compute grid: a kernel's grid must fit in it
};

struct KernelProblem {
  std::string name;     ///< "@matmul"
  std::string location; ///< of the ttl.kernel
  /// What the input left out and the plan assumes (the kernel's `assumed` lines), reported.
  std::vector<std::string> assumptions;
  std::string mathFidelity = "HiFi4"; ///< kernel attribute math_fidelity under the binding
  bool fp32DestAcc = false;           ///< kernel attribute fp32_dest_acc under the binding
  std::vector<CbSpec> cbs;            ///< the kernel's create_cbs in program order
  std::vector<ChainSpec> chains;      ///< compute chains in program order
  DeviceLimits limits;
  /// The grid: the kernel's, or with autoGrid the device's (the cores solve picks a sub-grid).
  cores::Grid grid;
  bool autoGrid = false;
  std::vector<int64_t> workDims; ///< the `work` dims; empty when the kernel divides work itself
  std::optional<cores::Problem> cores; ///< set when the kernel has `work`
  /// The pipe nets on `grid`; nullopt when they depend on a grid the cores solve chooses (auto
  /// grid with pipes): the caller extracts them on the plan's grid and calls planMulticast().
  /// Net destinations are keyed by CB position (PipeNet::dstAddress), not by L1 address.
  std::optional<multicast::Problem> multicast;
};

} // namespace ttlplan::planner::kernel
