#pragma once
// The host program of one lowered kernel (docs/emulator.md, "Host API"): device and program, one
// DRAM buffer per tensor argument filled from INPUT_DIR/<name>.npy, the planned CBs at their
// planned L1 addresses, the semaphores, one CreateKernel per ttl.launch with the CB indices as
// compile-time args, the runtime args of every core, then run and dump every buffer to
// OUTPUT_DIR/<name>.npy. Every number comes from an attribute a pass left; nothing is decided here.
#include "ttlplan/codegen/KernelEmitter.h"
#include "ttlplan/ir/Device.h"

#include <optional>
#include <string>
#include <vector>

namespace ttlplan::codegen {

/// `kernel` is a `ttl.kernel` after the full pipeline (kernel-scope ops and ttl.launch only);
/// `funcs` are its thread functions (the launches' callees). Errors (a missing plan attribute, a
/// tensor layout or data type the host cannot create) go to `diagnostics`; the result is then
/// nullopt.
std::optional<std::string> emitHost(ir::Operation& kernel, const std::vector<ir::Operation*>& funcs,
                                    const ir::Device& device, const EmitOptions& options,
                                    ir::DiagnosticEngine& diagnostics);

/// The TT-Metalium `tt::DataFormat` enumerator of a tile data type ("Float16_b", ...).
std::string_view dataFormatName(ir::DataType type);

} // namespace ttlplan::codegen
