# What the ttlplan libraries link, found the same way when building ttlplan and when a project
# uses the installed package (cmake/ttlplanConfig.cmake.in includes this file), so that the
# imported targets the libraries name (PkgConfig::TTLPLAN_CBC, ttlplan::glpk, TBB::tbb, ...)
# exist in both. Debian 12 packages only (README "Set-up"); nothing is downloaded. A missing one
# stops the configure with find_package's own message, in ttlplan's build and in a user's.
find_package(PkgConfig REQUIRED)
if(NOT TARGET PkgConfig::TTLPLAN_CBC)
  pkg_check_modules(TTLPLAN_CBC REQUIRED IMPORTED_TARGET GLOBAL cbc osi-clp)
endif()
if(NOT TARGET ttlplan::glpk)
  # GLPK ships neither a CMake config nor a pkg-config file.
  find_library(TTLPLAN_GLPK_LIBRARY NAMES glpk REQUIRED)
  find_path(TTLPLAN_GLPK_INCLUDE_DIR NAMES glpk.h REQUIRED)
  add_library(ttlplan::glpk INTERFACE IMPORTED GLOBAL)
  target_link_libraries(ttlplan::glpk INTERFACE ${TTLPLAN_GLPK_LIBRARY})
  target_include_directories(ttlplan::glpk SYSTEM INTERFACE ${TTLPLAN_GLPK_INCLUDE_DIR})
endif()
find_package(Threads REQUIRED)
find_package(TBB REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
