# Runs `ttlplan compile INPUT -o OUT`, then checks what it wrote:
#   - with SYNTAX=1: compiles every generated .cpp with CXX -std=c++20 -fsyntax-only -Wall -Werror
#     against the emulator's headers (EMU_INCLUDE), as `ttlplan run` would compile them.
#   cmake -DTTLPLAN=... -DINPUT=... -DOUT=DIR [-DSYNTAX=1 -DCXX=g++ -DEMU_INCLUDE=...] -P RunCompileCheck.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${TTLPLAN} compile ${INPUT} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ttlplan compile ${INPUT} failed (${rc}):\n${err}")
endif()

if(SYNTAX)
  file(GLOB_RECURSE sources ${OUT}/*.cpp)
  if(NOT sources)
    message(FATAL_ERROR "ttlplan compile wrote no .cpp file:\n${out}")
  endif()
  foreach(source IN LISTS sources)
    execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -Wall -Werror -I ${EMU_INCLUDE} ${source}
                    RESULT_VARIABLE cxx_rc ERROR_VARIABLE cxx_err)
    if(NOT cxx_rc EQUAL 0)
      message(FATAL_ERROR "${CXX} -fsyntax-only -Wall -Werror ${source} failed:\n${cxx_err}")
    endif()
  endforeach()
endif()
