// ttlplan CPU emulator: the Bfp4_b packing of TT-Metalium's tt-metalium/bfloat4.hpp (576 B a tile:
// 64 shared exponents, then 1024 4-bit sign + mantissa values).
#pragma once

#include "tt_stl/span.hpp"

#include <cstdint>
#include <vector>

std::vector<uint32_t> pack_as_bfp4_tiles(tt::stl::Span<const float> data, bool row_major_input,
                                         bool is_exp_a);
std::vector<float> unpack_bfp4_tiles_into_float_vec(tt::stl::Span<const uint32_t> bfp4_tiles,
                                                    bool row_major_output, bool is_exp_a);
