#include "ttlplan/ir/DataType.h"

namespace ttlplan::ir {

std::string_view toString(DataType type) {
  switch (type) {
  case DataType::BF16:
    return "bf16";
  case DataType::F32:
    return "f32";
  case DataType::F16:
    return "f16";
  case DataType::BFP8_B:
    return "bfp8_b";
  case DataType::BFP4_B:
    return "bfp4_b";
  case DataType::I32:
    return "i32";
  case DataType::U32:
    return "u32";
  }
  return "?";
}

std::optional<DataType> parseDataType(std::string_view text) {
  for (DataType type : kAllDataTypes)
    if (toString(type) == text) return type;
  // tt-mlir's ttcore spellings of the same formats (tt-lang's IR writes these).
  if (text == "bfp_bf8") return DataType::BFP8_B;
  if (text == "bfp_bf4") return DataType::BFP4_B;
  if (text == "si32") return DataType::I32;
  return std::nullopt;
}

} // namespace ttlplan::ir
