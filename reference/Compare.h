#pragma once
// Comparing an output of the emulated kernel with the reference (docs/reference.md, "Tolerance").
// Errors are measured against the largest magnitude of the expected tensor, not element by
// element, so elements near zero (where a relative error explodes) are judged on the tensor's
// scale, which is how a bf16 pipeline's rounding errors actually behave.
#include "ttlplan/ir/DataType.h"
#include "ttlplan/reference/HostTensor.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ttlplan::reference {

/// Pass iff for every element i: |actual_i - expected_i| <= relative * max(S, absoluteFloor),
/// where S = max_j |expected_j|.
struct Tolerance {
  double relative = 0;
  double absoluteFloor = 0;
};

/// The tolerance for an output stored as `type` after a computation whose longest reduction sums
/// `reductionLength` elements into one (K of a matmul, the row length of a reduce_sum; 0 or 1 for
/// elementwise kernels). See docs/reference.md for the derivation:
///   n = ceil(max(reductionLength, 1) / 32)   (worst case: a partial result is packed per K tile)
///   relative = u(type) * (3 + sqrt(n)) + 2^-20 * (1 + sqrt(max(reductionLength, 1)))
///   absoluteFloor = 2^-10
/// with the unit roundoff u: bf16 2^-8, f16 2^-11, f32 2^-24, bfp8_b 2^-7, bfp4_b 2^-3 (block
/// floats: relative to the group's largest element), i32/u32 0.
Tolerance toleranceFor(ir::DataType type, int64_t reductionLength);

struct Comparison {
  double maxAbsError = 0; ///< max_i |actual_i - expected_i| (infinite for a NaN or Inf mismatch)
  double maxRelError = 0; ///< maxAbsError / max(S, absoluteFloor)
  size_t worstIndex = 0;  ///< flat (row-major) index of maxAbsError
  bool withinTolerance = false;
  std::string summary; ///< one line: verdict, worst element with its index, how many are off
};

/// Compares element by element. Different shapes never pass. NaN matches NaN and an infinity
/// matches the same infinity; any other non-finite mismatch fails.
Comparison compare(const HostTensor& actual, const HostTensor& expected,
                   const Tolerance& tolerance);

} // namespace ttlplan::reference
