#pragma once
// Whether a knob's domain can be evaluated under a binding: the one test `--bind` checking
// (lower::checkRequested) and the tuner's fixed knobs (search::Space::fromParams) share, to tell
// a value checkable now from one the binding checker must test per point.
#include "ttlplan/ir/KnobDomain.h"

#include <algorithm>
#include <set>
#include <string>

namespace ttlplan::ir {

/// True when every knob `domain` reads is bound in `binding`.
inline bool domainReadsOnly(const KnobDomain& domain, const Binding& binding) {
  std::set<std::string> reads;
  domain.collectKnobs(reads);
  return std::all_of(reads.begin(), reads.end(),
                     [&](const std::string& k) { return binding.count(k) != 0; });
}

} // namespace ttlplan::ir
