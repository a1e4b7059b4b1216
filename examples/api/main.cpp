// examples/api: ttlplan as a C++ library, through the installed headers only. Plans a TTL file
// for a device with the driver library (parse, verify, choose the binding, plan) and prints each
// kernel's L1 map: its circular buffers by address, with their index, blocks and bytes. An error
// is printed as ttlplan prints it, and a kernel that does not fit says by how much.
// docs/library.md walks through it.
//
//   api_example FILE.ttl [DEVICE]     (DEVICE: a built-in device, default wormhole_b0)
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <ttlplan/driver/Driver.h>
#include <ttlplan/support/Version.h>

using namespace ttlplan;

namespace {

/// "2 x [2, 1] tiles": blocks times the block shape.
std::string blocksText(const planner::kernel::CbPlan& cb) {
  std::string shape;
  for (int64_t d : cb.blockShape)
    shape += (shape.empty() ? "" : ", ") + std::to_string(d);
  return std::to_string(cb.blockCount) + " x [" + shape + "] tiles of " +
         std::to_string(cb.tileBytes) + " B";
}

void printL1Map(const lower::KernelPlan& kernel) {
  std::printf("kernel %s: L1 from %lld, %lld B free for CBs, %lld B used\n", kernel.name.c_str(),
              static_cast<long long>(kernel.l1Base), static_cast<long long>(kernel.l1Capacity),
              static_cast<long long>(kernel.l1Used));
  std::vector<planner::kernel::CbPlan> cbs = kernel.cbs;
  std::sort(cbs.begin(), cbs.end(),
            [](const auto& a, const auto& b) { return a.address < b.address; });
  for (const planner::kernel::CbPlan& cb : cbs)
    std::printf("  [%7lld, %7lld)  %-8s index %2d  %s  %lld B\n",
                static_cast<long long>(cb.address), static_cast<long long>(cb.address + cb.bytes),
                cb.name.c_str(), cb.index, blocksText(cb).c_str(),
                static_cast<long long>(cb.bytes));
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s FILE.ttl [DEVICE]\n", argv[0]);
    return 2;
  }
  // The API reports errors as values (driver::Result<T>), never as exceptions.
  driver::DeviceRequest deviceRequest;
  if (argc == 3) deviceRequest.name = argv[2];
  driver::Result<ir::Device> device = driver::loadDevice(deviceRequest);
  if (!device) {
    std::cerr << device.error().text();
    return device.error().exitCode();
  }
  driver::PlanRequest request;
  request.input = argv[1];
  // Knobs the file leaves unbound are tuned, as `ttlplan plan` does; the line saying what was
  // picked comes through the log.
  auto log = [](const std::string& line) { std::cerr << line; };
  driver::Result<driver::Planned> planned = driver::planFile(request, *device, log);
  if (!planned) {
    const driver::Error& e = planned.error();
    std::cerr << e.text(); // file:line:col diagnostics, or "ttlplan: error: ..."
    if (e.infeasible)
      std::fprintf(
          stderr, "%s needs %lld and has %lld (%s)\n", e.infeasible->kernel.c_str(),
          static_cast<long long>(e.infeasible->rejection.needed),
          static_cast<long long>(e.infeasible->rejection.available),
          std::string(planner::kernel::toString(e.infeasible->rejection.resource)).c_str());
    return e.exitCode();
  }
  std::printf("%s: %s on %s\n", std::string(kToolVersion).c_str(), argv[1], device->name.c_str());
  for (const lower::KernelPlan& kernel : planned->plan.kernels)
    printL1Map(kernel);
  return 0;
}
