// TTL types as pto-isa C++ types (TypeConverter.h).
#include "ttlplan/codegen/pto/TypeConverter.h"

#include <fmt/format.h>
#include <numeric>

namespace ttlplan::codegen::pto {

namespace pp = planner::pto;

Expected<std::string> elementType(std::string_view dataType) {
  if (dataType == "bf16") return std::string("bfloat16_t");
  if (dataType == "f16") return std::string("half");
  if (dataType == "f32") return std::string("float");
  if (dataType == "i32") return std::string("int32_t");
  if (dataType == "u32") return std::string("uint32_t");
  return Error{fmt::format("the pto target has no C++ element type for '{}'", dataType)};
}

Expected<std::string> tileType(const pp::BufferSpec& buffer) {
  if (buffer.blockShape.size() != 2)
    return Error{fmt::format("{}: the pto target lowers 2-d blocks; {} has {} dims",
                             buffer.location, buffer.name, buffer.blockShape.size())};
  const int64_t rows = buffer.blockShape[0] * kTileSide;
  const int64_t cols = buffer.blockShape[1] * kTileSide;
  Expected<std::string> element = elementType(buffer.dataType);
  if (!element) return element.error();
  if (buffer.perRow)
    return fmt::format("Tile<TileType::Vec, {}, {}, 1, BLayout::ColMajor>", *element, rows);
  switch (buffer.memory) {
  case pp::Memory::Ub:
    return fmt::format("Tile<TileType::Vec, {}, {}, {}, BLayout::RowMajor>", *element, rows, cols);
  case pp::Memory::L1: // Nz: what TLOAD writes from an ND tensor and TEXTRACT reads
    return fmt::format("Tile<TileType::Mat, {}, {}, {}, BLayout::ColMajor, {}, {}, "
                       "SLayout::RowMajor, 512>",
                       *element, rows, cols, rows, cols);
  case pp::Memory::L0a:
    return fmt::format("TileLeft<{}, {}, {}>", *element, rows, cols);
  case pp::Memory::L0b:
    return fmt::format("TileRight<{}, {}, {}>", *element, rows, cols);
  case pp::Memory::L0c:
    return fmt::format("TileAcc<float, {}, {}>", rows, cols);
  }
  return Error{"unknown memory"};
}

Expected<std::string> rowAliasType(const pp::BufferSpec& buffer) {
  Expected<std::string> element = elementType(buffer.dataType);
  if (!element) return element.error();
  const int64_t rows = buffer.blockShape.empty() ? 0 : buffer.blockShape[0] * kTileSide;
  return fmt::format("Tile<TileType::Vec, {}, 1, {}, BLayout::RowMajor>", *element, rows);
}

std::string globalTensorType(const std::string& element, int64_t rows, int64_t cols,
                             int64_t width) {
  return fmt::format("GlobalTensor<{}, Shape<1, 1, 1, {}, {}>, Stride<1, 1, 1, {}, 1>>", element,
                     rows, cols, width);
}

} // namespace ttlplan::codegen::pto
