#include "ttlplan/ir/DocumentReader.h"

namespace ttlplan::ir::document {

Range upTo(std::optional<int64_t> limit, int64_t fallbackHi, std::string bound) {
  if (!limit) return {1, fallbackHi};
  return {1, *limit + 1, std::move(bound)};
}

std::string typeName(const json& value) {
  return value.is_number_float() ? "float" : value.type_name();
}

void Reader::reportMissing(const std::string& prefix, const std::string& path) {
  auto section = missingSections_.find(prefix);
  if (section == missingSections_.end() && !reported_.count(prefix)) {
    section = missingSections_
                  .emplace(prefix, std::make_pair(messages_.size(), std::vector<std::string>{}))
                  .first;
    problem(prefix, "is missing");
    reported_.insert(prefix);
  }
  if (section != missingSections_.end() && path != prefix)
    section->second.second.push_back(path.substr(prefix.size() + 1));
}

const json* Reader::find(const std::string& path, bool required) {
  known_.insert(path);
  const json* node = &root_;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string prefix = path.substr(0, dot);
    std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
    auto it = node->find(key);
    if (it == node->end()) {
      if (required) reportMissing(prefix, path);
      return nullptr;
    }
    node = &*it;
    if (dot == std::string::npos) return node;
    sections_.insert(prefix);
    if (!typeIs(prefix, *node, node->is_object(), "object")) return nullptr;
    start = dot + 1;
  }
}

bool Reader::typeIs(const std::string& path, const json& value, bool ok, const char* expected) {
  if (ok) return true;
  if (!reported_.count(path))
    problem(path, "has type " + typeName(value) + ", expected " + expected);
  reported_.insert(path);
  return false;
}

void Reader::problem(const std::string& path, const std::string& what) {
  messages_.push_back(origin_ + ": field '" + path + "' " + what);
}

void Reader::outOfRange(const std::string& path, const std::string& value, const Range& range) {
  std::string hi = range.hi == kNoLimit ? "inf" : std::to_string(range.hi);
  std::string why = range.bound.empty() ? "" : " (limited by " + range.bound + ")";
  problem(path,
          "= " + value + " is out of range [" + std::to_string(range.lo) + ", " + hi + ")" + why);
}

std::optional<int64_t> Reader::integer(const std::string& path, const Range& range) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_number_integer(), "integer")) return std::nullopt;
  if (value->is_number_unsigned() && value->get<uint64_t>() > uint64_t(kNoLimit)) {
    outOfRange(path, value->dump(), range);
    return std::nullopt;
  }
  int64_t number = value->get<int64_t>();
  if (number < range.lo || number >= range.hi) {
    outOfRange(path, std::to_string(number), range);
    return std::nullopt;
  }
  return number;
}

std::optional<std::vector<int64_t>> Reader::list(const std::string& path, size_t minSize,
                                                 size_t maxSize,
                                                 const std::function<Range(size_t)>& rangeOf) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_array(), "array")) return std::nullopt;
  size_t size = value->size();
  if (size < minSize || size > maxSize) {
    std::string expected = minSize == maxSize ? std::to_string(minSize)
                           : size < minSize   ? "at least " + std::to_string(minSize)
                                              : "at most " + std::to_string(maxSize);
    problem(path, "has " + std::to_string(size) + " elements, expected " + expected);
    return std::nullopt;
  }
  std::vector<int64_t> numbers;
  bool ok = true;
  for (size_t i = 0; i < size; ++i) {
    std::string element = path + "[" + std::to_string(i) + "]";
    const json& item = (*value)[i];
    if (!typeIs(element, item, item.is_number_integer(), "integer")) {
      ok = false;
      continue;
    }
    Range range = rangeOf(i);
    int64_t number = item.is_number_unsigned() && item.get<uint64_t>() > uint64_t(kNoLimit)
                         ? kNoLimit
                         : item.get<int64_t>();
    if (number < range.lo || number >= range.hi) {
      outOfRange(element, item.dump(), range);
      ok = false;
    }
    numbers.push_back(number);
  }
  if (!ok) return std::nullopt;
  return numbers;
}

