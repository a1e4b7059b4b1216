// ttlplan CPU emulator: TT-Metalium's tt-metalium/distributed.hpp: buffer transfers and runs on a
// mesh. Every call completes before it returns (blocking or not).
#pragma once

#include "tt-metalium/mesh_buffer.hpp"
#include "tt-metalium/mesh_device.hpp"
#include "tt-metalium/mesh_workload.hpp"
#include "ttlplan_emu_kernel.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ttlplan::emu {
/// Copies `bytes` into / out of the buffer's pages, in page order; false after an error report.
bool writeMeshBuffer(tt::tt_metal::distributed::MeshBuffer& buffer, const void* data,
                     std::size_t bytes, const SourceLoc& loc);
bool readMeshBuffer(tt::tt_metal::distributed::MeshBuffer& buffer, void* data, std::size_t bytes,
                    const SourceLoc& loc);
} // namespace ttlplan::emu

namespace tt::tt_metal::distributed {

/// `src` must hold at least the buffer's size in bytes.
template <typename DType>
void EnqueueWriteMeshBuffer(MeshCommandQueue& mesh_cq, std::shared_ptr<MeshBuffer>& mesh_buffer,
                            const std::vector<DType>& src, bool blocking = false,
                            ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current()) {
  (void)mesh_cq, (void)blocking;
  ::ttlplan::emu::writeMeshBuffer(*mesh_buffer, src.data(), src.size() * sizeof(DType), loc);
}

/// Resizes `dst` to the buffer's size / sizeof(DType).
template <typename DType>
void EnqueueReadMeshBuffer(MeshCommandQueue& mesh_cq, std::vector<DType>& dst,
                           std::shared_ptr<MeshBuffer>& mesh_buffer, bool blocking = true,
                           ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current()) {
  (void)mesh_cq, (void)blocking;
  dst.resize(mesh_buffer->size() / sizeof(DType));
  ::ttlplan::emu::readMeshBuffer(*mesh_buffer, dst.data(), dst.size() * sizeof(DType), loc);
}

/// Runs the workload's program: one thread per (core, kernel), joined before it returns. The
/// first run places the program's CBs (creation order, aligned) and checks it against the device.
void EnqueueMeshWorkload(MeshCommandQueue& mesh_cq, MeshWorkload& mesh_workload, bool blocking,
                         ttlplan::emu::SourceLoc loc = ttlplan::emu::SourceLoc::current());
void Finish(MeshCommandQueue& mesh_cq);

} // namespace tt::tt_metal::distributed
