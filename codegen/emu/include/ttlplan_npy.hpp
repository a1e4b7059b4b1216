// ttlplan's .npy reading and writing for host programs: float32 2-D C-order arrays, and the
// padding and cropping of a tensor that is not whole tiles (docs/language.md, "Tensors of any
// shape"). Standard library only: `ttlplan compile` copies this header next to every host.cpp, so
// the host program builds against the emulator and against the real TT-Metalium alike. Nothing
// throws; failures return false with a message that names the file and the problem.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace ttlplan::npy {

/// A row-major float matrix.
struct Matrix {
  uint64_t rows = 0;
  uint64_t cols = 0;
  std::vector<float> data; // rows * cols values, row-major
};

namespace detail {

/// The value of `key` in a .npy header dict ("{'descr': '<f4', 'fortran_order': False, ...}"),
/// up to the next top-level comma or closing brace; empty if absent.
inline std::string headerValue(const std::string& header, const std::string& key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) at = header.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  at = header.find(':', at);
  if (at == std::string::npos) return "";
  ++at;
  int depth = 0;
  size_t end = at;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    if (depth < 0) break;
  }
  std::string v = header.substr(at, end - at);
  size_t b = v.find_first_not_of(" \t"), e = v.find_last_not_of(" \t");
  return b == std::string::npos ? "" : v.substr(b, e - b + 1);
}

} // namespace detail

/// Reads a 2-D float32 .npy file (format version 1, 2 or 3).

inline bool readNpy(const std::string& path, Matrix& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open";
    return false;
  }
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = path + ": not a .npy file (no \\x93NUMPY magic)";
    return false;
  }
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t headerLen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) {
      error = path + ": truncated .npy header";
      return false;
    }
    headerLen = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) {
      error = path + ": truncated .npy header";
      return false;
    }
    headerLen = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  } else {
    error = path + ": unsupported .npy format version " + std::to_string(major);
    return false;
  }
  std::string header(headerLen, '\0');
  if (headerLen > (1u << 20) || !in.read(header.data(), headerLen)) {
    error = path + ": truncated .npy header";
    return false;
  }
  const std::string descr = detail::headerValue(header, "descr");
  if (descr != "'<f4'" && descr != "\"<f4\"") {
    error = path + ": dtype " + (descr.empty() ? std::string("(none)") : descr) +
            " is not little-endian float32 ('<f4'); save with array.astype(numpy.float32)";
    return false;
  }
  if (detail::headerValue(header, "fortran_order") != "False") {
    error = path + ": array is in Fortran order; save a C-order array (numpy.ascontiguousarray)";
    return false;
  }
  std::string shape = detail::headerValue(header, "shape");
  std::vector<uint64_t> dims;
  {
    std::string digits;
    for (char c : shape + ",") {
      if (c >= '0' && c <= '9') {
        digits += c;
      } else if (!digits.empty()) {
        dims.push_back(std::stoull(digits));
        digits.clear();
      }
    }
  }
  if (dims.size() != 2) {
    error = path + ": shape " + shape + " is not 2-D";
    return false;
  }
  const uint64_t count = dims[0] * dims[1];
  if (dims[0] != 0 && count / dims[0] != dims[1]) {
    error = path + ": shape " + shape + " is too large";
    return false;
  }
  out.rows = dims[0];
  out.cols = dims[1];
  out.data.assign(count, 0.0f);
  if (!in.read(reinterpret_cast<char*>(out.data.data()), static_cast<std::streamsize>(count * 4))) {
    error = path + ": file ends before its " + std::to_string(count) + " values";
    return false;
  }
  return true;
}

inline bool readNpyOfShape(const std::string& path, uint64_t rows, uint64_t cols, Matrix& out,
                           std::string& error) {
  if (!readNpy(path, out, error)) return false;
  if (out.rows == rows && out.cols == cols) return true;
  error = path + ": expected a " + std::to_string(rows) + "x" + std::to_string(cols) +
          " matrix, found " + std::to_string(out.rows) + "x" + std::to_string(out.cols);
  return false;
}

inline bool writeNpy(const std::string& path, const Matrix& m, std::string& error) {
  if (m.data.size() != m.rows * m.cols) {
    error = path + ": matrix holds " + std::to_string(m.data.size()) + " values, not " +
            std::to_string(m.rows) + " x " + std::to_string(m.cols);
    return false;
  }
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                       std::to_string(m.rows) + ", " + std::to_string(m.cols) + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
  while ((10 + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = path + ": cannot write";
    return false;
  }
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char lenBytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write("\x93NUMPY\x01\x00", 8);
  out.write(lenBytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(m.data.data()),
            static_cast<std::streamsize>(m.data.size() * 4));
  if (!out) {
    error = path + ": write failed";
    return false;
  }
  return true;
}

/// `m` grown to rows x cols (each at least m's), the new elements `value`.

inline Matrix padMatrix(const Matrix& m, uint64_t rows, uint64_t cols, float value) {
  Matrix out{rows, cols, std::vector<float>(rows * cols, value)};
  for (uint64_t r = 0; r < m.rows && r < rows; ++r)
    std::copy_n(m.data.begin() + r * m.cols, std::min(m.cols, cols), out.data.begin() + r * cols);
  return out;
}

inline Matrix cropMatrix(const Matrix& m, uint64_t rows, uint64_t cols) {
  rows = std::min(rows, m.rows);
  cols = std::min(cols, m.cols);
  Matrix out{rows, cols, std::vector<float>(rows * cols)};
  for (uint64_t r = 0; r < rows; ++r)
    std::copy_n(m.data.begin() + r * m.cols, cols, out.data.begin() + r * cols);
  return out;
}

} // namespace ttlplan::npy
