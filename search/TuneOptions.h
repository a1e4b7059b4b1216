#pragma once
// The tuner's option table (support/Options.h): how `ttlplan tune` searches. The planner options
// it also takes (node-limit, max-block-count) are the planner's (planner/Options.h).
#include "ttlplan/support/Options.h"

namespace ttlplan::search {

const OptionTable& tuneOptions();

} // namespace ttlplan::search
