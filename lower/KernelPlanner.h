#pragma once
// Plans every kernel of a verified module (docs/plan.md): chooses the knob binding, extracts each
// kernel's IR-free KernelProblem (lower/Extract.h) and hands it to the planner
// (planner/kernel/Plan.h), which chooses `?` block counts and runs the solvers (DST per chain, CB
// indices, L1 placement, core assignment, multicast). Never throws; a kernel that cannot be
// planned gives an Error whose message names the resource, the shortfall, the ops with their
// locations and a concrete change that would fit. lower/ApplyPlan.h applies a plan by index.
#include "ttlplan/ir/Device.h"
#include "ttlplan/ir/Operation.h"
#include "ttlplan/lower/Extract.h"
#include "ttlplan/planner/kernel/Plan.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ttlplan::lower {

/// The planner's options and the binding to plan under.
struct PlanOptions : planner::kernel::PlanOptions {
  std::optional<ir::Binding> binding; ///< --bind; otherwise the first legal binding
  /// How the caller chose a full `binding` (the plan's ChosenBinding::source instead of
  /// "--bind"), e.g. "tuned: ..." when `ttlplan plan` searched the unbound knobs; empty: lower's.
  std::string bindingSource;
  /// `?` block counts per kernel (program order), by CB position; kernel k plans with
  /// kernelBlockCounts[k] instead of `blockCounts` when k < size() (the tuned counts of a
  /// multi-kernel module differ by kernel).
  std::vector<std::map<size_t, int64_t>> kernelBlockCounts;
  /// The kernels' plans, one per kernel in program order, already made under `binding` and
  /// `kernelBlockCounts` by the search that chose them (driver::choosePlanBinding, `tune
  /// --emit`): planModule takes them instead of planning each kernel again. Empty: plan.
  std::vector<planner::kernel::KernelPlan> kernelPlans;
};

using planner::kernel::CbPlan;
using planner::kernel::ChainPlan;
using planner::kernel::KernelPlan;
using planner::kernel::SubProblemRun;
using planner::kernel::validatePlan;

struct ModulePlan {
  std::string file;
  std::string device;
  ChosenBinding binding;
  std::vector<KernelPlan> kernels;
  double totalMilliseconds = 0; ///< wall time of planModule
};

/// The IR-free planning problem of `kernel` under `binding` (planner/kernel/Problem.h). CB i of
/// the problem is the kernel's i-th ttl.create_cb in program order; pipe nets carry the index of
/// their create_pipe and key their destination by CB position. The nets are left out (nullopt)
/// when the grid is auto and the kernel has pipes: they depend on the grid the plan chooses.
Expected<planner::kernel::KernelProblem>
extractKernelProblem(ir::Operation* kernel, const ir::Binding& binding, const ir::Device& device);

/// Plans `problem` (extracted from `kernel` under `binding`), extracting the pipe nets on the
/// chosen grid when the problem could not hold them. A rejection's `knobs` name the knobs the
/// failing resource depends on.
planner::kernel::PlanResult planKernel(ir::Operation* kernel,
                                       const planner::kernel::KernelProblem& problem,
                                       const ir::Binding& binding, const ir::Device& device,
                                       const planner::kernel::PlanOptions& options,
                                       planner::kernel::PlanCache* cache = nullptr);

/// Why planModule found no plan, as data: the kernel that did not fit and the planner's reason.
struct PlanFailure {
  ModulePlan partial; ///< file, device, binding, and the kernels planned before the failing one
  std::string kernel; ///< "@huge"
  planner::kernel::Rejection rejection;
  std::vector<std::string> cbNames; ///< the names of rejection.cbs ("%cba"), in its order
};

/// Plans every kernel of `module` (which must have passed ir::verify); a kernel that cannot be
/// planned gives an Error with its rejection's message, and, when `failure` is given, fills it
/// (other errors, such as a binding that does not fit the knobs, leave it untouched). With
/// options.kernelPlans, those are the kernels' plans (they must name the module's kernels in
/// order) and nothing is planned.
Expected<ModulePlan> planModule(ir::Module& module, const ir::Device& device,
                                const PlanOptions& options = {}, PlanFailure* failure = nullptr);

} // namespace ttlplan::lower
