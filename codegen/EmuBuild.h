#pragma once
// Building the output of `ttlplan compile` against the CPU emulator (codegen/emu/,
// docs/emulator.md) for `ttlplan run`. Each kernel file K/T.cpp is compiled on its own with
// `-Dkernel_main=ttlplan_kernel_<K>_<T>` so that the entry points do not collide; a generated
// registry translation unit declares those entry points and registers each under its path "K/T.cpp"
// (ttlplan_emu_kernel.h), which is the name host.cpp passes to CreateKernel. Each K/host.cpp links
// with every kernel object, the registry and the emulator library into one program DIR/K/host.
#include "ttlplan/codegen/Codegen.h"
#include "ttlplan/ir/Device.h"

#include <string>
#include <string_view>
#include <vector>

namespace ttlplan::codegen {

/// One generated kernel file: DIR/<kernel>/<thread>.cpp.
struct EmuKernelFile {
  std::string kernel; ///< K (the ttl.kernel symbol, without '@')
  std::string thread; ///< "reader", "compute" or "writer"
  std::string path() const { return kernel + "/" + thread + ".cpp"; }
  std::string wrapperPath() const { return kernel + "/" + thread + ".emu.cpp"; }
};

/// `ttlplan_kernel_<K>_<T>` with K sanitized to an identifier.
std::string emuEntryPoint(const EmuKernelFile& file);

/// The registry translation unit: declares every entry point and registers it under its path.
std::string emitEmuRegistry(const std::vector<EmuKernelFile>& kernels);

/// The wrapper K/T.emu.cpp: `#define kernel_main <entry point>`, then `#include "T.cpp"`.
std::string emitEmuKernelWrapper(const EmuKernelFile& kernel);

/// The file name the registry is written to, relative to the compile output directory.
inline constexpr std::string_view kEmuRegistryFile = "ttlplan_emu_registry.cpp";
/// The emulator's device description, relative to the compile output directory.
inline constexpr std::string_view kEmuDeviceFile = "device.json";

/// The kernel files among `files` (DIR/K/T.cpp; not host.cpp, plan.json, ...).
std::vector<EmuKernelFile> emuKernelFiles(const std::vector<GeneratedFile>& files);

/// The emulator's device description (docs/emulator.md, "Device spec") of `device`, the JSON
/// that TTLPLAN_EMU_DEVICE names.
std::string emitEmuDeviceSpec(const ir::Device& device);

/// Appends what building `files` against the emulator needs besides them: a wrapper per kernel
/// file, the registry (kEmuRegistryFile) and the device description (kEmuDeviceFile). Returns
/// the kernel files it found (emuKernelFiles of `files` as given), for emuBuildCommands.
std::vector<EmuKernelFile> addEmuFiles(std::vector<GeneratedFile>& files, const ir::Device& device);

struct EmuBuildOptions {
  std::string dir;                     ///< the `ttlplan compile` output directory
  std::string emuIncludeDir;           ///< codegen/emu/include
  std::string emuLibrary;              ///< path of the static library libttlplan_emu.a
  std::vector<std::string> extraFlags; ///< added to every g++ command (e.g. -O2, -g)
  /// Added after extraFlags to each host.cpp command only (a later -O wins over an earlier one).
  std::vector<std::string> hostFlags;
  /// Added to each link after the emulator library: what it depends on (static libraries must
  /// come after the archives that use them), e.g. libttlplan_support.a, -lfmt.
  std::vector<std::string> linkLibraries;
  std::string compiler = "g++";
};

/// The g++ command lines, as argument vectors, in the order to run them: one object per kernel
/// file (DIR/K/T.o, from its wrapper DIR/K/T.emu.cpp), the registry object
/// (DIR/ttlplan_emu_registry.o), then per kernel one link of DIR/K/host.cpp with the kernel
/// objects, the registry object, the emulator library and `linkLibraries` into DIR/K/host.
/// `hostKernels` names the kernels that have a host.cpp (every kernel of the module). The registry
/// source must already be written to DIR/ttlplan_emu_registry.cpp, and the wrappers.
std::vector<std::vector<std::string>> emuBuildCommands(const EmuBuildOptions& options,
                                                       const std::vector<EmuKernelFile>& kernels,
                                                       const std::vector<std::string>& hostKernels);

/// `argv` as one POSIX shell line (each argument quoted where needed), for logs and system().
std::string shellCommandLine(const std::vector<std::string>& argv);

} // namespace ttlplan::codegen
