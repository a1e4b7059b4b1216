#pragma once
// Options defined once (HiGHS's OptionRecord is the model): each record has the option's name,
// one line of documentation, its type, its accepted range or values and its default. A
// component's records form its table; the tables feed `ttlplan --help` (tools/OptionFlags.h),
// pipeline options (`plan{max-block-count=2}`, lower/PassRegistry.cpp), value checks and the
// generated docs/options.md (`ttlplan options --markdown`), so no option is described twice.
#include "ttlplan/support/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace ttlplan {

enum class OptionType {
  Flag,    ///< on or off: `--name` / `--no-name`, `{name=true}`
  Integer, ///< a whole number in [min, max]
  Real,    ///< a number in [min, max]
  Choice,  ///< one of `choices`
  Text,    ///< free text (a file, a list); `choices` empty
};

struct OptionRecord {
  std::string_view name; ///< "max-block-count": the flag --max-block-count
  std::string_view doc;  ///< one or two sentences, no trailing period needed
  OptionType type = OptionType::Flag;
  double min = 0;                        ///< Integer, Real: smallest accepted value
  double max = 0;                        ///< Integer, Real: largest accepted value
  std::vector<std::string_view> choices; ///< Choice: the accepted values
  std::string_view defaultValue;         ///< as text: "4", "exact", "true"
  std::string_view shortName = {};       ///< "o" for the flag -o besides --output; empty for none

  /// What values are accepted: "[1, 64]", "exact | cbc | glpk", "true | false", "text".
  std::string range() const;
  /// The --help text: the doc, then "(default D; range R)" (the doc alone for a switch that is off
  /// by default).
  std::string help() const;
  /// `text` as a number when it is one in range (Integer: whole); the error says what is accepted.
  Expected<double> number(std::string_view text) const;
  /// `text` as a flag value: "true"/"1"/"on" or "false"/"0"/"off".
  Expected<bool> flag(std::string_view text) const;
};

/// One component's options.
struct OptionTable {
  std::string component; ///< "planner", "tune", "pass lower-data-movement"
  std::string summary;   ///< who reads these options
  std::vector<OptionRecord> records;

  /// The record named `name`; null when there is none.
  const OptionRecord* find(std::string_view name) const;
  /// The record named `name`, which must exist (a programming error otherwise).
  const OptionRecord& at(std::string_view name) const;
};

/// The tables as Markdown: per table a heading, its summary and a table of name, type, range,
/// default and doc (docs/options.md is this text).
std::string optionsMarkdown(const std::vector<const OptionTable*>& tables);

} // namespace ttlplan
