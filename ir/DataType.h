#pragma once
// Tile data types of TTL (docs/language.md, `!ttcore.tile<32x32, DT>`).
#include <optional>
#include <string_view>

namespace ttlplan::ir {

enum class DataType { BF16, F32, F16, BFP8_B, BFP4_B, I32, U32 };

/// The spelling used in TTL source ("bf16", "bfp8_b", ...).
std::string_view toString(DataType type);
/// Parses a spelling; nullopt when it is not a tile data type.
std::optional<DataType> parseDataType(std::string_view text);
/// Every data type, in declaration order.
inline constexpr DataType kAllDataTypes[] = {DataType::BF16,   DataType::F32,    DataType::F16,
                                             DataType::BFP8_B, DataType::BFP4_B, DataType::I32,
                                             DataType::U32};

} // namespace ttlplan::ir
