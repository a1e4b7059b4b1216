#pragma once
// TTL types as pto-isa C++ types (docs/pto.md, "Generated C++"): a block of 32x32 tiles in a
// memory is one pto::Tile of (32 B) x (32 C) elements; a DRAM tensor (or a slice of it) is a
// pto::GlobalTensor over `__gm__` elements. The spellings follow hw-native-sys/pto-isa
// include/pto/common/pto_tile.hpp (docs/pto-facts.md, section 3).
#include "ttlplan/ir/Types.h"
#include "ttlplan/planner/pto/Problem.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ttlplan::codegen::pto {

/// The C++ element type of a TTL data type: bfloat16_t, half, float, int32_t, uint32_t.
Expected<std::string> elementType(std::string_view dataType);

/// Elements per tile side (TTL tiles are 32 x 32).
inline constexpr int64_t kTileSide = 32;

/// The pto::Tile type of one slot of a buffer: its memory's TileType (Vec, Mat, Left, Right,
/// Acc), the element type (float for Acc), and rows x columns of the block in elements. Vec
/// tiles are row-major; the matmul tiles use pto-isa's aliases (TileLeft, TileRight, TileAcc)
/// and the Nz Mat tile TLOAD fills from an ND tensor. A per-row buffer (a row reduction's value)
/// is a (32 B) x 1 ColMajor Vec tile, what pto-isa's TROWSUM writes and TROWEXPAND<op> reads.
Expected<std::string> tileType(const planner::pto::BufferSpec& buffer);

/// The row-major 1 x (32 B) Vec tile over a per-row buffer's bytes: elementwise ops take
/// row-major tiles only (docs/isa/TRECIP.md), so they work on the value through this alias.
Expected<std::string> rowAliasType(const planner::pto::BufferSpec& buffer);

/// `GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<1, 1, 1, W, 1>>`: a rows x cols window of a
/// row-major tensor `width` elements wide.
std::string globalTensorType(const std::string& element, int64_t rows, int64_t cols, int64_t width);

} // namespace ttlplan::codegen::pto
