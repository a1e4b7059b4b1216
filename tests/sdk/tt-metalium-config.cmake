# A stand-in for TT-Metalium's CMake package (tt-metalium-config.cmake, target TT::Metalium, as
# tenstorrent/tt-metal installs it to lib/cmake/tt-metalium) made of ttlplan's CPU emulator, so that
# a test can configure and build the CMakeLists.txt `ttlplan compile` writes exactly as a user with
# tt-metal would (find_package(TT-Metalium), TT::Metalium). Not shipped. The test passes:
#   TTLPLAN_EMU_INCLUDE  codegen/emu/include (the SDK-shaped headers)
#   TTLPLAN_EMU_LIBRARY  libttlplan_emu.a
#   TTLPLAN_EMU_FLAGS    compile and link flags the library needs (the sanitizers of its build)
#   TTLPLAN_EMU_KERNELS  the directory `ttlplan compile --emulator` wrote: TT-Metalium compiles the
#                        kernels at run time; the emulator needs them linked in, through the
#                        wrappers and registry --emulator writes (INTERFACE_SOURCES). Without it
#                        (a build-only check) a program links but has no kernel to run.
if(TARGET TT::Metalium)
  return()
endif()
find_package(Threads REQUIRED)
file(GLOB _ttlplan_wrappers "${TTLPLAN_EMU_KERNELS}/*/*.emu.cpp")
if(EXISTS "${TTLPLAN_EMU_KERNELS}/ttlplan_emu_registry.cpp")
  list(APPEND _ttlplan_wrappers "${TTLPLAN_EMU_KERNELS}/ttlplan_emu_registry.cpp")
endif()
add_library(TT::Metalium INTERFACE IMPORTED)
separate_arguments(_ttlplan_flags UNIX_COMMAND "${TTLPLAN_EMU_FLAGS}")
set_target_properties(TT::Metalium PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${TTLPLAN_EMU_INCLUDE}"
  INTERFACE_SOURCES "${_ttlplan_wrappers}"
  INTERFACE_COMPILE_OPTIONS "${_ttlplan_flags}"
  INTERFACE_LINK_OPTIONS "${_ttlplan_flags}"
  INTERFACE_LINK_LIBRARIES "${TTLPLAN_EMU_LIBRARY};Threads::Threads")
set(TT-Metalium_FOUND TRUE)
