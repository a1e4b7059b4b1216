# Lit-style tests of MLIR text as MLIR writes it (issue 13): each tests/mlir/*.mlir has a RUN line
#   // RUN: [not] ttlplan ARGS %s [2>&1] | FileCheck %s
# that is its command: `not` expects the command to fail and checks its stderr.
find_program(FILECHECK NAMES FileCheck-16 FileCheck PATHS /usr/lib/llvm-16/bin)
file(GLOB mlir_inputs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mlir/*.mlir)
foreach(input IN LISTS mlir_inputs)
  get_filename_component(stem ${input} NAME_WE)
  file(STRINGS ${input} run_line REGEX "^// RUN: " LIMIT_COUNT 1)
  if(NOT run_line MATCHES "^// RUN: (not )?ttlplan (.*) %s( 2>&1)? \\| FileCheck %s$")
    message(FATAL_ERROR "${input}: expected `// RUN: [not] ttlplan ARGS %s [2>&1] | FileCheck %s`")
  endif()
  set(run_args "${CMAKE_MATCH_2}")
  set(expect_fail "")
  if(CMAKE_MATCH_1)
    set(expect_fail -DEXPECT_FAIL=1)
  endif()
  separate_arguments(args UNIX_COMMAND "${run_args}")
  add_test(NAME mlir.${stem}
           COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:ttlplan>;${args};${input}"
                   -DCHECKS=${input} -DFILECHECK=${FILECHECK} ${expect_fail}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/RunFileCheck.cmake)
  # The generic form of each valid input must be accepted by mlir-opt-16, except properties
  # (LLVM >= 17); a --split-input-file input is one file per chunk, not one file.
  file(READ ${input} text)
  string(FIND "${text}" "<{" has_properties)
  string(FIND "${run_args}" "--split-input-file" split)
  if(has_properties EQUAL -1 AND NOT expect_fail AND split EQUAL -1)
    add_test(NAME mlir_opt_accepts_generic.mlir.${stem}
             COMMAND ${CMAKE_COMMAND} -DTTLPLAN=$<TARGET_FILE:ttlplan> -DMLIR_OPT=${MLIR_OPT}
                     -DINPUT=${input} -P ${CMAKE_CURRENT_SOURCE_DIR}/MlirOptAccepts.cmake)
  endif()
endforeach()

# compile --split-input-file writes each chunk's files under DIR/N.
add_test(NAME mlir.split-input-file.compile
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=$<TARGET_FILE:ttlplan>;compile;--split-input-file;${CMAKE_CURRENT_SOURCE_DIR}/mlir/split-input-file.mlir;-o;${CMAKE_CURRENT_BINARY_DIR}/split-compile"
                 -DCHECKS=${CMAKE_CURRENT_SOURCE_DIR}/mlir/split-input-file.mlir -DPREFIX=COMPILE
                 -DFILECHECK=${FILECHECK} -P ${CMAKE_CURRENT_SOURCE_DIR}/RunFileCheck.cmake)

# Kernels in tt-lang's form, imported, lowered, run on the emulator and compared with the
# reference interpreter.
foreach(kernel ttlang-eltwise-add ttlang-matmul-accumulate ttlang-multicast)
  add_test(NAME run.${kernel} COMMAND ttlplan run ${CMAKE_CURRENT_SOURCE_DIR}/mlir/${kernel}.mlir)
endforeach()
