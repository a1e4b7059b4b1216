# Golden tests of the lowering passes (lit style): each tests/lower/<pass>.ttl holds the input
# kernel, a `// RUN:` comment with the command, and `// CHECK:` lines verified by hand.
find_program(FILECHECK NAMES FileCheck-16 FileCheck PATHS /usr/lib/llvm-16/bin)

# ttlplan_golden(NAME CHECKS_FILE ARGS...): runs `ttlplan ARGS...` and FileChecks its stdout.
function(ttlplan_golden name checks)
  add_test(NAME golden.${name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:ttlplan>;${ARGN}" -DCHECKS=${checks}
                   -DFILECHECK=${FILECHECK} -P ${CMAKE_CURRENT_SOURCE_DIR}/RunFileCheck.cmake)
endfunction()

set(golden_lower_dir ${CMAKE_CURRENT_SOURCE_DIR}/lower)

# --- expand-threads ---
ttlplan_golden(expand-threads ${golden_lower_dir}/expand-threads.ttl lower
               --pipeline verify,plan,apply-plan,expand-threads ${golden_lower_dir}/expand-threads.ttl)
