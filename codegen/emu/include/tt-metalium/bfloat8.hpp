// ttlplan CPU emulator: the Bfp8_b packing of TT-Metalium's tt-metalium/bfloat8.hpp. A tile is
// 64 shared exponents (one per 16 consecutive values, i.e. one per face row), then 1024 sign +
// mantissa bytes: 1088 B. row_major_input: each tile row-major (else already in face order).
#pragma once

#include "tt_stl/span.hpp"

#include <cstdint>
#include <vector>

std::vector<uint32_t> pack_as_bfp8_tiles(tt::stl::Span<const float> data, bool row_major_input,
                                         bool is_exp_a);
std::vector<float> unpack_bfp8_tiles_into_float_vec(tt::stl::Span<const uint32_t> bfp8_tiles,
                                                    bool row_major_output, bool is_exp_a);
