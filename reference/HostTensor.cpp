#include "ttlplan/reference/HostTensor.h"

#include <cstdint>

namespace ttlplan::reference {

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && n > INT64_MAX / d)) return -1;
    n *= d;
  }
  return n;
}

} // namespace ttlplan::reference
