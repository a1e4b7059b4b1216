#pragma once
// The device description files of ir/devices/, compiled into the binary (cmake/EmbedFiles.cmake).
#include <string_view>
#include <vector>

namespace ttlplan::ir {

struct EmbeddedFile {
  std::string_view name; ///< file stem, e.g. "wormhole_b0"
  std::string_view text; ///< the file's JSON text
};

/// Every embedded device file, sorted by name.
const std::vector<EmbeddedFile>& embeddedDevices();

} // namespace ttlplan::ir
