# Runs `ttlplan ARGS` (which must write JSON to stdout, e.g. `plan FILE --json -`), checks its exit
# code, and validates stdout against SCHEMA with validate.py; optionally mutated copies must fail.
#   cmake -DTTLPLAN=<ttlplan> -DPYTHON=<python3> -DSCHEMA=<x.schema.json> -DWORK=<dir>
#         "-DARGS=plan;FILE;--json;-" [-DEXPECT_RC=0] [-DSTATUS=planned|infeasible]
#         ["-DMUTATE=M^M..." with each M "delete|PATH", "set|PATH|JSON" or "add|PATH|JSON"]
#         -P RunAndValidate.cmake
# STATUS checks the top-level "status" (the plan JSON). Each mutation (tests/schema/mutate.py)
# changes the output on its own; every changed copy must then be INVALID (validate.py
# --expect-invalid). One run of ttlplan serves them all.
get_filename_component(here ${CMAKE_CURRENT_LIST_FILE} DIRECTORY)
if(NOT DEFINED EXPECT_RC)
  set(EXPECT_RC 0)
endif()
file(MAKE_DIRECTORY ${WORK})
set(out_file ${WORK}/out.json)
execute_process(COMMAND ${TTLPLAN} ${ARGS} RESULT_VARIABLE rc OUTPUT_FILE ${out_file}
                ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "ttlplan ${ARGS}: exit code ${rc}, expected ${EXPECT_RC}; stderr:\n${err}")
endif()
file(READ ${out_file} text)
if(DEFINED STATUS)
  string(JSON status ERROR_VARIABLE bad GET "${text}" status)
  if(bad OR NOT status STREQUAL STATUS)
    message(FATAL_ERROR "\"status\" is '${status}' (${bad}), expected '${STATUS}':\n${text}")
  endif()
endif()
execute_process(COMMAND ${PYTHON} ${here}/validate.py ${SCHEMA} ${out_file}
                RESULT_VARIABLE rc OUTPUT_VARIABLE vout ERROR_VARIABLE verr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${out_file} does not validate against ${SCHEMA}:\n${vout}${verr}")
endif()
string(REPLACE "^" ";" mutations "${MUTATE}")
foreach(change IN LISTS mutations)
  string(REPLACE "|" ";" mutation "${change}")
  execute_process(COMMAND ${PYTHON} ${here}/mutate.py ${out_file} ${WORK}/mutated.json ${mutation}
                  RESULT_VARIABLE rc ERROR_VARIABLE merr)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mutate.py ${mutation} failed:\n${merr}")
  endif()
  execute_process(COMMAND ${PYTHON} ${here}/validate.py ${SCHEMA} ${WORK}/mutated.json
                          --expect-invalid
                  RESULT_VARIABLE rc OUTPUT_VARIABLE vout ERROR_VARIABLE verr)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the output with '${change}' still validates:\n${vout}${verr}")
  endif()
  message(STATUS "${change}: ${vout}")
endforeach()
