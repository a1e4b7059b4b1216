#pragma once
// The device description files of ir/devices/ and ir/devices/pto/, compiled into the binary (cmake/EmbedFiles.cmake).
#include <string_view>
#include <vector>

namespace ttlplan::ir {

struct EmbeddedFile {
  std::string_view name; ///< file stem, e.g. "wormhole_b0"
  std::string_view text; ///< the file's JSON text
};

/// Every embedded device file of ir/devices/ (Tenstorrent), sorted by name.
const std::vector<EmbeddedFile>& embeddedDevices();
/// Every embedded file of ir/devices/pto/ (Ascend, the pto-isa target), sorted by name.
const std::vector<EmbeddedFile>& embeddedPtoDevices();

} // namespace ttlplan::ir
