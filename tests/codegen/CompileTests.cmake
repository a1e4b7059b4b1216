# Tests of `ttlplan compile` (docs/codegen.md); the golden checks of its files are the lit tests
# tests/codegen/*.check. Included from tests/CMakeLists.txt.
find_program(TTLPLAN_CXX NAMES g++)
set(codegen_test_dir ${CMAKE_CURRENT_SOURCE_DIR}/codegen)
set(codegen_emu_include ${PROJECT_SOURCE_DIR}/codegen/emu/include)

# Every example compiles, and the C++ passes g++ -fsyntax-only -Wall -Werror against the emulator's
# headers.
foreach(example eltwise_add eltwise_bcast_scalar matmul_single_core matmul_multicore
                matmul_mcast_2d matmul_template softmax_row)
  add_test(NAME codegen.syntax.${example}
           COMMAND ${CMAKE_COMMAND} -DTTLPLAN=$<TARGET_FILE:ttlplan>
                   -DINPUT=${PROJECT_SOURCE_DIR}/examples/${example}.ttl
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/codegen-syntax-${example} -DSYNTAX=1
                   -DCXX=${TTLPLAN_CXX} -DEMU_INCLUDE=${codegen_emu_include}
                   -P ${codegen_test_dir}/RunCompileCheck.cmake)
endforeach()

# An unwritable output directory: exit 1 naming the path.
add_test(NAME codegen.unwritable_dir
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:ttlplan>;compile;${PROJECT_SOURCE_DIR}/examples/eltwise_add.ttl;-o;/proc/ttlplan-no-such-dir"
                 -DEXPECT=1 -DLINES=-1 "-DCONTAINS=cannot create directory '/proc/ttlplan-no-such-dir"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/ExpectExit.cmake)
