#include "ttlplan/support/Npy.h"

#include "ttlplan/support/ReadFile.h"

#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <fstream>

namespace ttlplan {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// Element counts above this are refused before allocating (16 GiB of float32).
constexpr int64_t kMaxElements = int64_t{1} << 32;

uint32_t littleEndian(std::string_view bytes, size_t at, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

/// The text of `key`'s value in the header dict (a Python literal), or empty when absent.
std::string_view dictValue(std::string_view header, std::string_view key) {
  for (char quote : {'\'', '"'}) {
    // Built with append: GCC 12 warns (-Wrestrict, a false positive) on string&& + string&&.
    std::string quoted(1, quote);
    quoted.append(key).push_back(quote);
    size_t k = header.find(quoted);
    if (k == std::string_view::npos) continue;
    size_t colon = header.find(':', k + quoted.size());
    if (colon == std::string_view::npos) return {};
    size_t start = header.find_first_not_of(" \t", colon + 1);
    if (start == std::string_view::npos) return {};
    char open = header[start];
    size_t end;
    if (open == '(') {
      end = header.find(')', start);
      if (end == std::string_view::npos) return {};
      ++end;
    } else if (open == '\'' || open == '"') {
      end = header.find(open, start + 1);
      if (end == std::string_view::npos) return {};
      ++end;
    } else {
      end = header.find_first_of(",}", start);
      if (end == std::string_view::npos) end = header.size();
    }
    std::string_view v = header.substr(start, end - start);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
      v.remove_suffix(1);
    return v;
  }
  return {};
}

bool parseShape(std::string_view text, std::vector<int64_t>& shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return false;
  text = text.substr(1, text.size() - 2);
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ','))
      ++i;
    if (i == text.size()) break;
    if (text[i] < '0' || text[i] > '9') return false;
    int64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (text[i++] - '0');
    }
    while (i < text.size() && text[i] == 'L')
      ++i; // Python 2 longs
    if (i < text.size() && text[i] != ',' && text[i] != ' ') return false;
    shape.push_back(v);
  }
  return true;
}

} // namespace

Expected<NpyArray> parseNpy(std::string_view bytes, std::string_view origin) {
  auto fail = [&](const std::string& what) {
    return Error{fmt::format("{}: not a float32 .npy file: {}", origin, what)};
  };
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic)
    return fail("it does not start with the .npy magic \\x93NUMPY");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t lengthWidth = major == 1 ? 2 : (major == 2 || major == 3) ? 4 : 0;
  if (lengthWidth == 0) return fail(fmt::format("format version {} is not 1, 2 or 3", major));
  if (bytes.size() < 8 + lengthWidth) return fail("the header is truncated");
  size_t headerLength = littleEndian(bytes, 8, lengthWidth);
  size_t dataStart = 8 + lengthWidth + headerLength;
  if (bytes.size() < dataStart)
    return fail(fmt::format("the header says {} bytes but the file ends after {}", headerLength,
                            bytes.size() - 8 - lengthWidth));
  std::string_view header = bytes.substr(8 + lengthWidth, headerLength);

  std::string_view descr = dictValue(header, "descr");
  if (descr.empty()) return fail("the header has no 'descr'");
  if (descr != "'<f4'" && descr != "\"<f4\"")
    return fail(fmt::format("dtype {} is not float32 ('<f4')", descr));
  std::string_view fortran = dictValue(header, "fortran_order");
  if (fortran == "True") return fail("Fortran order is not supported (save it in C order)");
  if (fortran != "False") return fail("the header has no fortran_order False");
  NpyArray array;
  std::string_view shapeText = dictValue(header, "shape");
  if (!parseShape(shapeText, array.shape))
    return fail(fmt::format("shape {} is not a tuple of integers", shapeText));

  int64_t count = 1;
  for (int64_t d : array.shape) {
    if (d != 0 && count > kMaxElements / d) return fail("the shape has too many elements");
    count *= d;
  }
  size_t need = static_cast<size_t>(count) * 4;
  size_t have = bytes.size() - dataStart;
  if (have < need)
    return fail(
        fmt::format("the data is truncated: shape needs {} bytes, the file has {}", need, have));
  if (have > need)
    return fail(fmt::format("{} bytes after the data; the shape needs {}", have - need, need));
  array.data.resize(static_cast<size_t>(count));
  for (size_t i = 0; i < array.data.size(); ++i) {
    uint32_t word = littleEndian(bytes, dataStart + 4 * i, 4);
    array.data[i] = std::bit_cast<float>(word);
  }
  return array;
}

Expected<NpyArray> readNpy(const std::string& path) {
  Expected<std::string> bytes = readTextFile(path);
  if (!bytes) return bytes.error();
  return parseNpy(*bytes, path);
}

Expected<std::string> encodeNpy(const NpyArray& array) {
  int64_t count = 1;
  for (int64_t d : array.shape) {
    if (d < 0 || (d != 0 && count > kMaxElements / d))
      return Error{"npy: the shape has a negative dimension or too many elements"};
    count *= d;
  }
  if (count != static_cast<int64_t>(array.data.size()))
    return Error{
        fmt::format("npy: the shape has {} elements but the data {}", count, array.data.size())};
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += fmt::format("{}{}", array.shape[i], i + 1 < array.shape.size() ? ", " : "");
  if (array.shape.size() == 1) shape += ",";
  shape += ")";
  std::string dict =
      fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': {}, }}", shape);
  // numpy pads with spaces and a newline so that the data starts on a 64-byte boundary.
  auto padded = [&](size_t prefix) {
    std::string h = dict;
    size_t total = prefix + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h += '\n';
    return h;
  };
  std::string header = padded(10);
  int major = 1;
  if (header.size() > 65535) {
    major = 2;
    header = padded(12);
  }
  std::string out(kMagic);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  out += header;
  out.reserve(out.size() + 4 * array.data.size());
  for (float f : array.data) {
    uint32_t word = std::bit_cast<uint32_t>(f);
    for (int i = 0; i < 4; ++i)
      out += static_cast<char>((word >> (8 * i)) & 0xff);
  }
  return out;
}

Status writeNpy(const std::string& path, const NpyArray& array) {
  Expected<std::string> bytes = encodeNpy(array);
  if (!bytes) return Error{fmt::format("{}: {}", path, bytes.error().message)};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error{fmt::format("cannot open '{}' for writing", path)};
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return Error{fmt::format("cannot write '{}'", path)};
  return Status::success();
}

} // namespace ttlplan
