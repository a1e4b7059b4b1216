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
  return std::nullopt;
}

} // namespace ttlplan::ir
