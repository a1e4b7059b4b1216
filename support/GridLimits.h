#pragma once
// The grid limits every layer checks against, in one place: the device description's NoC
// coordinates (ir/Device.cpp) and the sane bound on a kernel's or a plan's grid (extraction, the
// cores planner, stored plans, the host program's messages). Whether a grid fits a given device
// is the planner's check against ir::Device; these bound what any input may name.
#include <cstdint>

namespace ttlplan {

/// NoC coordinates are 6-bit fields: no device grid is wider or taller than this, and no
/// translated coordinate reaches it.
inline constexpr int64_t kMaxNocCoordinate = 64;

/// The longest grid side a kernel, a plan or a stored plan may name: far above any chip (see
/// kMaxNocCoordinate), and small enough that rows * cols fits an `int` and one work range per
/// core fits in memory. Larger is refused as malformed rather than checked against a device.
inline constexpr int64_t kMaxGridSide = 1024;

} // namespace ttlplan
