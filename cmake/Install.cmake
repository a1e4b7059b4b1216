# `cmake --install`: the ttlplan executable, the static libraries with their headers under
# include/ttlplan/FOLDER, the emulator's library and headers (include/ttlplan/emu), the device
# descriptions (share/ttlplan/devices), the CMake package (share/ttlplan/cmake: imported targets
# ttlplan::ttlplan for the executable and ttlplan::<folder> per library, and
# ttlplan_add_kernel) and ttlplan.pc for pkg-config. docs/library.md shows their use.
include(CMakePackageConfigHelpers)
set(TTLPLAN_CMAKE_DIR ${CMAKE_INSTALL_DATADIR}/ttlplan/cmake)

get_property(libraries GLOBAL PROPERTY TTLPLAN_EXPORTED_LIBRARIES)
install(TARGETS ttlplan ${libraries} ttlplan_emu EXPORT ttlplanTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT ttlplanTargets NAMESPACE ttlplan:: DESTINATION ${TTLPLAN_CMAKE_DIR})

foreach(folder IN LISTS TTLPLAN_LIBRARY_FOLDERS)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ttlplan/${folder}
          FILES_MATCHING PATTERN "*.h" PATTERN "emu" EXCLUDE)
endforeach()
install(FILES ${TTLPLAN_INCLUDE_ROOT}/ttlplan/Config.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ttlplan)
# The Python package: the tt-lang front end that reads .py kernels (driver/PythonFrontend.cpp
# finds it under the prefix).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/ttlplan DESTINATION ${TTLPLAN_INSTALL_PYTHONDIR}
        PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/codegen/emu/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ttlplan/emu)
# The pto emulator's headers (`run --target pto` builds against them, docs/pto.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/codegen/pto-emu/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ttlplan/pto-emu)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/ir/devices/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ttlplan/devices)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ttlplanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ttlplanConfig.cmake
                              INSTALL_DESTINATION ${TTLPLAN_CMAKE_DIR} PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ttlplanConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ttlplanConfig.cmake ${PROJECT_BINARY_DIR}/ttlplanConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/TtlplanDependencies.cmake
              ${PROJECT_SOURCE_DIR}/cmake/TtlplanAddKernel.cmake
        DESTINATION ${TTLPLAN_CMAKE_DIR})

# pkg-config: the libraries in link order (a static library before the ones it uses).
set(TTLPLAN_PC_LIBS "")
foreach(library ttlplan_driver ttlplan_report ttlplan_search ttlplan_reference ttlplan_codegen ttlplan_lower ttlplan_planner
                ttlplan_ir ttlplan_support)
  string(APPEND TTLPLAN_PC_LIBS " -l${library}")
endforeach()
if(TTLPLAN_SANITIZE)
  string(APPEND TTLPLAN_PC_LIBS " -fsanitize=address,undefined")
endif()
# Relocatable: the prefix is found from the .pc file's own folder (pkg-config's pcfiledir), so
# `cmake --install --prefix P` works wherever P is.
file(RELATIVE_PATH TTLPLAN_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ttlplan.pc.in ${PROJECT_BINARY_DIR}/ttlplan.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ttlplan.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