std::optional<std::string> Reader::text(const std::string& path) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_string(), "string")) return std::nullopt;
  return value->get<std::string>();
}

std::optional<std::string> Reader::choice(const std::string& path,
                                          const std::vector<std::string>& allowed) {
  std::optional<std::string> value = text(path);
  if (!value || std::find(allowed.begin(), allowed.end(), *value) != allowed.end()) return value;
  std::string names;
  for (const std::string& name : allowed)
    names += (names.empty() ? "" : ", ") + name;
  problem(path, "= \"" + *value + "\" is not one of " + names);
  return std::nullopt;
}

std::optional<bool> Reader::flag(const std::string& path) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_boolean(), "boolean")) return std::nullopt;
  return value->get<bool>();
}

std::optional<double> Reader::real(const std::string& path, double lo, double hi,
                                   const std::string& bound) {
  const json* value = find(path, true);
  if (!value || !typeIs(path, *value, value->is_number(), "number")) return std::nullopt;
  double number = value->get<double>();
  if (!(number >= lo && number <= hi)) {
    std::string why = bound.empty() ? "" : " (limited by " + bound + ")";
    problem(path, "= " + value->dump() + " is out of range [" + json(lo).dump() + ", " +
                      json(hi).dump() + "]" + why);
    return std::nullopt;
  }
  return number;
}

const json* Reader::peek(const std::string& path) {
  return find(path, false);
}

void Reader::reportUnknown(const json& object, const std::string& prefix) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (sections_.count(path) && it->is_object())
      reportUnknown(*it, path);
    else if (!known_.count(path) && !sections_.count(path))
      messages_.push_back(origin_ + ": unknown field '" + path + "'");
  }
}

std::vector<std::string> Reader::finish() {
  for (const auto& [prefix, section] : missingSections_) {
    const auto& [index, fields] = section;
    std::string list;
    for (const std::string& field : fields)
      list += (list.empty() ? "" : ", ") + field;
    if (!list.empty()) messages_[index] += " (needs " + list + ")";
  }
  reportUnknown(root_, "");
  return std::move(messages_);
}

/// `sources`: an object whose keys are fields read before it, each with the text saying where its
/// value comes from.
void readSources(Reader& r, std::map<std::string, std::string>& sources) {
  const json* value = r.peek("sources");
  if (!value) return;
  if (!value->is_object()) {
    r.problem("sources", "has type " + typeName(*value) + ", expected object");
    return;
  }
  for (auto it = value->begin(); it != value->end(); ++it) {
    if (!it->is_string())
      r.problem("sources",
                "has key '" + it.key() + "' of type " + typeName(*it) + ", expected string");
    else if (!r.isKnown(it.key()) || it.key() == "sources")
      r.problem("sources", "has key '" + it.key() + "' that names no field");
    else
      sources[it.key()] = it->get<std::string>();
  }
}

namespace {

// Receives the position of a syntax error; nlohmann reports it here without throwing.
class SyntaxErrorFinder : public json::json_sax_t {
public:
  std::string message = "invalid JSON";

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // Drop the "[json.exception.parse_error.101] " prefix; the rest names line and column.
    std::string what = e.what();
    size_t end = what.find("] ");
    message = end == std::string::npos ? what : what.substr(end + 2);
    return false;
  }
};

} // namespace

Expected<json> parseObject(std::string_view text, std::string_view origin) {
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded()) return Error{syntaxError(text, origin)};
  if (!root.is_object())
    return Error{std::string(origin) + ": the document has type " + typeName(root) +
                 ", expected object"};
  return root;
}

Status finish(Reader& r) {
  std::string joined;
  for (const std::string& line : r.finish())
    joined += (joined.empty() ? "" : "\n") + line;
  if (joined.empty()) return {};
  return Error{joined};
}

std::string syntaxError(std::string_view text, std::string_view origin) {
  SyntaxErrorFinder finder;
  json::sax_parse(text, &finder);
  return std::string(origin) + ": JSON " + finder.message;
}

} // namespace ttlplan::ir::document
