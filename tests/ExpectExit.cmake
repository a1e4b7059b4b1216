# Runs CMD (a ;-list) and checks its exit code equals EXPECT and that stderr is LINES lines.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT}; stderr:\n${err}")
endif()
if(DEFINED LINES AND NOT LINES EQUAL -1) # -1: any number of lines
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines count)
  if(NOT count EQUAL LINES)
    message(FATAL_ERROR "stderr has ${count} lines, expected ${LINES}:\n${err}")
  endif()
endif()
# Every diagnostic carries one prefix: "ttlplan: error: " or "FILE:LINE:COL: error: ", never both.
if(err MATCHES "error: [^\n]*:[0-9]+:[0-9]+: error: ")
  message(FATAL_ERROR "a line of stderr has two error prefixes:\n${err}")
endif()
if(DEFINED CONTAINS AND NOT err MATCHES "${CONTAINS}")
  message(FATAL_ERROR "stderr does not contain '${CONTAINS}':\n${err}")
endif()
