#pragma once
// Tuning records (search/TuningDb.h) as the command line shows them: the JSON object of `tune
// --json` and `db best --json`, and the rows of their tables. Shared by tools/TuneCommand.cpp and
// tools/DbCommand.cpp so that both print the same shapes.
#include "ttlplan/ir/KnobValue.h"
#include "ttlplan/search/TuningDb.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace ttlplan::driver {

/// A knob value as JSON: a string for a symbol, a number for an integer.
nlohmann::ordered_json knobJson(const ir::KnobValue& value);

/// A binding as a JSON object of knobJson values.
nlohmann::ordered_json bindingJson(const ir::Binding& binding);

/// A record as `tune --json` prints it: {"binding" (every knob, `fixed` included), "block_counts",
/// "predicted_ns", "utilization", "bound", "l1_bytes", "cores"}.
nlohmann::ordered_json recordJson(const search::Record& record, const ir::Binding& fixed);

/// The searched knobs of a record as "NAME=VALUE ..." ("(no free knobs)" when there are none).
std::string pointText(const search::Record& record);

/// The column titles of a table of records (with a leading blank line and a trailing newline).
std::string recordTableHeader();

/// One table row: `rank`, predicted time, utilisation, bound, L1 bytes, cores and the point.
std::string recordTableRow(const std::string& rank, const search::Record& record);

} // namespace ttlplan::driver
