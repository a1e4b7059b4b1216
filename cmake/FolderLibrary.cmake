# ttlplan_folder_library(NAME DEPS...): one static library from the .cpp files of the current
# folder (recursively), linking DEPS publicly; see ttlplan_public_library for the rest.
function(ttlplan_folder_library name)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(${name} STATIC ${sources})
  target_link_libraries(${name} PUBLIC ${ARGN})
  ttlplan_public_library(${name})
endfunction()

# The build tree's include root: ${TTLPLAN_INCLUDE_ROOT}/ttlplan/FOLDER is a link to each library
# folder of the source tree, so that the libraries' headers are included as <ttlplan/FOLDER/X.h>
# in the build exactly as from an installed prefix (include/ttlplan/FOLDER/X.h), and a user's
# include path never holds the source root. ttlplan/Config.h is generated here.
set(TTLPLAN_INCLUDE_ROOT ${PROJECT_BINARY_DIR}/include)
set(TTLPLAN_LIBRARY_FOLDERS support ir planner lower reference codegen search report driver)
file(MAKE_DIRECTORY ${TTLPLAN_INCLUDE_ROOT}/ttlplan)
foreach(folder IN LISTS TTLPLAN_LIBRARY_FOLDERS)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${TTLPLAN_INCLUDE_ROOT}/ttlplan/${folder} SYMBOLIC)
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/Config.h.in ${TTLPLAN_INCLUDE_ROOT}/ttlplan/Config.h @ONLY)

# ttlplan_public_library(NAME): NAME's headers are reached through the include root (build) or
# include/ (installed); it is installed and exported as ttlplan::<NAME without "ttlplan_">
# (cmake/Install.cmake).
function(ttlplan_public_library name)
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${TTLPLAN_INCLUDE_ROOT}>
                                            $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  string(REGEX REPLACE "^ttlplan_" "" export_name ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${export_name})
  set_property(GLOBAL APPEND PROPERTY TTLPLAN_EXPORTED_LIBRARIES ${name})
endfunction()
