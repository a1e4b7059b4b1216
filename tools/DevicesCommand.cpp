// `ttlplan devices`: the built-in device descriptions (or one --device-file), as a table or JSON.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "ttlplan/driver/Documents.h"
#include "ttlplan/ir/Device.h"
#include "ttlplan/support/JsonText.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace ttlplan::tools {

namespace {

int runDevices(const DeviceFlags& device, bool json) {
  driver::Result<std::vector<ir::Device>> devices = driver::listDevices(device);
  if (!devices) return report(devices.error());
  if (!json) {
    std::cout << ir::formatDeviceTable(*devices);
    return kSuccess;
  }
  std::cout << jsonText(driver::devicesJson(*devices), 2) << "\n";
  return kSuccess;
}

} // namespace

Runner addDevicesCommand(CLI::App& app, SharedFlags& shared) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "devices", "List the built-in device descriptions (or check --device-file)");
  addOption(*cmd, commandOptions("devices").at("json"), *json);
  addDeviceFlags(*cmd, shared.device);
  return [json, &shared] { return runDevices(shared.device, *json); };
}

} // namespace ttlplan::tools
