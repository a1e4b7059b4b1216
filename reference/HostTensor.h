#pragma once
// A tensor on the host: the reference's inputs and outputs (docs/reference.md).
#include <cstdint>
#include <vector>

namespace ttlplan::reference {

/// Row-major elements; `data.size()` is the product of `shape`.
struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<double> data;
};

/// The number of elements of `shape` (1 for rank 0); -1 when a dimension is negative or the
/// product overflows.
int64_t elementCount(const std::vector<int64_t>& shape);

} // namespace ttlplan::reference
