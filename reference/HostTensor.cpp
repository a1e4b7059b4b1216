#include "ttlplan/reference/HostTensor.h"

#include "ttlplan/support/Checked.h"

#include <cstdint>

namespace ttlplan::reference {

int64_t elementCount(const std::vector<int64_t>& shape) {
  for (int64_t d : shape)
    if (d < 0) return -1;
  return checkedProduct(shape).value_or(-1);
}

} // namespace ttlplan::reference
