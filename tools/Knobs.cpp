// The device and knob flags (tools/Knobs.h), from driver::targetOptions().
#include "tools/Knobs.h"

#include "tools/OptionFlags.h"
#include "ttlplan/driver/Driver.h"
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

CLI::Option* addDeviceFlags(CLI::App& command, DeviceFlags& device, TargetFlag targetFlag) {
  const OptionTable& target = driver::targetOptions();
  if (targetFlag == TargetFlag::Shared) {
    const OptionRecord& record = target.at("target");
    addOption(command, record, device.target)
        ->check(
            CLI::IsMember(std::vector<std::string>(record.choices.begin(), record.choices.end())));
  }
  CLI::Option* name = addOption(command, target.at("device"), device.name);
  addOption(command, target.at("device-file"), device.file)->check(CLI::ExistingFile);
  // Under --target pto the device defaults to an Ascend description; a --device given names one.
  command.parse_complete_callback([&device, name] { choosePtoDefault(device, *name); });
  return name;
}

void choosePtoDefault(DeviceFlags& device, const CLI::Option& name) {
  if (device.target == driver::kPtoTarget && name.count() == 0)
    device.name = std::string(driver::kDefaultPtoDevice);
}

} // namespace ttlplan::tools
