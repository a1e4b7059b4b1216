#pragma once
// The tool's name and version, one definition: from the project version in the top-level
// CMakeLists.txt (TTLPLAN_VERSION in the generated ttlplan/Config.h). It goes into
// `ttlplan --version`, tuning db headers and the header of every generated file.
#include "ttlplan/Config.h"

#include <string_view>

namespace ttlplan {

/// "ttlplan 0.1.0".
inline constexpr std::string_view kToolVersion = "ttlplan " TTLPLAN_VERSION;

} // namespace ttlplan
