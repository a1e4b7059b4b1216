#pragma once
// Reads a whole file; the one place that turns "cannot open" into a message.
#include "ttlplan/support/Expected.h"

#include <fstream>
#include <string>
#include <string_view>

namespace ttlplan {

/// `text` without a leading UTF-8 byte order mark (spreadsheets and some editors write one; it is
/// not part of the first word).
inline std::string_view withoutByteOrderMark(std::string_view text) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  return text.starts_with(kByteOrderMark) ? text.substr(kByteOrderMark.size()) : text;
}

/// Files above this are refused rather than read until memory runs out (`/dev/zero`, a log
/// given by mistake): 256 MiB is far above any TTL file, CSV, device file, tuning database or
/// .npy tensor ttlplan works with.
constexpr size_t kMaxInputBytes = size_t(256) << 20;

/// The whole file, or an error that names it: it cannot be opened, or it holds more than
/// `maxBytes` (read in chunks, so an endless file stops there).
inline Expected<std::string> readTextFile(const std::string& path,
                                          size_t maxBytes = kMaxInputBytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open '" + path + "' (does it exist and is it readable?)"};
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > maxBytes)
      return Error{"'" + path + "' is larger than " + std::to_string(maxBytes >> 20) +
                   " MiB; ttlplan reads no input that large"};
  }
  if (in.bad()) return Error{"cannot read '" + path + "'"};
  return text;
}

} // namespace ttlplan
