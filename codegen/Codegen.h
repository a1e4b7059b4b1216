#pragma once
// `ttlplan compile`'s library side: the files generated from a fully lowered module
// (docs/codegen.md). Per kernel K: K/reader.cpp, K/compute.cpp, K/writer.cpp (the threads it has)
// and K/host.cpp; with a plan, plan.json and report.txt.
#include "ttlplan/codegen/KernelEmitter.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/lower/KernelPlanner.h"
#include "ttlplan/support/Expected.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace ttlplan::codegen {

/// One `ttl.kernel` and its thread functions (the top-level func.func ops with `ttl.kernel = @K`).
struct KernelThreads {
  std::string name;                           ///< K, without '@'
  ir::Operation* kernel = nullptr;            ///< the ttl.kernel
  std::array<ir::Operation*, 3> threads = {}; ///< by ThreadKind; null when the kernel lacks it
  std::vector<ir::Operation*> funcs() const;  ///< the non-null threads, in ThreadKind order
};

/// The kernels of `module`, each with its thread functions. A kernel that still has
/// ttl.*_thread ops, has no thread function, or two functions for one thread is an error.
std::optional<std::vector<KernelThreads>> collectKernels(ir::Module& module,
                                                         ir::DiagnosticEngine& diagnostics);

/// The .npy reading and writing every host.cpp includes (codegen/emu/include/ttlplan_npy.hpp),
/// written next to the kernels' folders so that a host program builds without ttlplan installed.
inline constexpr std::string_view kNpyHeaderFile = "ttlplan_npy.hpp";
std::string_view npyHeader();
/// The CMakeLists.txt that builds every kernel's host program against TT-Metalium
/// (`find_package(TT-Metalium)`, `TT::Metalium`), written next to the kernels' folders.
inline constexpr std::string_view kSdkCMakeFile = "CMakeLists.txt";
std::string emitSdkCMake(const std::vector<std::string>& kernels, const std::string& provenance);

struct GeneratedFile {
  std::string path; ///< relative to the output directory, '/'-separated: "eltwise_add/reader.cpp"
  std::string text;
};

/// Every file of `ttlplan compile` for `module` (after the full pipeline), in a stable order:
/// per kernel its thread files then host.cpp; then ttlplan_npy.hpp and CMakeLists.txt; then
/// plan.json and report.txt
/// when `plan` is given.
std::optional<std::vector<GeneratedFile>> emitModule(ir::Module& module, const ir::Device& device,
                                                     const lower::ModulePlan* plan,
                                                     const EmitOptions& options,
                                                     ir::DiagnosticEngine& diagnostics);

/// The paths emitModule will give for `source`, a verified module as written (before the
/// pipeline), in emitModule's order: what a build system must know at configure time
/// (`compile --list-outputs`, ttlplan_add_kernel). `planned`: plan.json and report.txt too.
std::vector<std::string> outputPaths(ir::Module& source, bool planned);

/// Writes `files` under `dir` (created with its parents); a file whose content is already there
/// is not rewritten (its time stamp stays, so a build that depends on it does nothing). Per file,
/// whether it was written. The error names the path and the OS reason.
Expected<std::vector<bool>> writeFiles(const std::string& dir,
                                       const std::vector<GeneratedFile>& files);

/// "ttlplan 0.1.0, device wormhole_b0, binding BK=2, BM=4 (--bind)" ("binding none" without a
/// plan or knobs): what every generated file names in its header.
std::string provenance(const ir::Device& device, const lower::ModulePlan* plan);

} // namespace ttlplan::codegen
