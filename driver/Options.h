#pragma once
// The option table of what the workflows target (support/Options.h): the device and the knob
// binding, flags of `plan`, `cost`, `lower`, `compile`, `run` and `tune` (driver::DeviceRequest,
// driver::KnobRequest). The planner's own options are planner/Options.h, the search's
// search/TuneOptions.h.
#include "ttlplan/support/Options.h"

namespace ttlplan::driver {

const OptionTable& targetOptions();

} // namespace ttlplan::driver
