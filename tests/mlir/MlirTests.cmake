# MLIR text as MLIR writes it (issue 13): each tests/mlir/*.mlir is a lit test (tests/LitTests.cmake
# runs its RUN lines). Here, the generic form of each valid input must also be accepted by
# mlir-opt-16, except properties (LLVM >= 17); a --split-input-file input is one file per chunk,
# not one file, and an input whose RUN line expects a failure (`not`) is not valid.
file(GLOB mlir_inputs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mlir/*.mlir)
foreach(input IN LISTS mlir_inputs)
  get_filename_component(stem ${input} NAME_WE)
  file(STRINGS ${input} run_line REGEX "^// RUN: " LIMIT_COUNT 1)
  file(READ ${input} text)
  string(FIND "${text}" "<{" has_properties)
  string(FIND "${run_line}" "--split-input-file" split)
  if(has_properties EQUAL -1 AND NOT run_line MATCHES "^// RUN: not " AND split EQUAL -1)
    add_test(NAME mlir_opt_accepts_generic.mlir.${stem}
             COMMAND ${CMAKE_COMMAND} -DTTLPLAN=$<TARGET_FILE:ttlplan> -DMLIR_OPT=${MLIR_OPT}
                     -DINPUT=${input} -P ${CMAKE_CURRENT_SOURCE_DIR}/MlirOptAccepts.cmake)
  endif()
endforeach()

# Kernels in tt-lang's form, imported, lowered, run on the emulator and compared with the
# reference interpreter.
foreach(kernel ttlang-eltwise-add ttlang-matmul-accumulate ttlang-multicast)
  add_test(NAME run.${kernel} COMMAND ttlplan run ${CMAKE_CURRENT_SOURCE_DIR}/mlir/${kernel}.mlir)
endforeach()
