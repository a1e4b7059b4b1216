#pragma once
// Deterministic random inputs for `ttlplan run`: the same seed gives the same numbers on every
// platform (std::mt19937_64's output is fixed by the standard; the mapping to [-1, 1) is written
// out here instead of using std::uniform_real_distribution, whose algorithm is not).
#include "ttlplan/ir/DataType.h"
#include "ttlplan/reference/HostTensor.h"

#include <cstdint>
#include <vector>

namespace ttlplan::reference {

/// `value` rounded to the nearest value of `type` (ties to even): bf16 (8 significant bits), f16
/// (11, with its subnormals), f32 (24); integers to the nearest integer in range. Block-float
/// types share an exponent per group, so for them use roundTensorToDataType.
double roundToDataType(double value, ir::DataType type);

/// Rounds every element of `tensor` to `type`. For bfp8_b / bfp4_b each group of 16 consecutive
/// elements of a row (aligned at column multiples of 16, the emulator's layout) shares the largest
/// exponent of the group, and each element keeps 7 (bfp8_b) or 3 (bfp4_b) magnitude bits below
/// that exponent's leading bit, rounded to nearest even.
void roundTensorToDataType(HostTensor& tensor, ir::DataType type);

/// A tensor of `shape` with elements uniform in [-1, 1), then rounded to `type`
/// (roundTensorToDataType). Integer types give -1, 0 or 1 (u32: 0 or 1). Each (seed, argIndex)
/// pair is an independent stream, so the arguments of one kernel do not repeat each other.
HostTensor randomTensor(const std::vector<int64_t>& shape, ir::DataType type, uint64_t seed,
                        int argIndex);

} // namespace ttlplan::reference
