#pragma once
// Reads a whole file; the one place that turns "cannot open" into a message.
#include "ttlplan/support/Expected.h"

#include <fstream>
#include <optional>
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

/// The longest line any reader accepts: 1 MiB, far above any line ttlplan writes or a person types.
/// A longer one is a located error (a minified or binary file, usually), not minutes of work on
/// one token and diagnostics that quote it.
constexpr size_t kMaxLineBytes = size_t(1) << 20;

/// The first line of `text` longer than `maxBytes` (without its newline): its 1-based number and
/// length; nullopt when there is none.
struct LongLine {
  size_t line = 0;
  size_t bytes = 0;
};
inline std::optional<LongLine> firstLongLine(std::string_view text,
                                             size_t maxBytes = kMaxLineBytes) {
  size_t line = 1;
  for (size_t start = 0; start < text.size(); ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end - start > maxBytes) return LongLine{line, end - start};
    start = end + 1;
  }
  return std::nullopt;
}

/// "line N is B bytes long; a line may hold at most 1 MiB" for `long_`.
inline std::string longLineMessage(const LongLine& long_) {
  return "line " + std::to_string(long_.line) + " is " + std::to_string(long_.bytes) +
         " bytes long; a line may hold at most " + std::to_string(kMaxLineBytes >> 20) +
         " MiB (is this a text file?)";
}

/// The error of a file above `maxBytes` (a usage error for the commands: not a source file).
inline std::string tooLargeMessage(const std::string& path, size_t maxBytes = kMaxInputBytes) {
  return "'" + path + "' is larger than " + std::to_string(maxBytes >> 20) +
         " MiB; ttlplan reads no input that large";
}

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
    if (text.size() > maxBytes) return Error{tooLargeMessage(path, maxBytes)};
  }
  if (in.bad()) return Error{"cannot read '" + path + "'"};
  return text;
}

} // namespace ttlplan
