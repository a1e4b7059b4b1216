# Terminal behaviour (tools/Terminal.h): colour only on a terminal and never with NO_COLOR or
# TERM=dumb; -q drops the notes on stderr; -v says how long slow steps took; progress lines on
# a terminal. `script` (util-linux) gives the command a pseudo-terminal.
#   cmake -DTTLPLAN=... -DSOURCE=<repo> -DWORK=<dir> -P TerminalCli.cmake
cmake_minimum_required(VERSION 3.25)
find_program(SCRIPT script REQUIRED)
set(bad ${SOURCE}/tests/verify/cb_protocol.ttl)
string(ASCII 27 esc)

# check(MESSAGE CONDITION...): fails with MESSAGE unless CONDITION (an if() condition) holds.
function(check what)
  string(REPLACE ";" " " condition "${ARGN}")
  cmake_language(EVAL CODE "if(NOT (${condition}))\n  message(FATAL_ERROR \"\${what}\")\nendif()")
endfunction()

# Not a terminal: no escape codes.
execute_process(COMMAND ${TTLPLAN} verify ${bad} OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}${err}" "${esc}" at)
check("escape codes written to a pipe:\n${err}" at EQUAL -1)
string(FIND "${err}" "error:" at)
check("verify of ${bad} printed no error" NOT at EQUAL -1)

# A terminal: the severity is coloured.
execute_process(COMMAND ${CMAKE_COMMAND} -E env TERM=xterm --unset=NO_COLOR
                        ${SCRIPT} -qec "${TTLPLAN} verify ${bad}" /dev/null OUTPUT_VARIABLE out)
string(FIND "${out}" "${esc}[1;31merror:" at)
check("no red 'error:' on a terminal:\n${out}" NOT at EQUAL -1)

# NO_COLOR and TERM=dumb turn it off on a terminal.
foreach(env "NO_COLOR=1;TERM=xterm" "TERM=dumb")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env}
                          ${SCRIPT} -qec "${TTLPLAN} verify ${bad}" /dev/null OUTPUT_VARIABLE out)
  string(FIND "${out}" "${esc}[" at)
  check("escape codes with ${env}:\n${out}" at EQUAL -1)
  string(FIND "${out}" "error:" at)
  check("no error printed with ${env}:\n${out}" NOT at EQUAL -1)
endforeach()

# -q: the note on how the binding was chosen goes; the report on stdout stays.
set(template ${SOURCE}/examples/matmul_template.ttl)
execute_process(COMMAND ${TTLPLAN} plan ${template} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
check("plan of ${template} failed: ${err}" rc EQUAL 0)
string(LENGTH "${err}" err_length)
check("plan printed no note on stderr without -q" err_length GREATER 0)
execute_process(COMMAND ${TTLPLAN} plan ${template} -q RESULT_VARIABLE rc OUTPUT_VARIABLE quiet_out
                ERROR_VARIABLE quiet_err)
check("plan -q failed" rc EQUAL 0)
string(LENGTH "${quiet_err}" quiet_err_length)
check("plan -q wrote to stderr: ${quiet_err}" quiet_err_length EQUAL 0)
# (the solvers' wall-clock times differ between runs)
string(REGEX REPLACE "[0-9.]+ ms" "T ms" out "${out}")
string(REGEX REPLACE "[0-9.]+ ms" "T ms" quiet_out "${quiet_out}")
check("plan -q changed stdout" quiet_out STREQUAL out)

# -v: how long the g++ build took, also when stderr is not a terminal; a terminal shows the step
# while it runs.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${TTLPLAN} run ${SOURCE}/examples/eltwise_add.ttl -v RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
check("run -v failed: ${out}${err}" rc EQUAL 0)
string(REGEX MATCH "run: building with g\\+\\+: done in [0-9.]+ s" done "${err}")
check("run -v did not time the build:\n${err}" done)
execute_process(COMMAND ${CMAKE_COMMAND} -E env TERM=xterm
                        ${SCRIPT} -qec "${TTLPLAN} run ${SOURCE}/examples/eltwise_add.ttl" /dev/null
                OUTPUT_VARIABLE out)
string(FIND "${out}" "run: building with g++... " at)
check("no progress line for the build on a terminal:\n${out}" NOT at EQUAL -1)
