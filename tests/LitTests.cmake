# Lit-style tests: every .ttl, .mlir or .check file under tests/ with a `// RUN:` line is the test
# lit.<its path under tests/>, and tests/lit.py runs its RUN lines (with `ttlplan` and `FileCheck`
# replaced by the build's and LLVM's): the commands are written in the test file only.
find_program(FILECHECK NAMES FileCheck-16 FileCheck PATHS /usr/lib/llvm-16/bin)
if(NOT FILECHECK)
  set(FILECHECK FileCheck-16-not-found) # the tests fail and say so; scripts/setup.sh installs it
endif()
file(GLOB_RECURSE lit_candidates CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.ttl
     ${CMAKE_CURRENT_SOURCE_DIR}/*.mlir ${CMAKE_CURRENT_SOURCE_DIR}/*.check)
foreach(input IN LISTS lit_candidates)
  file(STRINGS ${input} run_line REGEX "^// RUN: " LIMIT_COUNT 1)
  if(NOT run_line)
    continue()
  endif()
  file(RELATIVE_PATH name ${CMAKE_CURRENT_SOURCE_DIR} ${input})
  add_test(NAME lit.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/lit.py ${input}
                   --tool ttlplan=$<TARGET_FILE:ttlplan> --tool FileCheck=${FILECHECK}
                   --scratch ${CMAKE_CURRENT_BINARY_DIR}/scratch/lit)
endforeach()

# tests/lit.py itself: a failing CHECK and `not` of a command that succeeds are failures it
# reports; a continued RUN line runs as one command.
foreach(case check-fails not-of-success continued)
  add_test(NAME lit.selftest.${case}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/lit.py
                   ${CMAKE_CURRENT_SOURCE_DIR}/lit-selftest/${case}.txt
                   --tool ttlplan=$<TARGET_FILE:ttlplan> --tool FileCheck=${FILECHECK}
                   --scratch ${CMAKE_CURRENT_BINARY_DIR}/scratch/lit)
endforeach()
set_tests_properties(lit.selftest.check-fails lit.selftest.not-of-success
                     PROPERTIES PASS_REGULAR_EXPRESSION "RUN line failed \\(exit 1\\)")
set_tests_properties(lit.selftest.continued PROPERTIES PASS_REGULAR_EXPRESSION
                     "continued.txt:1: ok: ttlplan print %s \\| FileCheck %s --check-prefix=CONTINUED")
