// examples/api: ttlplan as a C++ library, through the installed headers only. Parses and verifies
// a TTL file, plans it for a device and prints each kernel's L1 map: its circular buffers by
// address, with their index, blocks and bytes. docs/library.md walks through it.
//
//   api_example FILE.ttl [DEVICE]     (DEVICE: a built-in device, default wormhole_b0)
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <ttlplan/ir/Device.h>
#include <ttlplan/ir/Diagnostics.h>
#include <ttlplan/ir/Parser.h>
#include <ttlplan/ir/Verifier.h>
#include <ttlplan/lower/KernelPlanner.h>
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
  // The API reports errors as values (Expected<T>, diagnostics), never as exceptions.
  Expected<ir::Device> device = ir::builtinDevice(argc == 3 ? argv[2] : "wormhole_b0");
  if (!device) {
    std::fprintf(stderr, "error: %s\n", device.error().message.c_str());
    return 2;
  }
  ir::DiagnosticEngine diagnostics;
  ir::SourceManager sources;
  std::unique_ptr<ir::Module> module = ir::parseFile(argv[1], diagnostics, &sources);
  if (!module || !ir::verify(*module, diagnostics)) {
    std::cerr << ir::format(diagnostics.diagnostics(), &sources);
    return 1;
  }
  // Knobs a file leaves unbound get their first legal binding here; `ttlplan tune` searches them.
  Expected<lower::ModulePlan> plan = lower::planModule(*module, *device);
  if (!plan) {
    std::fprintf(stderr, "error: %s\n", plan.error().message.c_str());
    return 1;
  }
  std::printf("%s: %s on %s\n", std::string(kToolVersion).c_str(), argv[1], device->name.c_str());
  for (const lower::KernelPlan& kernel : plan->kernels)
    printL1Map(kernel);
  return 0;
}
