// `ttlplan devices`: the built-in device descriptions (or one --device-file), as a table or JSON.
#include "tools/Command.h"
#include "tools/CommandOptions.h"
#include "tools/Knobs.h"
#include "tools/OptionFlags.h"
#include "ttlplan/ir/Device.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace ttlplan::tools {

namespace {

int runDevices(const DeviceFlags& device, bool json) {
  std::vector<ir::Device> devices;
  if (!device.file.empty()) {
    Expected<ir::Device> d = ir::loadDeviceFile(device.file);
    if (!d) {
      std::cerr << d.error().message << "\n";
      return kInvalidInput;
    }
    devices.push_back(*d);
  } else {
    for (const std::string& name : ir::builtinDeviceNames()) {
      Expected<ir::Device> d = ir::builtinDevice(name);
      if (!d) { // only a broken build can get here: the embedded files are tested
        std::cerr << driver::errorLine(d.error().message);
        return kInvalidInput;
      }
      devices.push_back(*d);
    }
  }
  if (!json) {
    std::cout << ir::formatDeviceTable(devices);
    return kSuccess;
  }
  nlohmann::json all = nlohmann::json::array();
  for (const ir::Device& d : devices)
    all.push_back(ir::toJson(d));
  std::cout << all.dump(2) << "\n";
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
