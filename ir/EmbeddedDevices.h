#pragma once
// The device description files of ir/devices/ and ir/devices/pto/, compiled into the binary
// (cmake/EmbedFiles.cmake).
#include <algorithm>
#include <string>
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

/// The file of `files` named `name`, or null.
inline const EmbeddedFile* findEmbedded(const std::vector<EmbeddedFile>& files,
                                        std::string_view name) {
  for (const EmbeddedFile& file : files)
    if (file.name == name) return &file;
  return nullptr;
}

/// The names of `files`, sorted; ", "-joined in `joined` when it is given.
inline std::vector<std::string> embeddedNames(const std::vector<EmbeddedFile>& files,
                                              std::string* joined = nullptr) {
  std::vector<std::string> names;
  for (const EmbeddedFile& file : files)
    names.emplace_back(file.name);
  std::sort(names.begin(), names.end());
  if (joined)
    for (const std::string& name : names)
      *joined += (joined->empty() ? "" : ", ") + name;
  return names;
}

} // namespace ttlplan::ir
