# `ttlplan plan --json -` writes the JSON to standard output (it parses, nothing else is there)
# and the report to standard error, and creates no file named '-'.
#   cmake -DTTLPLAN=... -DSOURCE=<repo> -DWORK=<empty dir> -P JsonStdout.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${TTLPLAN} plan --json - ${SOURCE}/examples/eltwise_add.ttl
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plan --json - exited ${rc}:\n${err}")
endif()
string(JSON version ERROR_VARIABLE bad GET "${out}" schema_version)
if(bad OR NOT version EQUAL 1)
  message(FATAL_ERROR "stdout is not the plan JSON (${bad}):\n${out}")
endif()
if(NOT err MATCHES "^plan of [^\n]*eltwise_add.ttl on wormhole_b0\n")
  message(FATAL_ERROR "stderr does not hold the report:\n${err}")
endif()
if(EXISTS ${WORK}/-)
  message(FATAL_ERROR "plan --json - wrote a file named '-'")
endif()
file(REMOVE_RECURSE ${WORK})
