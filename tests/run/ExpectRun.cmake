# Runs CMD (a ;-list), checks its exit code equals EXPECT and that its stdout + stderr matches
# every regular expression of the ;-list MATCHES (given with '|' instead of ';' to survive -D).
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT}; output:\n${all}")
endif()
string(REPLACE "|" ";" patterns "${MATCHES}")
foreach(pattern IN LISTS patterns)
  if(NOT all MATCHES "${pattern}")
    message(FATAL_ERROR "output does not match '${pattern}':\n${all}")
  endif()
endforeach()
message("${all}")
