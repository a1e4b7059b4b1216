#pragma once
// The JSON line format of tuning records (docs/tuning.md, "Records"): a header line, then one
// record per line. TuningDb.h declares the public reading and writing of one line; this is what the
// loader (TuningDb.cpp) shares with them.
#include "ttlplan/search/TuningDb.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ttlplan::search::dbjson {

/// Insertion-ordered, so a line's keys come out in the order they are written.
using OJson = nlohmann::ordered_json;

/// `j` as one line; invalid UTF-8 in a message is replaced instead of throwing.
std::string dump(const OJson& j);
/// One line parsed (an Error names the JSON problem; nothing throws).
Expected<OJson> parseJson(const std::string& line);
/// Whether `j` is a header line (it has the format key).
bool isHeaderJson(const OJson& j);
Expected<DbHeader> headerFrom(const OJson& j);
Expected<Record> recordFrom(const OJson& j);
/// What is wrong with a line, or nothing when it is a whole header or record.
std::optional<std::string> lineProblem(const Expected<OJson>& j);

} // namespace ttlplan::search::dbjson
