#pragma once
// Reading a JSON description file field by field: every problem becomes one message naming the
// field's dotted path and the range it must lie in, and fields nobody asked for are reported as
// unknown. ir/Device.cpp reads the Tenstorrent device descriptions with it.
#include "ttlplan/ir/EmbeddedDevices.h"
#include "ttlplan/support/Expected.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::ir::document {

using nlohmann::json;

/// The upper end of a Range without a limit (printed "inf").
inline constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

// Accepted values are [lo, hi); `bound` names the field that set a limit, for the message.
struct Range {
  int64_t lo;
  int64_t hi;
  std::string bound = {};
};

// Upper limit `limit` inclusive when it is known, else `fallbackHi`.
Range upTo(std::optional<int64_t> limit, int64_t fallbackHi, std::string bound);

/// "float" for a floating-point number, else nlohmann's type name ("string", "array", ...).
std::string typeName(const json& value);

/// "ORIGIN: JSON <what is wrong> at line L, column C" for text that does not parse.
std::string syntaxError(std::string_view text, std::string_view origin);

/// The document's root object; text that does not parse, or a root of another type, is the error.
Expected<json> parseObject(std::string_view text, std::string_view origin);

// Walks a parsed document by dotted paths and collects one message per problem. It remembers every
// path it was asked for, so that whatever is left over can be reported as unknown.
class Reader {
public:
  Reader(const json& root, std::string_view origin) : root_(root), origin_(origin) {}

  std::optional<int64_t> integer(const std::string& path, const Range& range);
  std::optional<std::vector<int64_t>> list(const std::string& path, size_t minSize, size_t maxSize,
                                           const std::function<Range(size_t)>& rangeOf);
  std::optional<std::string> text(const std::string& path);
  std::optional<std::string> choice(const std::string& path,
                                    const std::vector<std::string>& allowed);
  std::optional<bool> flag(const std::string& path);
  // A number (integer or float) in [lo, hi]; `bound` names the field that set hi, if one did.
  std::optional<double> real(const std::string& path, double lo, double hi,
                             const std::string& bound = {});
  // Looks up a field that may be absent (nullptr then) without reporting it.
  const json* peek(const std::string& path);
  // Reports `path` as a problem; `what` follows the field's name.
  void problem(const std::string& path, const std::string& what);
  bool isKnown(const std::string& path) const {
    return known_.count(path) > 0 || sections_.count(path) > 0;
  }
  // Reports fields nobody asked for, then returns the collected messages.
  std::vector<std::string> finish();

private:
  const json* find(const std::string& path, bool required);
  void reportMissing(const std::string& prefix, const std::string& path);
  bool typeIs(const std::string& path, const json& value, bool ok, const char* expected);
  void outOfRange(const std::string& path, const std::string& value, const Range& range);
  void reportUnknown(const json& object, const std::string& prefix);

  const json& root_;
  std::string origin_;
  std::vector<std::string> messages_;
  std::set<std::string> reported_; // paths with a message already (a missing section counts once)
  std::set<std::string> known_;    // leaf fields asked for
  std::set<std::string> sections_; // objects on the way to a leaf
  // A missing section is one message; the fields asked for below it are listed in that message.
  std::map<std::string, std::pair<size_t, std::vector<std::string>>> missingSections_;
};

/// Reads the `sources` object: each key a field read before it (dotted path, or a section),
/// each value the text citing where that field's value comes from. Call it after the fields.
void readSources(Reader& r, std::map<std::string, std::string>& sources);

/// Success when the reader collected no message (after Reader::finish), else one error holding
/// every message, one per line.
Status finish(Reader& r);

/// The built-in description `name` of `files` (the embedded copies of `folder`), read by `parse`;
/// its `name` field must be the file's. `kind` ("device") names what is unknown otherwise.
template <typename D>
Expected<D> builtin(const std::vector<EmbeddedFile>& files, std::string_view folder,
                    std::string_view name, std::string_view kind,
                    Expected<D> (*parse)(std::string_view, std::string_view)) {
  const EmbeddedFile* file = findEmbedded(files, name);
  if (!file) {
    std::string known;
    (void)embeddedNames(files, &known);
    return Error{"unknown " + std::string(kind) + " '" + std::string(name) + "'; known " +
                 std::string(kind) + "s: " + known};
  }
  std::string origin = std::string(folder) + std::string(name) + ".json";
  Expected<D> device = parse(file->text, origin);
  if (device && device->name != name)
    return Error{origin + ": field 'name' = \"" + device->name + "\" differs from the file name"};
  return device;
}

} // namespace ttlplan::ir::document
