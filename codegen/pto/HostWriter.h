#pragma once
// The host program `ttlplan run --target pto` builds against the pto emulator (docs/pto.md): it
// reads each argument from IN_DIR/<name>.npy (float32, converted to the kernel's element type),
// runs the kernel as blocks 0..N-1 (pto::emu::runBlocks), and writes every argument to
// OUT_DIR/<name>.npy. Exit status 3 when the emulator reported a race, deadlock or bad flag.
#include <cstdint>
#include <string>
#include <vector>

namespace ttlplan::codegen::pto {

struct HostArgument {
  std::string name;    ///< the kernel argument, without '%'
  std::string element; ///< its C++ element type (TypeConverter.h's elementType)
  int64_t rows = 0, cols = 0;
};

/// host.cpp for `kernel` (the C++ function in `kernelFile`, beside it) run on `blocks` cores.
std::string writeHost(const std::string& kernel, const std::string& kernelFile,
                      const std::vector<HostArgument>& args, int blocks);

/// The exit status of a host program whose run the emulator found wrong.
inline constexpr int kEmulatorReportedExit = 3;

} // namespace ttlplan::codegen::pto
