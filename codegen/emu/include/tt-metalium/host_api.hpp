// ttlplan CPU emulator: TT-Metalium's tt-metalium/host_api.hpp, the program-building calls
// (docs/emulator.md "Host API"). Nothing throws: a misuse is reported as an emulator error.
#pragma once

#include "hostdevcommon/kernel_structs.h"
#include "tt-metalium/circular_buffer_config.hpp"
#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/kernel_types.hpp"
#include "tt-metalium/program.hpp"
#include "ttlplan_emu_kernel.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

namespace tt::tt_metal {

using KernelHandle = std::uint32_t;
using CBHandle = std::uintptr_t;

Program CreateProgram();

/// CBs are placed at EnqueueMeshWorkload, in creation order (docs/emulator.md).
CBHandle CreateCircularBuffer(Program& program,
                              const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                              const CircularBufferConfig& config,
                              ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

/// `file_name` is matched against the registered kernels (ttlplan_emu_kernel.h): the registered
/// path itself or any path ending in "/" + it (an absolute path to the generated kernel).
KernelHandle CreateKernel(Program& program, const std::string& file_name,
                          const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                          const std::variant<DataMovementConfig, ComputeConfig>& config,
                          ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                    std::initializer_list<uint32_t> runtime_args,
                    ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
void SetRuntimeArgs(const Program& program, KernelHandle kernel,
                    const std::variant<CoreCoord, CoreRange, CoreRangeSet>& core_spec,
                    const std::vector<uint32_t>& runtime_args,
                    ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

/// Semaphore ids are 0, 1, ... in creation order; initial_value is written at every run.
uint32_t CreateSemaphore(Program& program, const std::variant<CoreRange, CoreRangeSet>& core_spec,
                         uint32_t initial_value,
                         ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());

} // namespace tt::tt_metal
