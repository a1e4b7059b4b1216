// ttlplan CPU emulator: MeshWorkload of TT-Metalium's tt-metalium/mesh_workload.hpp.
#pragma once

#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/hal_types.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/program.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace tt::tt_metal::distributed {

class MeshDevice;

class MeshWorkload {
public:
  MeshWorkload() = default;
  /// The program to run on the devices of `device_range` (the one device of the unit mesh).
  void add_program(const MeshCoordinateRange& device_range, Program&& program);
  std::vector<Program>& programs() { return programs_; }
  /// L1 address of the CB config entries on `logical_core` after the last run: 4 words per CB
  /// index (address, size, pages, page size), as TT-Metalium writes them for the firmware.
  /// "For testing purposes only" in TT-Metalium too.
  uint32_t get_cb_base_addr(std::shared_ptr<MeshDevice>& mesh_device, CoreCoord logical_core,
                            CoreType core_type);

private:
  std::vector<Program> programs_;
};

} // namespace tt::tt_metal::distributed
