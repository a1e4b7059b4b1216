// The device and knob flags (tools/Knobs.h), from driver::targetOptions().
#include "tools/Knobs.h"

#include "tools/OptionFlags.h"
#include "ttlplan/driver/Options.h"

namespace ttlplan::tools {

void addKnobFlags(CLI::App& command, KnobFlags& knobs, DeviceFlags& device, KnobUse use) {
  const OptionTable& target = driver::targetOptions();
  addOption(command, target.at("bind"), knobs.bind);
  if (use == KnobUse::Plan) {
    addOption(command, target.at("db"), knobs.db)->check(CLI::ExistingFile);
    addOption(command, target.at("no-tune"), knobs.noTune);
  }
  const OptionRecord& config = target.at("config");
  addOption(command, config, knobs.config)
      ->check(
          CLI::IsMember(std::vector<std::string>(config.choices.begin(), config.choices.end())));
  addOption(command, target.at("grid"), device.grid);
}

void addDeviceFlags(CLI::App& command, DeviceFlags& device) {
  const OptionTable& target = driver::targetOptions();
  addOption(command, target.at("device"), device.name);
  addOption(command, target.at("device-file"), device.file)->check(CLI::ExistingFile);
}

} // namespace ttlplan::tools
