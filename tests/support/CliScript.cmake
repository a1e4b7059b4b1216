# Helpers for the CLI test scripts run with `cmake -P` (tests/db/DbCli.cmake,
# tests/plan/TunedBindingCli.cmake): run ttlplan, match text, compare JSON. TTLPLAN is the binary.

# Runs ttlplan ARGN; fails unless it exits with EXPECT. Sets <prefix>_out and <prefix>_err.
function(ttlplan_run prefix expect)
  execute_process(COMMAND ${TTLPLAN} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL expect)
    message(FATAL_ERROR "ttlplan ${ARGN}: exit ${rc}, expected ${expect}\nstdout:\n${out}\n"
                        "stderr:\n${err}")
  endif()
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# Fails unless TEXT matches REGEX.
function(expect_match what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what} does not match '${regex}':\n${text}")
  endif()
endfunction()

# Fails unless the JSON values A and B are equal (parsed, so formatting does not matter).
function(expect_json_equal what a b)
  string(JSON equal EQUAL "${a}" "${b}")
  if(NOT equal)
    message(FATAL_ERROR "${what} differ:\n${a}\n--- vs ---\n${b}")
  endif()
endfunction()
