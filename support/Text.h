#pragma once
// Echoing input back in messages: whatever bytes a file held, a diagnostic is one readable line
// of bounded length (no raw control bytes on the terminal, no 4 MB identifier in a message).
#include <cstdio>
#include <string>
#include <string_view>

namespace ttlplan {

/// `text` with every control byte (and DEL) written as \xNN; tabs stay, and newlines too unless
/// `escapeNewlines` (a message may have several lines, a quoted piece of input not). Other bytes,
/// UTF-8 included, pass through.
inline std::string printableText(std::string_view text, bool escapeNewlines = false) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t' && (c != '\n' || escapeNewlines)) || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

/// `'text'` for a message: printable, and cut after `maxBytes` with the full length said.
inline std::string quotedInput(std::string_view text, size_t maxBytes = 80) {
  if (text.size() <= maxBytes) return "'" + printableText(text, true) + "'";
  return "'" + printableText(text.substr(0, maxBytes), true) + "...' (" +
         std::to_string(text.size()) + " bytes)";
}

} // namespace ttlplan
