# ttlplan_add_kernel(TARGET <tgt> SOURCE <file.ttl> [DEVICE <name | file.json>] [BIND <k=v>...]
#                    [TUNE] [DB <records.jsonl>] [OUT_DIR <dir>] [METALIUM])
#
# Generates a TTL kernel's TT-Metalium C++ with `ttlplan compile` when <tgt> builds
# (docs/library.md, "ttlplan_add_kernel"). The command's inputs are in a depfile (the .ttl, a
# device file, DB) and its output is a stamp it rewrites, so editing an input regenerates and a
# no-op rebuild runs nothing; a generated file whose text did not change keeps its time stamp, so
# what is compiled from it is not rebuilt.
#
#   SOURCE   the .ttl file (relative to the current source directory)
#   DEVICE   a built-in device (`ttlplan devices`) or a device description JSON file
#   BIND     knob values, NAME=V each. Without TUNE every knob must be bound (`--no-tune`).
#   TUNE     the knobs BIND leaves out are tuned at build time. With DB, `ttlplan tune --db DB
#            --resume` first (the records already in DB are re-used, a complete DB evaluates
#            nothing), then the best record of DB is compiled.
#   OUT_DIR  where the files go (default ${CMAKE_CURRENT_BINARY_DIR}/ttlplan/<tgt>/<stem>)
#   METALIUM the host program builds against the real TT-Metalium (the target TT::Metalium, from
#            find_package(TT-Metalium)) instead of the CPU emulator; its kernels stay in OUT_DIR,
#            where TT-Metalium compiles them when the program first runs (TTLPLAN_KERNEL_DIR).
#
# <tgt> a custom target: building it generates the files. An executable or a library: the
# kernel's host program (K/host.cpp) and its threads are compiled into it against the CPU
# emulator (ttlplan::emu), and after each link the kernel sources are copied next to it (K/T.cpp,
# the paths the host passes to CreateKernel). The file must then hold one ttl.kernel; its output
# paths are listed at configure time (`compile --list-outputs`), so the .ttl is a configure
# dependency too.
function(ttlplan_add_kernel)
  cmake_parse_arguments(PARSE_ARGV 0 arg "TUNE;METALIUM" "TARGET;SOURCE;DEVICE;DB;OUT_DIR" "BIND")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ttlplan_add_kernel: unknown arguments '${arg_UNPARSED_ARGUMENTS}'; it "
                        "takes TARGET, SOURCE, DEVICE, BIND, TUNE, DB, OUT_DIR and METALIUM")
  endif()
  if(arg_METALIUM AND NOT TARGET TT::Metalium)
    message(FATAL_ERROR "ttlplan_add_kernel: METALIUM needs the target TT::Metalium; call "
                        "find_package(TT-Metalium REQUIRED) first (docs/codegen.md)")
  endif()
  foreach(required TARGET SOURCE)
    if(NOT arg_${required})
      message(FATAL_ERROR "ttlplan_add_kernel: ${required} is required")
    endif()
  endforeach()
  if(NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR "ttlplan_add_kernel: there is no target '${arg_TARGET}'; create it "
                        "(add_executable, add_library or add_custom_target) first")
  endif()
  if(arg_DB AND NOT arg_TUNE)
    message(FATAL_ERROR "ttlplan_add_kernel: DB needs TUNE (the records are what tuning writes)")
  endif()
  if(NOT TARGET ttlplan::ttlplan)
    message(FATAL_ERROR "ttlplan_add_kernel: the target ttlplan::ttlplan is missing; call "
                        "find_package(ttlplan CONFIG REQUIRED) first")
  endif()

  get_filename_component(source "${arg_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "ttlplan_add_kernel: SOURCE '${arg_SOURCE}' does not exist (${source})")
  endif()
  get_filename_component(stem "${source}" NAME_WE)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/ttlplan/${arg_TARGET}/${stem}")
  if(arg_OUT_DIR)
    get_filename_component(out_dir "${arg_OUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(stamp "${out_dir}.stamp")
  set(depfile "${out_dir}.d")

  # The flags every ttlplan call below shares: the kernel, the device, the bound knobs.
  set(common "${source}")
  if(arg_DEVICE MATCHES "\\.json$")
    get_filename_component(device "${arg_DEVICE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND common --device-file "${device}")
  elseif(arg_DEVICE)
    list(APPEND common --device "${arg_DEVICE}")
  endif()
  if(arg_BIND)
    list(JOIN arg_BIND "," bind)
    list(APPEND common --bind "${bind}")
  endif()

  if(arg_METALIUM)
    set(compile compile ${common} -o "${out_dir}")
  else()
    set(compile compile ${common} -o "${out_dir}" --emulator)
  endif()
  get_target_property(type ${arg_TARGET} TYPE)
  set(outputs "")
  if(NOT type STREQUAL "UTILITY")
    _ttlplan_list_outputs(outputs ${compile})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}")
  endif()
  set(tune_command "")
  if(NOT arg_TUNE)
    list(APPEND compile --no-tune)
  elseif(arg_DB)
    get_filename_component(db "${arg_DB}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    set(tune_command COMMAND ttlplan::ttlplan tune ${common} --db "${db}" --resume --quiet --top 1)
    list(APPEND compile --db "${db}")
  endif()


  add_custom_command(
    OUTPUT "${stamp}" ${outputs}
    ${tune_command}
    COMMAND ttlplan::ttlplan ${compile} --depfile "${depfile}" --stamp "${stamp}"
    DEPENDS "${source}" ttlplan::ttlplan
    DEPFILE "${depfile}"
    COMMENT "ttlplan: compiling ${arg_SOURCE} for ${arg_TARGET}"
    VERBATIM COMMAND_EXPAND_LISTS)

  if(type STREQUAL "UTILITY")
    set(generate "${arg_TARGET}_ttlplan_${stem}")
    add_custom_target(${generate} DEPENDS "${stamp}")
    add_dependencies(${arg_TARGET} ${generate})
    return()
  endif()

  # An executable or library: the host, the kernels (through their emulator wrappers) and the
  # registry are its sources.
  set(hosts "")
  set(sources "")
  set(kernels "")
  foreach(path IN LISTS outputs)
    if(path MATCHES "/host\\.cpp$")
      list(APPEND hosts "${path}")
    elseif(path MATCHES "\\.emu\\.cpp$|/ttlplan_emu_registry\\.cpp$")
      list(APPEND sources "${path}")
    elseif(path MATCHES "/([^/]+)/(reader|compute|writer)\\.cpp$")
      list(APPEND kernels "${CMAKE_MATCH_1}/${CMAKE_MATCH_2}.cpp")
    endif()
  endforeach()
  list(LENGTH hosts host_count)
  if(NOT host_count EQUAL 1)
    message(FATAL_ERROR "ttlplan_add_kernel: ${arg_SOURCE} has ${host_count} kernels, and the "
                        "${type} ${arg_TARGET} takes one host program; put each ttl.kernel in a "
                        "file of its own, or use a custom target")
  endif()
  target_sources(${arg_TARGET} PRIVATE ${hosts})
  # host.cpp finds its kernels under TTLPLAN_KERNEL_DIR and includes ttlplan_npy.hpp from there.
  target_include_directories(${arg_TARGET} PRIVATE "${out_dir}")
  target_compile_definitions(${arg_TARGET} PRIVATE "TTLPLAN_KERNEL_DIR=\"${out_dir}\"")
  if(arg_METALIUM)
    target_link_libraries(${arg_TARGET} PRIVATE TT::Metalium)
    return()
  endif()
  target_sources(${arg_TARGET} PRIVATE ${sources})
  target_link_libraries(${arg_TARGET} PRIVATE ttlplan::emu)
  foreach(kernel IN LISTS kernels)
    get_filename_component(kernel_dir "${kernel}" DIRECTORY)
    add_custom_command(TARGET ${arg_TARGET} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E make_directory "$<TARGET_FILE_DIR:${arg_TARGET}>/${kernel_dir}"
      COMMAND ${CMAKE_COMMAND} -E copy_if_different "${out_dir}/${kernel}"
              "$<TARGET_FILE_DIR:${arg_TARGET}>/${kernel}"
      VERBATIM)
  endforeach()
endfunction()

# The paths `ttlplan compile ARGS --list-outputs` prints, into `out`; a bad kernel stops the
# configure with ttlplan's diagnostics.
function(_ttlplan_list_outputs out)
  get_target_property(configs ttlplan::ttlplan IMPORTED_CONFIGURATIONS)
  list(GET configs 0 config)
  get_target_property(ttlplan ttlplan::ttlplan IMPORTED_LOCATION_${config})
  execute_process(COMMAND "${ttlplan}" ${ARGN} --list-outputs
                  OUTPUT_VARIABLE listed ERROR_VARIABLE errors RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "ttlplan_add_kernel: `ttlplan ${command} --list-outputs` failed:\n${errors}")
  endif()
  string(STRIP "${listed}" listed)
  string(REPLACE "\n" ";" listed "${listed}")
  set(${out} ${listed} PARENT_SCOPE)
endfunction()
