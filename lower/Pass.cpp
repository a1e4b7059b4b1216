#include "ttlplan/lower/Pass.h"

#include <fmt/format.h>

namespace ttlplan::lower {

Status Pass::setOption(std::string_view name, std::string_view) {
  return Error{fmt::format("unknown option '{}'", name)};
}

int64_t& Pass::statistic(std::string_view name, std::string_view doc) {
  for (PassStatistic& s : statistics_)
    if (s.name == name) return s.value;
  statistics_.push_back({std::string(name), std::string(doc), 0});
  return statistics_.back().value;
}

} // namespace ttlplan::lower
